package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// IncidentSimilar shows the new-incident form again, as typed, with the earlier incidents that
// look like the draft. Nothing is saved.
func (h *Handlers) IncidentSimilar(c echo.Context) error {
	form, err := formValues(c)
	if err != nil {
		return err
	}
	values, in, _, _ := incidentForm(form)
	page, err := h.incidentFormPage(c, "File an incident", "/incidents", "/incidents")
	if err != nil {
		return err
	}
	similar, err := h.Store.SimilarIncidents(c.Request().Context(), models.SimilarQuery{
		Before: in.Milestones.StartedAt, Text: in.Title + " " + in.Summary + " " + in.RootCause,
		Services: in.Services, Factors: in.Factors,
	}, 5)
	if err != nil {
		return err
	}
	page.Values, page.Similar, page.SimilarAsked = values, similar, true
	page.Warnings = in.Milestones.OrderWarnings()
	return render(c, http.StatusOK, templates.IncidentFormPage(page))
}
