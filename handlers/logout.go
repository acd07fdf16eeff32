package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// Logout ends the session on the server, not just in the browser.
func (h *Handlers) Logout(c echo.Context) error {
	if err := h.Sessions.Destroy(c.Request().Context()); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/login")
}
