package handlers

import (
	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// EventDelete removes a timeline entry, keeping a copy for the Undo the incident page offers.
func (h *Handlers) EventDelete(c echo.Context) error {
	inc, id, err := h.childOf(c)
	if err != nil {
		return err
	}
	ev, ok := findChild(inc.Timeline, id, func(e *models.TimelineEvent) int64 { return e.ID })
	if !ok {
		return storeError(models.ErrNotFound, "timeline entry")
	}
	if err := h.Store.DeleteEvent(c.Request().Context(), inc.ID, id); err != nil {
		return storeError(err, "timeline entry")
	}
	return h.deletedWithUndo(c, undoCopy{IncidentID: inc.ID, Section: "timeline", What: "timeline entry", Event: ev},
		"Deleted the timeline entry of "+templates.When(ev.At, inc.Location())+".")
}
