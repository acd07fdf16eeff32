package handlers

import "github.com/labstack/echo/v4"

// WindowUpdate saves an impact window edited in place on the incident page.
func (h *Handlers) WindowUpdate(c echo.Context) error {
	return childSave(h, c, true, h.windowForms())
}
