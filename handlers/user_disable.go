package handlers

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
)

// UserDisable disables an account: its sessions end and its API tokens are revoked at once, and
// it can no longer sign in by password or at the identity provider. Admins cannot disable
// themselves, so there is always one.
func (h *Handlers) UserDisable(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if id == CurrentUser(c).ID {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, "You cannot disable your own account; ask another admin.")
	}
	ctx := c.Request().Context()
	user, err := h.Store.UserByID(ctx, id)
	if err != nil {
		return storeError(err, "user")
	}
	revoked, err := h.Store.DisableUser(ctx, id)
	if err != nil {
		return storeError(err, "user")
	}
	h.Sessions.Put(ctx, "flash", "Disabled "+user.Email+": their sessions ended and "+strconv.FormatInt(revoked, 10)+" API "+plural(int(revoked), "token was", "tokens were")+" revoked.")
	return seeOther(c, "/admin/users")
}
