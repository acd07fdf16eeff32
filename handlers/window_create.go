package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// WindowCreate adds an impact window from the form on the incident page.
func (h *Handlers) WindowCreate(c echo.Context) error {
	incidentID, err := pathID(c, "id")
	if err != nil {
		return err
	}
	form, err := formValues(c)
	if err != nil {
		return err
	}
	values, in, errs := windowForm(form)
	if len(errs) > 0 {
		return h.childFormFailed(c, incidentID, http.StatusUnprocessableEntity, func(v *templates.IncidentView) {
			v.NewWindow = templates.ChildForm[templates.WindowFormValues]{Values: values, Errors: errs}
			v.Open = "windows"
		})
	}
	w, err := h.Store.CreateWindow(c.Request().Context(), incidentID, in)
	if err != nil {
		return storeError(err, "incident")
	}
	return childSaved(c, nil, incidentID, anchor("window", w.ID), "impact window")
}
