package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// IncidentUpdate saves the edit form. A stale version shows the form again with the user's input
// kept and the conflict explained, so nothing anyone typed is lost.
func (h *Handlers) IncidentUpdate(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	form, err := formValues(c)
	if err != nil {
		return err
	}
	values, in, _, errs := incidentForm(form)
	version := formVersion(form)
	laid := templates.IncidentForm{Values: values}
	if err := h.applyTemplate(c, &laid, &in); err != nil {
		return err
	}
	values = laid.Values
	if len(errs) == 0 {
		if err := h.guardStoredPublish(c, id, in.PostmortemState, in.Public); err != nil {
			return err
		}
		stored, err := h.storedForPublish(c, id, in)
		if err != nil {
			return err
		}
		override, refused, err := h.checkPublish(c, stored, in, models.Children{}, checked(form, "publish_anyway"), form.Get("publish_reason"))
		if err != nil {
			return err
		}
		if refused != nil {
			errs.Add("postmortem_state", refused.message())
		}
		if override != nil {
			in.PostmortemState = stored.PostmortemState // published below, over the findings
		}
		if refused == nil {
			updated, err := h.Store.UpdateIncident(c.Request().Context(), id, version, in, models.Children{})
			if err == nil {
				h.Similar.Queue(id)
				if override != nil {
					if _, err := h.publishAfterWrite(c, updated, override); err != nil {
						return err
					}
				}
				return seeOther(c, incidentURL(id))
			}
			if !errors.Is(err, models.ErrConflict) {
				return storeError(err, "incident")
			}
			errs.Add("", "Someone else saved this incident while you were editing it. Nothing of theirs or yours is lost: their version is saved, and your input is kept below.")
		}
	}
	current, err := h.Store.GetIncident(c.Request().Context(), id)
	if err != nil {
		return storeError(err, "incident")
	}
	url := incidentURL(id)
	page, err := h.incidentFormPage(c, "Edit: "+current.Title, url+"/edit", url)
	if err != nil {
		return err
	}
	status := http.StatusUnprocessableEntity
	if errs.For("") != "" {
		// After a conflict the form carries the current version, so saving again applies this input.
		status, version = http.StatusConflict, current.Version
	}
	page.ID, page.Version = id, version
	page.Values, page.Errors, page.Warnings = values, errs, models.FormWarnings(in.Milestones, current)
	if err := h.applyTemplate(c, &page, nil); err != nil {
		return err
	}
	if status == http.StatusConflict {
		page.Conflicts = templates.CompareFormValues(values, incidentFormValues(current))
	}
	return render(c, status, templates.IncidentFormPage(page))
}
