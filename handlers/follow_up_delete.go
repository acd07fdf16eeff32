package handlers

import (
	"github.com/labstack/echo/v4"
)

// FollowUpDelete removes a follow-up action.
func (h *Handlers) FollowUpDelete(c echo.Context) error {
	return childDeleted(c, func(incidentID, id int64) error {
		return h.Store.DeleteFollowUp(c.Request().Context(), incidentID, id)
	}, "follow-ups", "follow-up")
}
