package handlers

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

const followUpsPerPage = 50

// followUpFilter reads the follow-up list's filter from the query.
func followUpFilter(c echo.Context) (templates.FollowUpFilterValues, models.FollowUpFilter) {
	q := c.QueryParams()
	values := templates.FollowUpFilterValues{
		Owner: q.Get("owner"), Status: q.Get("status"), Kind: q.Get("kind"), Priority: q.Get("priority"),
		Service: q.Get("service"), Factor: q.Get("factor"), Due: q.Get("due"), Sort: q.Get("sort"),
		Mine: q.Get("mine") == "1" || q.Get("mine") == "true",
	}
	filter := models.FollowUpFilter{
		Owner: values.Owner, Status: values.Status, Kind: values.Kind, Priority: values.Priority,
		Service: values.Service, Factor: values.Factor, Due: values.Due, Sort: values.Sort, Now: time.Now(),
	}
	if values.Mine {
		if u := CurrentUser(c); u != nil {
			// The account's id, and its email and name for follow-ups typed before it existed.
			filter.OwnerID, filter.OwnerNames = u.ID, []string{u.Email, u.Name}
		}
	}
	return values, filter
}

// FollowUpList shows follow-ups across every incident, filtered, sorted and counted.
func (h *Handlers) FollowUpList(c echo.Context) error {
	ctx := c.Request().Context()
	values, filter := followUpFilter(c)
	page, offset := pageParam(c.QueryParam("page"), followUpsPerPage)
	filter.Limit, filter.Offset = followUpsPerPage, offset
	items, counts, err := h.Store.ListFollowUps(ctx, filter)
	if err != nil {
		return err
	}
	owners, err := h.Store.OwnerNames(ctx)
	if err != nil {
		return err
	}
	services, err := h.Store.ServiceNames(ctx)
	if err != nil {
		return err
	}
	factors, err := h.Store.ListFactors(ctx)
	if err != nil {
		return err
	}
	query := url.Values{}
	for k, v := range c.QueryParams() {
		if k != "page" {
			query[k] = v
		}
	}
	pages := int((counts.Total + followUpsPerPage - 1) / followUpsPerPage)
	view := templates.FollowUpList{
		Page: templates.Page{Title: "Follow-up actions", Section: "follow-ups"}, Filter: values, Query: query,
		Items: items, Counts: counts, PageNumber: page, PageCount: pages, Owners: owners, Services: services,
		Factors: factors, Now: filter.Now, Flash: h.Sessions.PopString(ctx, "flash"),
	}
	if page > 1 {
		view.PrevURL = followUpPageURL(query, page-1)
	}
	if page < pages {
		view.NextURL = followUpPageURL(query, page+1)
	}
	return render(c, http.StatusOK, templates.FollowUpListPage(view))
}

func followUpPageURL(q url.Values, page int) string {
	next := url.Values{}
	for k, v := range q {
		next[k] = v
	}
	next.Set("page", strconv.Itoa(page))
	return "/follow-ups?" + next.Encode()
}

// FollowUpCSV downloads the filtered list, every page of it, as CSV.
func (h *Handlers) FollowUpCSV(c echo.Context) error {
	_, filter := followUpFilter(c)
	filter.Limit = 100000
	items, _, err := h.Store.ListFollowUps(c.Request().Context(), filter)
	if err != nil {
		return err
	}
	res := c.Response()
	res.Header().Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	res.Header().Set(echo.HeaderContentDisposition, `attachment; filename="follow-ups.csv"`)
	res.WriteHeader(http.StatusOK)
	w := newCSVWriter(res)
	w.Write("id", "title", "status", "priority", "kind", "owner", "due_on", "overdue", "done_at", "incident_id", "incident", "factors", "tracker_url")
	for _, f := range items {
		incident := ""
		if f.Incident != nil {
			incident = f.Incident.Title
		}
		done := ""
		if f.DoneAt != nil {
			done = f.DoneAt.UTC().Format(time.RFC3339)
		}
		w.Write(
			strconv.FormatInt(f.ID, 10), f.Title, f.Status, f.Priority, f.Kind, f.Owner,
			templates.DateOnly(f.DueOn), strconv.FormatBool(f.Overdue(filter.Now)), done,
			strconv.FormatInt(f.IncidentID, 10), incident, templates.Join(f.FactorSlugs()), f.TrackerURL,
		)
	}
	return w.Flush()
}
