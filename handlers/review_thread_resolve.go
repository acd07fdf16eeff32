package handlers

import (
	"github.com/labstack/echo/v4"
)

// ReviewThreadResolve marks a thread resolved, or, with resolved=false, opens it again.
func (h *Handlers) ReviewThreadResolve(c echo.Context) error {
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
	if err := h.Store.ResolveThread(c.Request().Context(), id, thread, form.Get("resolved") != "false"); err != nil {
		return storeError(err, "thread")
	}
	return seeOther(c, incidentURL(id)+"/review#thread-"+itoa(thread))
}
