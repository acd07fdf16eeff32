package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// FollowUpUpdate saves a follow-up edited in place. If someone else saved it first, the form comes
// back with this input kept and the newer version, so saving again applies it knowingly.
func (h *Handlers) FollowUpUpdate(c echo.Context) error {
	incidentID, id, err := childIDs(c)
	if err != nil {
		return err
	}
	form, err := formValues(c)
	if err != nil {
		return err
	}
	values, in, errs := followUpForm(form)
	status := http.StatusUnprocessableEntity
	if len(errs) == 0 {
		err = h.Store.CheckFollowUpDone(c.Request().Context(), incidentID, in)
		if err == nil {
			err = h.Store.UpdateFollowUp(c.Request().Context(), incidentID, id, values.Version, in)
		}
		if fe, refused := asFieldErrors(err); refused {
			errs = fe // a done date before the incident started, shown beside its field
		} else if !isConflict(err) {
			return childSaved(c, err, incidentID, anchor("follow-up", id), "follow-up")
		} else {
			status = http.StatusConflict
			errs.Add("title", "Someone else changed this follow-up while you were editing it. Your input is kept; save again to apply it over theirs.")
		}
	}
	return h.childFormFailed(c, incidentID, status, func(v *templates.IncidentView) {
		if status == http.StatusConflict {
			for _, f := range v.Incident.FollowUps {
				if f.ID == id {
					values.Version = f.Version
				}
			}
		}
		v.EditFollowUp = templates.ChildForm[templates.FollowUpFormValues]{ID: id, Values: values, Errors: errs}
	})
}
