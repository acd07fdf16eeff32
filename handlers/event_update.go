package handlers

import "github.com/labstack/echo/v4"

// EventUpdate saves a timeline entry edited in place on the incident page.
func (h *Handlers) EventUpdate(c echo.Context) error {
	return childSave(h, c, true, h.eventForms())
}
