package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// APIIncidentDelete answers DELETE /api/v1/incidents/{id} with 204.
func (h *Handlers) APIIncidentDelete(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := h.guardDelete(c, id); err != nil {
		return err
	}
	if err := h.Store.DeleteIncident(c.Request().Context(), id); err != nil {
		return storeError(err, "incident")
	}
	return c.NoContent(http.StatusNoContent)
}
