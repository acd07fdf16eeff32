package handlers

import (
	"github.com/labstack/echo/v4"
)

// WindowDelete removes an impact window.
func (h *Handlers) WindowDelete(c echo.Context) error {
	return childDeleted(c, func(incidentID, id int64) error {
		return h.Store.DeleteWindow(c.Request().Context(), incidentID, id)
	}, "windows", "impact window")
}
