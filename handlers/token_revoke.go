package handlers

import (
	"github.com/labstack/echo/v4"
)

// TokenRevoke ends one of the user's own API tokens.
func (h *Handlers) TokenRevoke(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := h.Store.RevokeToken(c.Request().Context(), CurrentUser(c).ID, id); err != nil {
		return storeError(err, "token")
	}
	h.Sessions.Put(c.Request().Context(), "flash", "Token revoked.")
	return seeOther(c, "/account")
}
