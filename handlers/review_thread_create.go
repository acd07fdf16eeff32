package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// ReviewThreadCreate opens a thread of comments on a section of the postmortem.
func (h *Handlers) ReviewThreadCreate(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	form, err := formValues(c)
	if err != nil {
		return err
	}
	section, body := form.Get("section"), form.Get("body")
	thread, err := h.Store.StartThread(c.Request().Context(), id, section, body)
	var fe models.FieldErrors
	switch {
	case err == nil:
		return seeOther(c, incidentURL(id)+"/review#thread-"+itoa(thread.ID))
	case errors.As(err, &fe):
		view, err := h.reviewPage(c)
		if err != nil {
			return err
		}
		view.ThreadSection, view.ThreadBody, view.ThreadErrors = section, body, fe
		return render(c, http.StatusUnprocessableEntity, templates.ReviewPage(view))
	}
	return storeError(err, "incident")
}
