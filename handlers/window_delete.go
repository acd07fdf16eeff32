package handlers

import (
	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// WindowDelete removes an impact window, keeping a copy for the Undo the incident page offers.
func (h *Handlers) WindowDelete(c echo.Context) error {
	inc, id, err := h.childOf(c)
	if err != nil {
		return err
	}
	w, ok := findChild(inc.ImpactWindows, id, func(w *models.ImpactWindow) int64 { return w.ID })
	if !ok {
		return storeError(models.ErrNotFound, "impact window")
	}
	if err := h.Store.DeleteWindow(c.Request().Context(), inc.ID, id); err != nil {
		return storeError(err, "impact window")
	}
	return h.deletedWithUndo(c, undoCopy{IncidentID: inc.ID, Section: "windows", What: "impact window", Window: w},
		"Deleted the "+templates.Label(w.Level)+" window from "+templates.When(w.StartedAt, inc.Location())+".")
}
