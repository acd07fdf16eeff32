package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// FollowUpCreate adds a follow-up action from the form on the incident page.
func (h *Handlers) FollowUpCreate(c echo.Context) error {
	incidentID, err := pathID(c, "id")
	if err != nil {
		return err
	}
	form, err := formValues(c)
	if err != nil {
		return err
	}
	values, in, errs := followUpForm(form)
	if len(errs) > 0 {
		return h.childFormFailed(c, incidentID, http.StatusUnprocessableEntity, func(v *templates.IncidentView) {
			v.NewFollowUp = templates.ChildForm[templates.FollowUpFormValues]{Values: values, Errors: errs}
			v.Open = "follow-ups"
		})
	}
	f, err := h.Store.CreateFollowUp(c.Request().Context(), incidentID, in)
	if err != nil {
		return storeError(err, "incident")
	}
	return childSaved(c, nil, incidentID, anchor("follow-up", f.ID), "follow-up")
}
