package handlers

import "github.com/labstack/echo/v4"

// WindowCreate adds an impact window from the form on the incident page.
func (h *Handlers) WindowCreate(c echo.Context) error {
	return childSave(h, c, false, h.windowForms())
}
