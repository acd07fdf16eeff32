package handlers

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"hindsight/models"
)

// APIFollowUpList answers GET /api/v1/follow-ups with the follow-up page's filters.
func (h *Handlers) APIFollowUpList(c echo.Context) error {
	_, filter := followUpFilter(c)
	var errs models.FieldErrors
	filter.Limit, filter.Offset = 50, 0
	if v := c.QueryParam("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > apiMaxLimit {
			errs.Add("limit", "Must be a whole number from 1 to 500.")
		}
		filter.Limit = n
	}
	if v := c.QueryParam("offset"); v != "" {
		n, ok := offsetParam(v)
		if !ok {
			errs.Add("offset", "Must be a whole number, 0 or more.")
		}
		filter.Offset = n
	}
	if filter.Due != "" && !slices.Contains([]string{"overdue", "week", "none"}, filter.Due) {
		errs.Add("due", "Must be one of: overdue, week, none.")
	}
	if filter.Status != "" && filter.Status != "active" && !slices.Contains(models.FollowUpStatuses, filter.Status) {
		errs.Add("status", "Must be one of: active, open, in_progress, done, wont_do.")
	}
	if len(errs) > 0 {
		return invalid(c, errs)
	}
	items, counts, err := h.Store.ListFollowUps(c.Request().Context(), filter)
	if err != nil {
		return err
	}
	out := make([]any, len(items))
	for n := range items {
		out[n] = apiFollowUp(&items[n]).wire()
	}
	return c.JSON(http.StatusOK, map[string]any{
		"follow_ups": out, "total": counts.Total, "limit": filter.Limit, "offset": filter.Offset,
		"counts": map[string]any{"by_status": counts.ByStatus, "overdue": counts.Overdue, "unowned": counts.Unowned},
	})
}

// APIFollowUpCreate answers POST /api/v1/follow-ups; the body names its incident_id.
func (h *Handlers) APIFollowUpCreate(c echo.Context) error {
	var body apiFollowUpInput
	errs, err := decodeJSON(c, &body)
	if err != nil {
		return err
	}
	in, more := body.toInput()
	errs = append(errs, more...)
	if body.IncidentID <= 0 {
		errs.Add("incident_id", "This field is required.")
	}
	if len(errs) > 0 {
		return invalid(c, errs)
	}
	err = h.Store.CheckFollowUpDone(c.Request().Context(), body.IncidentID, in)
	var f *models.FollowUp
	if err == nil {
		f, err = h.Store.CreateFollowUp(c.Request().Context(), body.IncidentID, in)
	}
	if fe, ok := asFieldErrors(err); ok {
		return invalid(c, fe)
	}
	if err != nil {
		return storeError(err, "incident")
	}
	return h.apiFollowUpResponse(c, http.StatusCreated, f.ID)
}

// APIFollowUpUpdate answers PUT /api/v1/follow-ups/{id}; a stale "version" is a 409.
func (h *Handlers) APIFollowUpUpdate(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	current, err := h.Store.GetFollowUp(c.Request().Context(), id)
	if err != nil {
		return storeError(err, "follow-up")
	}
	var body apiFollowUpInput
	errs, err := decodeJSON(c, &body)
	if err != nil {
		return err
	}
	in, more := body.toInput()
	if errs = append(errs, more...); len(errs) > 0 {
		return invalid(c, errs)
	}
	err = h.Store.CheckFollowUpDone(c.Request().Context(), current.IncidentID, in)
	if err == nil {
		err = h.Store.UpdateFollowUp(c.Request().Context(), current.IncidentID, id, body.Version, in)
	}
	if fe, ok := asFieldErrors(err); ok {
		return invalid(c, fe)
	}
	if err != nil {
		return storeError(err, "follow-up")
	}
	return h.apiFollowUpResponse(c, http.StatusOK, id)
}

