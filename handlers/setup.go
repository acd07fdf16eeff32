package handlers

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// SetupForm shows the first-run page, reachable only with the token the server logged and only
// while no account exists.
func (h *Handlers) SetupForm(c echo.Context) error {
	if err := h.checkSetup(c, c.QueryParam("token")); err != nil {
		return err
	}
	return h.renderSetup(c, http.StatusOK, templates.SetupView{Token: c.QueryParam("token")})
}

// Setup creates the first admin and signs them in.
func (h *Handlers) Setup(c echo.Context) error {
	form, err := formValues(c)
	if err != nil {
		return err
	}
	token := form.Get("token")
	if err := h.checkSetup(c, token); err != nil {
		return err
	}
	in, errs := newAccountInput(form, form.Get("email"), models.RoleAdmin)
	view := templates.SetupView{Token: token, Email: in.Email, Name: in.Name, Errors: errs}
	if len(errs) > 0 {
		return h.renderSetup(c, http.StatusUnprocessableEntity, view)
	}
	user, err := h.Store.CreateFirstAdmin(c.Request().Context(), in)
	if errors.Is(err, models.ErrConflict) {
		return echo.NewHTTPError(http.StatusConflict, "Setup is already done: sign in instead.")
	}
	if err != nil {
		return err
	}
	if err := h.startSession(c, user); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/incidents")
}

func (h *Handlers) checkSetup(c echo.Context, token string) error {
	n, err := h.Store.CountUsers(c.Request().Context())
	if err != nil {
		return err
	}
	if n > 0 || h.SetupToken == "" {
		return echo.NewHTTPError(http.StatusNotFound, "Setup is done: sign in instead.")
	}
	if subtle.ConstantTimeCompare([]byte(token), []byte(h.SetupToken)) != 1 {
		return echo.NewHTTPError(http.StatusForbidden, "This setup link is not valid. Use the one the server printed when it started.")
	}
	return nil
}

func (h *Handlers) renderSetup(c echo.Context, status int, v templates.SetupView) error {
	v.Page = templates.Page{Title: "Set up Hindsight"}
	h.withCSRF(c)
	return render(c, status, templates.SetupPage(v))
}

// newAccountInput reads and checks a new account's fields, including the repeated password.
func newAccountInput(form url.Values, email, role string) (models.UserInput, models.FieldErrors) {
	in := models.UserInput{
		Email: strings.TrimSpace(email), Name: strings.TrimSpace(form.Get("name")),
		Role: role, Password: form.Get("password"),
	}
	errs := models.ValidateUser(in)
	if in.Password != form.Get("password_confirm") && errs.For("password") == "" {
		errs.Add("password_confirm", "The two passwords differ.")
	}
	return in, errs
}
