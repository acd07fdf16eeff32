package handlers

import (
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// IncidentRestore brings an incident back from the Trash, as it was, and shows it.
func (h *Handlers) IncidentRestore(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := h.Store.RestoreIncident(c.Request().Context(), id, time.Now()); err != nil {
		return storeError(err, "incident in the Trash")
	}
	h.Similar.Queue(id) // rank it again among the others' similar incidents
	if err := h.putNotice(c, id, templates.Notice{Message: "Restored from the Trash, with its timeline, impact windows and follow-ups."}); err != nil {
		return err
	}
	return seeOther(c, incidentURL(id)+"#notice")
}
