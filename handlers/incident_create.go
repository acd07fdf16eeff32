package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// IncidentCreate files a new incident from the form, or shows the form again with its errors.
func (h *Handlers) IncidentCreate(c echo.Context) error {
	form, err := formValues(c)
	if err != nil {
		return err
	}
	values, in, errs := incidentForm(form)
	laid := templates.IncidentForm{Values: values}
	if err := h.applyTemplate(c, &laid, &in); err != nil {
		return err
	}
	values = laid.Values
	if len(errs) > 0 {
		page, err := h.incidentFormPage(c, "File an incident", "/incidents", "/incidents")
		if err != nil {
			return err
		}
		page.Values, page.Errors, page.Warnings = values, errs, in.Milestones.OrderWarnings()
		if err := h.applyTemplate(c, &page, nil); err != nil {
			return err
		}
		return render(c, http.StatusUnprocessableEntity, templates.IncidentFormPage(page))
	}
	if err := publishGuard(c, "none", in.PostmortemState); err != nil {
		return err
	}
	inc, err := h.Store.CreateIncident(c.Request().Context(), in, models.Children{})
	if err != nil {
		return err
	}
	h.Similar.Queue(inc.ID)
	return seeOther(c, incidentURL(inc.ID))
}
