package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// EventCreate adds a timeline entry from the form on the incident page.
func (h *Handlers) EventCreate(c echo.Context) error {
	incidentID, err := pathID(c, "id")
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
			v.NewEvent = templates.ChildForm[templates.EventFormValues]{Values: values, Errors: errs}
			v.Open = "timeline"
		})
	}
	ev, err := h.Store.CreateEvent(c.Request().Context(), incidentID, in)
	if err != nil {
		return storeError(err, "incident")
	}
	return childSaved(c, nil, incidentID, anchor("event", ev.ID), "timeline entry")
}
