package handlers

import (
	"github.com/labstack/echo/v4"
)

// IncidentDelete moves an incident to the Trash, off every list and page, and says so.
func (h *Handlers) IncidentDelete(c echo.Context) error {
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
	return seeOther(c, incidentURL(id)+"/deleted")
}
