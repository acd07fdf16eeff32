package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// PasswordChange sets a new password after checking the current one. It ends the user's other
// sessions and keeps this one.
func (h *Handlers) PasswordChange(c echo.Context) error {
	ctx := c.Request().Context()
	user := CurrentUser(c)
	form, err := formValues(c)
	if err != nil {
		return err
	}
	in, errs := newAccountInput(form, user.Email, user.Role)
	if _, err := h.Store.Authenticate(ctx, user.Email, form.Get("current_password")); errors.Is(err, models.ErrBadCredentials) {
		errs.Add("current_password", "This is not your current password.")
	} else if err != nil {
		return err
	}
	if len(errs) > 0 {
		return h.renderAccount(c, http.StatusUnprocessableEntity, templates.AccountView{PasswordErrors: errs})
	}
	epoch, err := h.Store.SetPassword(ctx, user.ID, in.Password)
	if err != nil {
		return err
	}
	user.SessionEpoch = epoch
	if err := h.startSession(c, user); err != nil {
		return err
	}
	h.Sessions.Put(ctx, "flash", "Password changed. Your other sessions have ended.")
	return seeOther(c, "/account")
}
