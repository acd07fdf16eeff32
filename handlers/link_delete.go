package handlers

import (
	"github.com/labstack/echo/v4"
)

// LinkDelete removes a link, from whichever end it is seen.
func (h *Handlers) LinkDelete(c echo.Context) error {
	return childDeleted(c, func(incidentID, id int64) error {
		return h.Store.DeleteLink(c.Request().Context(), incidentID, id)
	}, "links", "link")
}
