package handlers

import "github.com/labstack/echo/v4"

// EventCreate adds a timeline entry from the form on the incident page.
func (h *Handlers) EventCreate(c echo.Context) error {
	return childSave(h, c, false, h.eventForms())
}
