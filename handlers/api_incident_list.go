package handlers

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"hindsight/models"
)

const apiMaxLimit = 500

// APIIncidentList answers GET /api/v1/incidents: {"incidents": [...], "total": N}.
func (h *Handlers) APIIncidentList(c echo.Context) error {
	q := c.QueryParams()
	var errs models.FieldErrors
	limit, offset := 50, 0
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > apiMaxLimit {
			errs.Add("limit", "Must be a whole number from 1 to 500.")
		}
		limit = n
	}
	if v := q.Get("offset"); v != "" {
		n, ok := offsetParam(v)
		if !ok {
			errs.Add("offset", "Must be a whole number, 0 or more.")
		}
		offset = n
	}
	filter := models.IncidentFilter{
		Status: q.Get("status"), Severity: q.Get("severity"), Service: q.Get("service"), Region: q.Get("region"),
		PostmortemState: q.Get("postmortem_state"), Text: q.Get("q"), Limit: limit, Offset: offset,
	}
	errs = append(errs, filterErrors(filter)...)
	if len(errs) > 0 {
		return invalid(c, errs)
	}
	incidents, total, err := h.Store.ListIncidents(c.Request().Context(), filter)
	if err != nil {
		return err
	}
	out := make([]any, len(incidents))
	for n := range incidents {
		out[n] = apiIncident(&incidents[n], incidents[n].Links).wire()
	}
	return c.JSON(http.StatusOK, map[string]any{"incidents": out, "total": total, "limit": limit, "offset": offset})
}

// filterErrors reports filter values that can never match because they are not in their enum.
func filterErrors(f models.IncidentFilter) models.FieldErrors {
	var errs models.FieldErrors
	check := func(field, value string, allowed []string) {
		if value == "" {
			return
		}
		for _, a := range allowed {
			if a == value {
				return
			}
		}
		errs.Add(field, "Must be one of the known values.")
	}
	check("status", f.Status, models.Statuses)
	check("severity", f.Severity, models.Severities)
	check("postmortem_state", f.PostmortemState, models.PostmortemStates)
	return errs
}
