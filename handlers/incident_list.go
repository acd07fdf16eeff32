package handlers

import (
	"net/url"
	"strconv"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

const incidentsPerPage = 50

// IncidentList shows the incidents, filtered and paginated, newest start first.
// The rendered list is kept per query string while the incidents' mark stands still.
func (h *Handlers) IncidentList(c echo.Context) error {
	ctx := c.Request().Context()
	mark, err := h.Store.IncidentsMark(ctx)
	if err != nil {
		return err
	}
	return h.renderKept(c, "list?"+c.Request().URL.RawQuery, strconv.FormatInt(mark, 10), func() (pageBody, error) {
		page := templates.Page{Title: "Incidents", Section: "incidents"}
		body, err := h.incidentList(c, page)
		return pageBody{page: page, body: body}, err
	})
}

func (h *Handlers) incidentList(c echo.Context, pageHead templates.Page) (templ.Component, error) {
	ctx := c.Request().Context()
	q := c.QueryParams()
	filter := templates.IncidentListFilter{
		Status: q.Get("status"), Severity: q.Get("severity"), Service: q.Get("service"),
		Region: q.Get("region"), PostmortemState: q.Get("postmortem"), Text: q.Get("q"),
	}
	page, offset := pageParam(q.Get("page"), incidentsPerPage)
	incidents, total, err := h.Store.ListIncidentSummaries(ctx, models.IncidentFilter{
		Status: filter.Status, Severity: filter.Severity, Service: filter.Service, Region: filter.Region,
		PostmortemState: filter.PostmortemState, Text: filter.Text,
		Limit: incidentsPerPage, Offset: offset,
	})
	if err != nil {
		return nil, err
	}
	services, err := h.Store.ServiceNames(ctx)
	if err != nil {
		return nil, err
	}
	regions, err := h.Store.RegionNames(ctx)
	if err != nil {
		return nil, err
	}
	rows := make([]templates.IncidentRow, len(incidents))
	for n := range incidents {
		inc := &incidents[n]
		m := models.MilestoneMetrics(inc)
		rows[n] = templates.IncidentRow{
			ID: inc.ID, Title: inc.Title, Severity: inc.Severity, Status: inc.Status,
			PostmortemState: inc.PostmortemState, Started: inc.StartedAt, Location: inc.Location(),
			TTD: m.TimeToDetect, TTR: m.TimeToResolve, Services: inc.ServiceNames(), Regions: inc.RegionNames(),
		}
	}
	pages := int((total + incidentsPerPage - 1) / incidentsPerPage)
	view := templates.IncidentList{
		Page: pageHead, Filter: filter, Rows: rows,
		Total: total, PageNumber: page, PageCount: pages, Services: services, Regions: regions,
		Filtered: filter != templates.IncidentListFilter{},
	}
	if page > 1 {
		view.PrevURL = pageURL(q, page-1)
	}
	if page < pages {
		view.NextURL = pageURL(q, page+1)
	}
	return templates.IncidentListBody(view), nil
}

func pageURL(q url.Values, page int) string {
	next := url.Values{}
	for k, v := range q {
		next[k] = v
	}
	next.Set("page", strconv.Itoa(page))
	return "/incidents?" + next.Encode()
}
