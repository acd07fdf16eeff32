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
	view, err := h.settingsView(c)
	if err != nil {
		return err
	}
	view.Saved = c.QueryParam("saved") == "1"
	view.SignIn.Saved = c.QueryParam("saved") == "sign-in"
	return render(c, http.StatusOK, templates.SettingsPage(view))
}

// settingsView is the settings page with the stored values.
func (h *Handlers) settingsView(c echo.Context) (templates.SettingsView, error) {
	ctx := c.Request().Context()
	settings, err := h.Store.StatusSettings(ctx)
	if err != nil {
		return templates.SettingsView{}, err
	}
	logo, err := h.Store.StatusLogoUpdatedAt(ctx)
	if err != nil {
		return templates.SettingsView{}, err
	}
	signIn, err := h.signInView(ctx)
	if err != nil {
		return templates.SettingsView{}, err
	}
	statusURL := "/status" // on this host, whatever the base URL says
	if h.statusHost(settings) != "" {
		statusURL = h.statusURL(settings)
	}
	return templates.SettingsView{
		Page: templates.Page{Title: "Settings", Section: "users"}, Values: settings, SignIn: signIn,
		Logo: logoPath(templates.StatusHead{}, logo), FlagStatusHost: h.StatusHost, StatusURL: statusURL,
	}, nil
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
