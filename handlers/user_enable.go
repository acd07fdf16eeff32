package handlers

import (
	"github.com/labstack/echo/v4"
)

// UserEnable lets a disabled account sign in again. What disabling ended stays ended: its old
// sessions and API tokens do not come back.
func (h *Handlers) UserEnable(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	user, err := h.Store.UserByID(ctx, id)
	if err != nil {
		return storeError(err, "user")
	}
	if err := h.Store.EnableUser(ctx, id); err != nil {
		return storeError(err, "user")
	}
	h.Sessions.Put(ctx, "flash", "Enabled "+user.Email+": they can sign in again. Their old sessions and API tokens stay ended.")
	return seeOther(c, "/admin/users")
}
