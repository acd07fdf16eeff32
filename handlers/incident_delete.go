package handlers

import (
	"github.com/labstack/echo/v4"
)

// IncidentDelete removes an incident from every list and page.
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
	return seeOther(c, "/incidents")
}
