package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// EventUpdate saves a timeline entry edited in place on the incident page.
func (h *Handlers) EventUpdate(c echo.Context) error {
	incidentID, id, err := childIDs(c)
	if err != nil {
		return err
	}
	form, err := formValues(c)
	if err != nil {
		return err
	}
	values, in, errs := eventForm(form)
	if len(errs) > 0 {
		return h.childFormFailed(c, incidentID, http.StatusUnprocessableEntity, func(v *templates.IncidentView) {
			v.EditEvent = templates.ChildForm[templates.EventFormValues]{ID: id, Values: values, Errors: errs}
		})
	}
	err = h.Store.UpdateEvent(c.Request().Context(), incidentID, id, in)
	return childSaved(c, err, incidentID, anchor("event", id), "timeline entry")
}
