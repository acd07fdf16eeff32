package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
)

// UserRole changes an account's role. Admins cannot demote themselves, so there is always one.
func (h *Handlers) UserRole(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	role := c.FormValue("role")
	if models.RoleRank(role) == 0 {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, "Unknown role: choose viewer, responder or admin.")
	}
	if id == CurrentUser(c).ID && role != models.RoleAdmin {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, "You cannot take away your own admin role; ask another admin.")
	}
	if err := h.Store.SetRole(c.Request().Context(), id, role); err != nil {
		return storeError(err, "user")
	}
	h.Sessions.Put(c.Request().Context(), "flash", "Role changed.")
	return seeOther(c, "/admin/users")
}
