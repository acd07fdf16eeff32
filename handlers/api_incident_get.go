package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// APIIncidentGet answers GET /api/v1/incidents/{id}.
func (h *Handlers) APIIncidentGet(c echo.Context) error {
	inc, err := h.loadIncident(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, withSources(apiIncident(inc, inc.Links), inc).wire())
}
