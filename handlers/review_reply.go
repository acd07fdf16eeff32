package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// ReviewReply adds a comment to a thread.
func (h *Handlers) ReviewReply(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	thread, err := pathID(c, "thread")
	if err != nil {
		return err
	}
	form, err := formValues(c)
	if err != nil {
		return err
	}
	body := form.Get("body")
	err = h.Store.Reply(c.Request().Context(), id, thread, body)
	var fe models.FieldErrors
	switch {
	case err == nil:
		return seeOther(c, incidentURL(id)+"/review#thread-"+itoa(thread))
	case errors.As(err, &fe):
		view, err := h.reviewPage(c)
		if err != nil {
			return err
		}
		view.ReplyTo, view.ReplyBody, view.ReplyError = thread, body, fe.For("body")
		return render(c, http.StatusUnprocessableEntity, templates.ReviewPage(view))
	}
	return storeError(err, "thread")
}
