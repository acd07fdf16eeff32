package handlers

import (
	"context"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// SettingsEdit shows the status page settings and the sign-in settings.
func (h *Handlers) SettingsEdit(c echo.Context) error {
	ctx := c.Request().Context()
	settings, err := h.Store.StatusSettings(ctx)
	if err != nil {
		return err
	}
	signIn, err := h.signInView(ctx)
	if err != nil {
		return err
	}
	signIn.Saved = c.QueryParam("saved") == "sign-in"
	return render(c, http.StatusOK, templates.SettingsPage(templates.SettingsView{
		Page: templates.Page{Title: "Settings", Section: "users"}, Values: settings,
		Saved: c.QueryParam("saved") == "1", SignIn: signIn,
	}))
}

// signInView is the sign-in form with what is in force: the saved settings, else the flags.
func (h *Handlers) signInView(ctx context.Context) (templates.SignInSettingsView, error) {
	saved, ok, err := h.Store.SignInSettings(ctx)
	if err != nil {
		return templates.SignInSettingsView{}, err
	}
	seed, policy := h.SignIn.Seed()
	v := templates.SignInSettingsView{Values: saved, FromFlags: !ok, FlagBreakGlass: policy.BreakGlass}
	if !ok {
		mode := models.PasswordSignInAll
		if policy.BreakGlassOnly {
			mode = models.PasswordSignInBreakGlass
		}
		v.Values = models.SignInSettings{
			Issuer: seed.Issuer, ClientID: seed.ClientID, Name: seed.Name,
			AdminGroups: strings.Join(seed.AdminGroups, ", "), ResponderGroups: strings.Join(seed.ResponderGroups, ", "),
			ViewerGroups: strings.Join(seed.ViewerGroups, ", "), DefaultRole: seed.DefaultRole, PasswordSignIn: mode,
		}
		v.SecretSet = seed.ClientSecret != ""
	} else {
		v.SecretSet = saved.ClientSecret != "" || (seed.ClientSecret != "" && saved.Issuer == seed.Issuer && saved.ClientID == seed.ClientID)
	}
	if v.Values.DefaultRole == "" {
		v.Values.DefaultRole = models.RoleViewer
	}
	v.Values.ClientSecret = "" // write-only
	base, err := h.siteBase(ctx)
	if err != nil {
		return v, err
	}
	v.CallbackURL = base + OIDCCallbackPath
	return v, nil
}
