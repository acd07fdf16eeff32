package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"

	"hindsight/templates"
)

// IncidentEdit shows the form for an existing incident, warning about milestones out of order
// and figures that contradict each other.
func (h *Handlers) IncidentEdit(c echo.Context) error {
	inc, err := h.loadIncident(c)
	if err != nil {
		return err
	}
	url := incidentURL(inc.ID)
	page, err := h.incidentFormPage(c, "Edit: "+inc.Title, url+"/edit", url)
	if err != nil {
		return err
	}
	page.ID, page.Version = inc.ID, inc.Version
	page.Values, page.Warnings = incidentFormValues(inc), models.FormWarnings(inc.Milestones(), inc)
	if err := h.applyTemplate(c, &page, nil); err != nil {
		return err
	}
	// The wording check shows beside each section what the saved text says; it blocks nothing.
	review, err := h.narrativeReview(c, page.Values)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.WithLanguageReview(review, templates.IncidentFormPage(page)))
}
