package handlers

import (
	"github.com/labstack/echo/v4"
)

// EventDelete removes a timeline entry.
func (h *Handlers) EventDelete(c echo.Context) error {
	return childDeleted(c, func(incidentID, id int64) error {
		return h.Store.DeleteEvent(c.Request().Context(), incidentID, id)
	}, "timeline", "timeline entry")
}
