package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"

	"hindsight/templates"
)

// FollowUpCreate adds a follow-up action from the form on the incident page. A done date in the
// future or before the incident started comes back beside its field with the input kept.
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
	if len(errs) == 0 {
		err := h.Store.CheckFollowUpDone(c.Request().Context(), incidentID, in)
		var f *models.FollowUp
		if err == nil {
			f, err = h.Store.CreateFollowUp(c.Request().Context(), incidentID, in)
		}
		fe, refused := asFieldErrors(err)
		if !refused {
			if err != nil {
				return storeError(err, "incident")
			}
			if isHTMX(c) {
				return h.sectionSaved(c, incidentID, "follow-ups")
			}
			return seeOther(c, incidentURL(incidentID)+"#"+anchor("follow-up", f.ID))
		}
		errs = fe
	}
	return h.childFormFailed(c, incidentID, http.StatusUnprocessableEntity, func(v *templates.IncidentView) {
		v.NewFollowUp, v.Open = templates.ChildForm[templates.FollowUpFormValues]{Values: values, Errors: errs}, "follow-ups"
	})
}
