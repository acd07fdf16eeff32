package handlers

import (
	"crypto/rand"
	"encoding/base64"

	"github.com/labstack/echo/v4"

	"hindsight/models"
)

// Keys shared by the web middleware and the handlers.
const (
	UserKey         = "user"      // echo context: *models.User
	ViaTokenKey     = "via_token" // echo context: true when an API token authenticated the request
	SessionUserKey  = "user_id"
	SessionEpochKey = "epoch"
	SessionCSRFKey  = "csrf"
)

// CurrentUser returns the signed-in user, or nil.
func CurrentUser(c echo.Context) *models.User {
	u, _ := c.Get(UserKey).(*models.User)
	return u
}

// CSRFToken returns the session's CSRF token, creating it (and so the session) on first use.
func (h *Handlers) CSRFToken(c echo.Context) string {
	ctx := c.Request().Context()
	if tok := h.Sessions.GetString(ctx, SessionCSRFKey); tok != "" {
		return tok
	}
	raw := make([]byte, 32)
	_, _ = rand.Read(raw)
	tok := base64.RawURLEncoding.EncodeToString(raw)
	h.Sessions.Put(ctx, SessionCSRFKey, tok)
	return tok
}
