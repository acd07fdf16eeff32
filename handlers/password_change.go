package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// PasswordChange sets a new password after checking the current one, throttled like sign-in
// (models.LoginBlockedFor). It ends the user's other
// sessions, keeping this one, and revokes their API tokens: whoever may have known the old
// password may also have made a token with it.
func (h *Handlers) PasswordChange(c echo.Context) error {
	ctx := c.Request().Context()
	user := CurrentUser(c)
	form, err := formValues(c)
	if err != nil {
		return err
	}
	in, errs := newAccountInput(form, user.Email, user.Role)
	// Wrong current passwords count as failed sign-ins of the account from this address, and
	// stop it the same way: a session left open must not let its holder guess the password.
	ip := c.RealIP()
	wait, err := h.Store.LoginBlockedFor(ctx, user.Email, ip)
	if err != nil {
		return err
	}
	if wait > 0 {
		errs.Add("current_password", "Too many wrong passwords. Try again in "+retryAfter(c, wait)+".")
		return h.renderAccount(c, http.StatusTooManyRequests, templates.AccountView{PasswordErrors: errs})
	}
	if _, err := h.Store.Authenticate(ctx, user.Email, form.Get("current_password")); errors.Is(err, models.ErrBadCredentials) {
		if err := h.Store.RecordLoginFailure(ctx, user.Email, ip); err != nil {
			return err
		}
		errs.Add("current_password", "This is not your current password.")
	} else if err != nil {
		return err
	}
	if len(errs) > 0 {
		return h.renderAccount(c, http.StatusUnprocessableEntity, templates.AccountView{PasswordErrors: errs})
	}
	set, err := h.Store.SetPassword(ctx, user.ID, in.Password, models.RevokeTokens)
	if err != nil {
		return err
	}
	user.SessionEpoch = set.Epoch
	if err := h.startSession(c, user); err != nil {
		return err
	}
	h.Sessions.Put(ctx, "flash", passwordChangedFlash(set.RevokedTokens))
	return seeOther(c, "/account")
}

func passwordChangedFlash(revoked int64) string {
	switch revoked {
	case 0:
		return "Password changed. Your other sessions have ended."
	case 1:
		return "Password changed. Your other sessions have ended and your 1 API token was revoked: create a new one below where you still need it."
	}
	return "Password changed. Your other sessions have ended and your " + itoa(revoked) + " API tokens were revoked: create new ones below where you still need them."
}
