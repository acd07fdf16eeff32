package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// SignInSettingsUpdate saves how people sign in, or shows the form again with what was typed
// (the secret aside, which is never shown) and the reasons beside the fields. A new issuer must
// answer as an OpenID provider; the admin saving may not lock themselves out of password and
// provider sign-in both.
func (h *Handlers) SignInSettingsUpdate(c echo.Context) error {
	form, err := formValues(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	in := models.SignInSettings{
		Issuer: form.Get("issuer"), ClientID: form.Get("client_id"), ClientSecret: form.Get("client_secret"),
		Name: form.Get("oidc_name"), AdminGroups: form.Get("admin_groups"), ResponderGroups: form.Get("responder_groups"),
		ViewerGroups: form.Get("viewer_groups"), DefaultRole: form.Get("default_role"),
		PasswordSignIn: form.Get("password_signin"), BreakGlass: form.Get("break_glass"),
	}.Normal()
	errs := models.ValidateSignInSettings(in)
	_, flagPolicy := h.SignIn.Seed()
	if in.PasswordSignIn == models.PasswordSignInBreakGlass && errs.For("break_glass") == "" && errs.For("issuer") == "" {
		me := CurrentUser(c)
		breakGlass := append(models.SplitList(in.BreakGlass), flagPolicy.BreakGlass...)
		linked, err := h.Store.HasOIDCIdentity(ctx, me.ID, in.Issuer)
		if err != nil {
			return err
		}
		switch {
		case len(breakGlass) == 0:
			errs.Add("break_glass", "Name at least one break-glass account: without one, nobody gets in while the provider is down.")
		case !linked && !breakGlassIncludes(breakGlass, me.Email):
			errs.Add("break_glass", "This would lock you out: you have not signed in at this provider yet and "+me.Email+" is not a break-glass account. Add it, or sign in at the provider first.")
		}
	}
	// The issuer is asked when it changes: an admin turning password sign-in back on while the
	// provider is down must not be refused for it.
	current, _, err := h.SignIn.Current(ctx)
	if err != nil {
		return err
	}
	if in.Issuer != "" && errs.For("issuer") == "" && (current == nil || current.cfg.Issuer != in.Issuer) {
		if problem := h.SignIn.Validate(ctx, in.Issuer); problem != "" {
			errs.Add("issuer", problem)
		}
	}
	if len(errs) == 0 {
		err = h.Store.SaveSignInSettings(ctx, in)
		if !errors.As(err, &errs) && err != nil {
			return err
		}
	}
	if len(errs) > 0 {
		status, err := h.Store.StatusSettings(ctx)
		if err != nil {
			return err
		}
		view, err := h.signInView(ctx)
		if err != nil {
			return err
		}
		in.ClientSecret = ""
		view.Values, view.Errors, view.FromFlags = in, errs, false
		return render(c, http.StatusUnprocessableEntity, templates.SettingsPage(templates.SettingsView{
			Page: templates.Page{Title: "Settings", Section: "users"}, Values: status, SignIn: view,
		}))
	}
	h.Log.Info("sign-in settings saved", "issuer", in.Issuer, "password_signin", in.PasswordSignIn, "by", CurrentUser(c).Email)
	return seeOther(c, "/admin/settings?saved=sign-in#sign-in")
}
