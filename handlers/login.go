package handlers

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// Login signs a user in. Failures are counted per account and address and per address (see
// models.LoginBlockedFor), never per account alone, so failing from elsewhere cannot lock the
// owner out; past a limit the answer is 429 with Retry-After until enough failures leave the
// window.
func (h *Handlers) Login(c echo.Context) error {
	ctx := c.Request().Context()
	email := strings.TrimSpace(c.FormValue("email"))
	next := safeNext(c.FormValue("next"))
	view := templates.LoginView{Email: email, Next: next}
	ip := c.RealIP()
	wait, err := h.Store.LoginBlockedFor(ctx, email, ip)
	if err != nil {
		return err
	}
	if wait > 0 {
		view.Error = "Too many failed sign-ins. Try again in " + retryAfter(c, wait) + "."
		return h.renderLogin(c, http.StatusTooManyRequests, view)
	}
	password := c.FormValue("password")
	if len(password) > models.PasswordMax {
		// No account can have it, so nothing is guessed and nothing is counted.
		view.PasswordError = models.PasswordTooLong
		return h.renderLogin(c, http.StatusUnprocessableEntity, view)
	}
	_, policy, err := h.SignIn.Current(ctx)
	if err != nil {
		return err
	}
	if !policy.Allows(email) {
		view.Error = "Password sign-in is turned off here except for break-glass accounts. Use the identity provider's button below."
		return h.renderLogin(c, http.StatusForbidden, view)
	}
	user, err := h.Store.Authenticate(ctx, email, password)
	if errors.Is(err, models.ErrAccountDisabled) {
		view.Error = "This account is disabled. Ask an admin if you need it back."
		return h.renderLogin(c, http.StatusForbidden, view)
	}
	if errors.Is(err, models.ErrBadCredentials) {
		if err := h.Store.RecordLoginFailure(ctx, email, ip); err != nil {
			return err
		}
		view.Error = "Email or password is wrong."
		return h.renderLogin(c, http.StatusUnauthorized, view)
	}
	if err != nil {
		return err
	}
	if err := h.startSession(c, user); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, next)
}

// startSession gives the user a fresh session token (so a token planted before sign-in is
// useless) bound to their current password epoch, and a fresh CSRF token.
func (h *Handlers) startSession(c echo.Context, user *models.User) error {
	ctx := c.Request().Context()
	if err := h.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	h.Sessions.Put(ctx, SessionUserKey, user.ID)
	h.Sessions.Put(ctx, SessionEpochKey, user.SessionEpoch)
	h.Sessions.Remove(ctx, SessionCSRFKey)
	return nil
}

// retryAfter sets Retry-After to wait, in whole seconds, and says it in minutes for the page.
func retryAfter(c echo.Context, wait time.Duration) string {
	seconds := int(math.Ceil(wait.Seconds()))
	c.Response().Header().Set("Retry-After", strconv.Itoa(seconds))
	if minutes := (seconds + 59) / 60; minutes != 1 {
		return strconv.Itoa(minutes) + " minutes"
	}
	return "1 minute"
}
