package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// IncidentCreate files a new incident from the form, with the status updates, impact windows and
// follow-ups it carries from pasted text, all in one transaction; or shows the form again with
// its errors.
func (h *Handlers) IncidentCreate(c echo.Context) error {
	form, err := formValues(c)
	if err != nil {
		return err
	}
	values, in, children, errs := incidentForm(form)
	laid := templates.IncidentForm{Values: values}
	if err := h.applyTemplate(c, &laid, &in); err != nil {
		return err
	}
	values = laid.Values
	again := func(errs models.FieldErrors) error {
		page, err := h.incidentFormPage(c, "File an incident", "/incidents", "/incidents")
		if err != nil {
			return err
		}
		page.Values, page.Errors, page.Warnings, page.ZoneChosen = values, errs, in.Milestones.OrderWarnings(), true
		if err := h.applyTemplate(c, &page, nil); err != nil {
			return err
		}
		return render(c, http.StatusUnprocessableEntity, templates.IncidentFormPage(page))
	}
	if len(errs) > 0 {
		return again(errs)
	}
	if err := publishGuard(c, "none", in.PostmortemState); err != nil {
		return err
	}
	override, refusal, err := h.checkPublish(c, nil, in, children, checked(form, "publish_anyway"), form.Get("publish_reason"))
	if err != nil {
		return err
	}
	if refusal != nil {
		return again(models.FieldErrors{{Field: "postmortem_state", Message: refusal.message()}})
	}
	if override != nil {
		in.PostmortemState = "in_review" // published below, over the findings
	}
	inc, err := h.Store.CreateIncident(c.Request().Context(), in, children)
	var refused models.FieldErrors
	if errors.As(err, &refused) {
		return again(refused) // the store's own rules: a timeline over its limit, an unknown factor
	}
	if err != nil {
		return err
	}
	if override != nil {
		if _, err := h.publishAfterWrite(c, inc, override); err != nil {
			return err
		}
	}
	h.Similar.Queue(inc.ID)
	return seeOther(c, incidentURL(inc.ID))
}
