package handlers

import (
	"github.com/labstack/echo/v4"

	"hindsight/models"
)

// FollowUpDelete removes a follow-up action, keeping a copy for the Undo the incident page offers.
func (h *Handlers) FollowUpDelete(c echo.Context) error {
	inc, id, err := h.childOf(c)
	if err != nil {
		return err
	}
	f, ok := findChild(inc.FollowUps, id, func(f *models.FollowUp) int64 { return f.ID })
	if !ok {
		return storeError(models.ErrNotFound, "follow-up")
	}
	if err := h.Store.DeleteFollowUp(c.Request().Context(), inc.ID, id); err != nil {
		return storeError(err, "follow-up")
	}
	return h.deletedWithUndo(c, undoCopy{IncidentID: inc.ID, Section: "follow-ups", What: "follow-up", FollowUp: f},
		"Deleted the follow-up “"+f.Title+"”.")
}