func (h *Handlers) apiFollowUpResponse(c echo.Context, status int, id int64) error {
	f, err := h.Store.GetFollowUp(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return c.JSON(status, apiFollowUp(f).wire())
}

// APIFactorList answers GET /api/v1/factors with the taxonomy.
func (h *Handlers) APIFactorList(c echo.Context) error {
	factors, err := h.Store.ListFactors(c.Request().Context())
	if err != nil {
		return err
	}
	type factor struct {
		Slug        string `json:"slug"`
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	out := make([]factor, len(factors))
	for n, f := range factors {
		out[n] = factor{f.Slug, f.Name, f.Description}
	}
	return c.JSON(http.StatusOK, map[string]any{"factors": out})
}

// APIRecurrence answers GET /api/v1/recurrence: one entry per factor with its counts and flags
// over every incident and follow-up, its most recent incidents and the first follow-ups
// addressing it, "limit" of each (default 100, at most 1000; 0 for counts and flags only).
func (h *Handlers) APIRecurrence(c echo.Context) error {
	limit := models.RecurrenceListed
	if v := c.QueryParam("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > models.RecurrenceMaxListed {
			var errs models.FieldErrors
			errs.Add("limit", "Must be a whole number from 0 to "+strconv.Itoa(models.RecurrenceMaxListed)+".")
			return invalid(c, errs)
		}
		limit = n
	}
	report, err := h.Store.RecurrenceListing(c.Request().Context(), limit)
	if err != nil {
		return err
	}
	type incident struct {
		ID            int64  `json:"id"`
		Title         string `json:"title"`
		StartedAt     any    `json:"started_at"`
		CameBackAfter *int64 `json:"came_back_after_follow_up_id"`
		NearMiss      bool   `json:"near_miss"`
	}
	type followUp struct {
		ID         int64  `json:"id"`
		IncidentID int64  `json:"incident_id"`
		Title      string `json:"title"`
		Status     string `json:"status"`
		DoneAt     any    `json:"done_at"`
	}
	type entry struct {
		Slug              string         `json:"slug"`
		Name              string         `json:"name"`
		IncidentCount     int            `json:"incident_count"`
		NearMissCount     int            `json:"near_miss_count"`
		LastOccurrence    any            `json:"last_occurrence"`
		Incidents         []incident     `json:"incidents"`
		FollowUpCount     int            `json:"follow_up_count"`
		FollowUpsByStatus map[string]int `json:"follow_ups_by_status"`
		FollowUps         []followUp     `json:"follow_ups"`
		Flags             []string       `json:"flags"`
		CameBack          int            `json:"came_back_count"`
	}
	out := make([]entry, len(report))
	for n, r := range report {
		e := entry{Slug: r.Factor.Slug, Name: r.Factor.Name, IncidentCount: r.IncidentCount, NearMissCount: r.NearMisses, CameBack: r.CameBack,
			FollowUpCount: r.FollowUpCount, FollowUpsByStatus: r.FollowUpsByStatus,
			Incidents: []incident{}, FollowUps: []followUp{}, Flags: []string{}}
		if r.LastOccurrence != nil {
			e.LastOccurrence = r.LastOccurrence.UTC()
		}
		for _, inc := range r.Incidents {
			item := incident{ID: inc.ID, Title: inc.Title, NearMiss: inc.NearMiss}
			if inc.StartedAt != nil {
				item.StartedAt = inc.StartedAt.UTC()
			}
			if inc.CameBackAfter != 0 {
				after := inc.CameBackAfter
				item.CameBackAfter = &after
			}
			e.Incidents = append(e.Incidents, item)
		}
		for _, f := range r.FollowUps {
			item := followUp{ID: f.ID, IncidentID: f.IncidentID, Title: f.Title, Status: f.Status}
			if f.DoneAt != nil {
				item.DoneAt = f.DoneAt.UTC()
			}
			e.FollowUps = append(e.FollowUps, item)
		}
		if r.CameBack > 0 {
			e.Flags = append(e.Flags, "came_back_after_fix")
		}
		if r.Unaddressed {
			e.Flags = append(e.Flags, "recurs_without_follow_up")
		}
		out[n] = e
	}
	return c.JSON(http.StatusOK, map[string]any{"factors": out, "limit": limit})
}
