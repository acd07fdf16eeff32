package handlers

import (
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// IncidentShow shows an incident with its figures, timeline, impact windows and follow-ups.
// ?edit_event=, ?edit_window= and ?edit_follow_up= open one record's edit form in place, which
// keeps inline editing working without JavaScript. Without them the rendered page is kept per
// viewer or editor while the incident's page mark stands still, until the clock would change what it shows;
// a page with a notice for this session (a delete's Undo) is rendered for it alone.
func (h *Handlers) IncidentShow(c echo.Context) error {
	q := c.QueryParams()
	if q.Has("edit_event") || q.Has("edit_window") || q.Has("edit_follow_up") {
		return h.incidentShowEditing(c)
	}
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if notice := h.popNotice(c, id); notice != nil {
		return h.incidentShowNotice(c, notice)
	}
	ctx := c.Request().Context()
	mark, err := h.Store.IncidentPageMark(ctx, id)
	if err != nil {
		return err
	}
	// The body shows editing controls or not, and nothing else of the user (IncidentBody).
	key := "incident/" + strconv.FormatInt(id, 10) + "/view"
	if CurrentUser(c).Can(models.RoleResponder) {
		key = "incident/" + strconv.FormatInt(id, 10) + "/edit"
	}
	return h.renderKept(c, key, mark, func() (pageBody, error) {
		inc, err := h.Store.GetIncident(ctx, id)
		if err != nil {
			return pageBody{}, storeError(err, "incident")
		}
		view, err := h.incidentView(c, inc)
		if err != nil {
			return pageBody{}, err
		}
		return pageBody{view.Page, templates.IncidentBody(view), pageExpiry(inc, view.Now)}, nil
	})
}

// pageExpiry is when the clock would next change an incident's page: the next minute while an
// impact window is drawn up to now, else the next midnight UTC, when follow-ups fall overdue.
func pageExpiry(inc *models.Incident, now time.Time) time.Time {
	for _, w := range inc.ImpactWindows {
		if models.WindowEnd(w, inc) == nil {
			return now.Truncate(time.Minute).Add(time.Minute)
		}
	}
	y, m, d := now.UTC().Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
}

// incidentShowEditing shows the incident page with one record's edit form open.
func (h *Handlers) incidentShowEditing(c echo.Context) error {
	inc, err := h.loadIncident(c)
	if err != nil {
		return err
	}
	view, err := h.incidentView(c, inc)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	if id, _ := strconv.ParseInt(q.Get("edit_event"), 10, 64); id != 0 {
		for n := range inc.Timeline {
			if inc.Timeline[n].ID == id {
				view.EditEvent = templates.ChildForm[templates.EventFormValues]{ID: id, Values: eventFormValues(&inc.Timeline[n], view.Location)}
			}
		}
	}
	if id, _ := strconv.ParseInt(q.Get("edit_window"), 10, 64); id != 0 {
		for n := range inc.ImpactWindows {
			if inc.ImpactWindows[n].ID == id {
				view.EditWindow = templates.ChildForm[templates.WindowFormValues]{ID: id, Values: windowFormValues(&inc.ImpactWindows[n], view.Location)}
			}
		}
	}
	if id, _ := strconv.ParseInt(q.Get("edit_follow_up"), 10, 64); id != 0 {
		for n := range inc.FollowUps {
			if inc.FollowUps[n].ID == id {
				view.EditFollowUp = templates.ChildForm[templates.FollowUpFormValues]{ID: id, Values: followUpFormValues(&inc.FollowUps[n], view.Location)}
			}
		}
	}
	return render(c, http.StatusOK, templates.IncidentPage(view))
}

func (h *Handlers) loadIncident(c echo.Context) (*models.Incident, error) {
	id, err := pathID(c, "id")
	if err != nil {
		return nil, err
	}
	inc, err := h.Store.GetIncident(c.Request().Context(), id)
	if err != nil {
		return nil, storeError(err, "incident")
	}
	return inc, nil
}

// incidentView builds the incident page with empty add forms set to sensible defaults, its links,
// the taxonomy for the follow-up form and the similar earlier incidents.
func (h *Handlers) incidentView(c echo.Context, inc *models.Incident) (templates.IncidentView, error) {
	ctx := c.Request().Context()
	factors, err := h.Store.ListFactors(ctx)
	if err != nil {
		return templates.IncidentView{}, err
	}
	similar, err := h.Similar.For(ctx, inc)
	if err != nil {
		return templates.IncidentView{}, err
	}
	owners, err := h.ownerOptions(c)
	if err != nil {
		return templates.IncidentView{}, err
	}
	view := baseIncidentView(inc)
	view.AllFactors, view.Links, view.Similar, view.Owners = factors, inc.Links, similar, owners
	view.NewLink.Values.Kind = "related"
	return view, nil
}

func baseIncidentView(inc *models.Incident) templates.IncidentView {
	loc := inc.Location()
	return templates.IncidentView{
		Page:     templates.Page{Title: inc.Title, Section: "incidents"},
		Incident: inc, Location: loc, Metrics: models.ComputeMetrics(inc), Phases: models.Phases(inc),
		Warnings: inc.Milestones().OrderWarnings(), Now: time.Now(),
		NewEvent:    templates.ChildForm[templates.EventFormValues]{Values: newEventValues(inc)},
		NewWindow:   templates.ChildForm[templates.WindowFormValues]{Values: templates.WindowFormValues{TimeZone: loc.String(), Level: "degraded"}},
		NewFollowUp: templates.ChildForm[templates.FollowUpFormValues]{Values: templates.FollowUpFormValues{Kind: "prevent", Priority: "p2", Status: "open"}},
	}
}
