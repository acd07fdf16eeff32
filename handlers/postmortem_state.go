package handlers

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// PostmortemState moves a postmortem between none, draft, in review and published. Responders
// move it among the first three; publishing, and taking a published postmortem back, is an
// admin's. Publishing records the public version as the preview showed it; the form carries the
// incident's version, so text changed since the preview is not published unseen.
func (h *Handlers) PostmortemState(c echo.Context) error {
	inc, err := h.loadIncident(c)
	if err != nil {
		return err
	}
	form, err := formValues(c)
	if err != nil {
		return err
	}
	state := form.Get("state")
	if err := publishGuard(c, inc.PostmortemState, state); err != nil {
		return err
	}
	var override *models.PublishOverride
	if state == models.PostmortemPublished {
		findings, err := h.completeness(c, inc)
		if err != nil {
			return err
		}
		if len(findings) > 0 {
			reason := strings.TrimSpace(form.Get("reason"))
			problem := publishProblem(checked(form, "publish_anyway"), reason)
			if problem != "" {
				view, err := h.postmortemPreview(c, inc)
				if err != nil {
					return err
				}
				view.Reason, view.ReasonError = form.Get("reason"), problem
				return render(c, http.StatusUnprocessableEntity, templates.PostmortemPreviewPage(view))
			}
			override = &models.PublishOverride{Reason: reason}
			for _, f := range findings {
				override.Findings = append(override.Findings, f.Message)
			}
		}
	}
	_, err = h.Store.PublishOverFindings(c.Request().Context(), inc.ID, formVersion(form), state, override)
	switch {
	case err == nil:
		return seeOther(c, incidentURL(inc.ID)+"/postmortem")
	case errors.Is(err, models.ErrInvalidState):
		return echo.NewHTTPError(http.StatusUnprocessableEntity, "Choose a postmortem state: none, draft, in review or published.")
	case errors.Is(err, models.ErrConflict):
		// Show the preview as it is now, so the person reviews what they would publish.
		current, err := h.Store.GetIncident(c.Request().Context(), inc.ID)
		if err != nil {
			return storeError(err, "incident")
		}
		view, err := h.postmortemPreview(c, current)
		if err != nil {
			return err
		}
		view.Error = "The incident changed since you opened this page, so nothing was changed. Review the text below as it is now, then try again."
		return render(c, http.StatusConflict, templates.PostmortemPreviewPage(view))
	}
	return storeError(err, "incident")
}
