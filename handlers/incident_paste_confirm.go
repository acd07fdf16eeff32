package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// IncidentPasteConfirm adds the rows read from pasted text and kept by the user to the incident,
// all in one transaction; or shows them again with the reason beside each field.
func (h *Handlers) IncidentPasteConfirm(c echo.Context) error {
	inc, err := h.loadIncident(c)
	if err != nil {
		return err
	}
	form, err := formValues(c)
	if err != nil {
		return err
	}
	var errs models.FieldErrors
	zone := formZone(form.Get("time_zone"), &errs)
	values := templates.IncidentFormValues{TimeZone: zone.String()}
	children := pastedRows(form, zone, inc.StartedAt, &values, &errs)
	if len(errs) == 0 {
		err = h.Store.AddChildren(c.Request().Context(), inc.ID, children)
		var refused models.FieldErrors
		if errors.As(err, &refused) {
			errs = refused
		} else if err != nil {
			return storeError(err, "incident")
		}
	}
	if len(errs) > 0 {
		view, err := h.incidentView(c, inc)
		if err != nil {
			return err
		}
		view.Paste = templates.IncidentPaste{Read: true, TimeZone: zone.String(),
			Rows: templates.IncidentForm{Owners: view.Owners, Values: values, Errors: errs}}
		return render(c, http.StatusUnprocessableEntity, templates.IncidentPage(view))
	}
	return seeOther(c, incidentURL(inc.ID)+"#timeline")
}
