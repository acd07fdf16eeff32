package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// ReviewRequest asks accounts for a review of the incident's postmortem.
func (h *Handlers) ReviewRequest(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	form, err := formValues(c)
	if err != nil {
		return err
	}
	err = h.Store.RequestReview(c.Request().Context(), id, formIDs(form["reviewers"]))
	var fe models.FieldErrors
	switch {
	case err == nil:
		return seeOther(c, incidentURL(id)+"/review")
	case errors.As(err, &fe):
		view, err := h.reviewPage(c)
		if err != nil {
			return err
		}
		view.RequestErrors = fe
		return render(c, http.StatusUnprocessableEntity, templates.ReviewPage(view))
	}
	return storeError(err, "incident")
}
