package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// WindowUpdate saves an impact window edited in place on the incident page.
func (h *Handlers) WindowUpdate(c echo.Context) error {
	incidentID, id, err := childIDs(c)
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
			v.EditWindow = templates.ChildForm[templates.WindowFormValues]{ID: id, Values: values, Errors: errs}
		})
	}
	err = h.Store.UpdateWindow(c.Request().Context(), incidentID, id, in)
	return childSaved(c, err, incidentID, anchor("window", id), "impact window")
}
