package web_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"hindsight/models"
)

// signInForm is the sign-in settings form as the page fills it for the test's provider.
func signInForm(site *oidcSite) url.Values {
	return url.Values{
		"issuer": {site.idp.URL}, "client_id": {idpClientID}, "client_secret": {""}, "oidc_name": {"Example ID"},
		"admin_groups": {idpAdminGroup}, "responder_groups": {idpResponderGroup}, "viewer_groups": {""},
		"default_role": {models.RoleViewer}, "password_signin": {models.PasswordSignInBreakGlass}, "break_glass": {breakGlassEmail},
	}
}

// TestSignInSettings: an admin sees the provider's settings on the settings page, seeded from
// the flags, with the client secret never shown; saves new ones, which win over the flags at the
// next sign-in (name, default role, password sign-in); a secret typed replaces the one in force,
// an empty one keeps it; only admins may, and the history records the change but not the secret.
func TestSignInSettings(t *testing.T) {
	site := newOIDCSite(t, "")
	ctx := context.Background()
	if _, err := site.store.CreateUser(ctx, models.UserInput{Email: "pat@example.com", Role: models.RoleResponder, Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	admin := site.person()
	admin.passwordSignIn(breakGlassEmail)
	page := admin.get("/admin/settings")
	wantPage(t, "settings page", page, http.StatusOK, "/admin/settings",
		`id="issuer" type="url" name="issuer" value="`+site.idp.URL+`"`, `value="`+idpClientID+`"`,
		"A secret is set; it is never shown. Leave empty to keep it.", "Once saved here, these settings win over the flags",
		site.URL+"/login/oidc/callback", `value="break-glass" checked`)
	if strings.Contains(page.body, idpClientSecret) {
		t.Fatal("the settings page shows the client secret")
	}

	// Flags in force: pat may not use a password.
	wantPage(t, "pat by password, flags", site.person().passwordSignIn("pat@example.com"), http.StatusForbidden, "/login", "Password sign-in is turned off")

	form := signInForm(site)
	form.Set("oidc_name", "Company SSO")
	form.Set("default_role", models.RoleResponder)
	form.Set("password_signin", models.PasswordSignInAll)
	got := admin.post("/admin/settings/sign-in", form)
	wantPage(t, "save", got, http.StatusOK, "/admin/settings", "Sign-in settings saved")
	if strings.Contains(got.body, "Once saved here") {
		t.Errorf("after saving, the page still says the flags are shown")
	}
	login := site.person().get("/login")
	wantPage(t, "the button's new name", login, http.StatusOK, "/login", "Sign in with Company SSO")
	// The secret kept from the flags still works, and vic, in no group, gets the default role.
	wantPage(t, "vic signs in", site.person().signIn("vic-sub"), http.StatusOK, "/incidents")
	if u := mustUser(t, site.store, "vic@example.com"); u.Role != models.RoleResponder {
		t.Errorf("vic's role %s, want the default role responder", u.Role)
	}
	wantPage(t, "pat by password, all", site.person().passwordSignIn("pat@example.com"), http.StatusOK, "/incidents")

	// A wrong secret typed replaces the one in force: the provider then refuses the code.
	form.Set("client_secret", "not-the-secret")
	wantPage(t, "save a wrong secret", admin.post("/admin/settings/sign-in", form), http.StatusOK, "/admin/settings", "A secret is set; it is never shown")
	wantPage(t, "vic with the wrong secret", site.person().signIn("vic-sub"), http.StatusUnauthorized, "", "did not accept this sign-in")
	form.Set("client_secret", idpClientSecret)
	page = admin.post("/admin/settings/sign-in", form)
	if strings.Contains(page.body, idpClientSecret) || strings.Contains(page.body, "not-the-secret") {
		t.Error("the settings page shows a secret after saving it")
	}
	wantPage(t, "vic with the right secret", site.person().signIn("vic-sub"), http.StatusOK, "/incidents")

	history, err := site.store.SettingsHistory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(history) != 3 || !strings.Contains(history[2].Changes, `"Company SSO"`) || !strings.Contains(history[1].Changes, `"(replaced)"`) {
		t.Errorf("settings history: %+v", history)
	}
	for _, e := range history {
		if strings.Contains(e.Changes, idpClientSecret) || strings.Contains(e.Changes, "not-the-secret") {
			t.Errorf("the history keeps a secret: %s", e.Changes)
		}
	}

	// An admin with neither a break-glass password nor an identity at the provider may not turn
	// password sign-in off for themselves.
	if _, err := site.store.CreateUser(ctx, models.UserInput{Email: "ops@example.com", Role: models.RoleAdmin, Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	ops := site.person()
	wantPage(t, "ops by password", ops.passwordSignIn("ops@example.com"), http.StatusOK, "/incidents")
	ops.get("/admin/settings")
	wantPage(t, "ops locks themselves out", ops.post("/admin/settings/sign-in", signInForm(site)), http.StatusUnprocessableEntity, "",
		"This would lock you out: you have not signed in at this provider yet and ops@example.com is not a break-glass account")
	lockedOut := signInForm(site)
	lockedOut.Set("break_glass", "root@example.com, OPS@example.com")
	wantPage(t, "ops keeps a password", ops.post("/admin/settings/sign-in", lockedOut), http.StatusOK, "/admin/settings", "Sign-in settings saved")
	wantPage(t, "pat by password, break-glass", site.person().passwordSignIn("pat@example.com"), http.StatusForbidden, "/login", "Password sign-in is turned off")

	// Only admins.
	vic := site.person()
	vic.signIn("vic-sub")
	if got := vic.get("/admin/settings"); got.status != http.StatusForbidden {
		t.Errorf("a responder opens the settings: %d", got.status)
	}
	if got := vic.post("/admin/settings/sign-in", signInForm(site)); got.status != http.StatusForbidden {
		t.Errorf("a responder saves the sign-in settings: %d", got.status)
	}
	forged := site.person()
	forged.passwordSignIn(breakGlassEmail)
	forged.csrf = "forged"
	if got := forged.post("/admin/settings/sign-in", signInForm(site)); got.status != http.StatusForbidden {
		t.Errorf("saving without the CSRF token: %d", got.status)
	}
}

// TestSignInSettingsRefused: bad input is refused beside its field with what was typed kept
// (the secret aside): an issuer that is not a provider, one that does not answer, an address
// that is not one, a missing client id, an unknown role, a bad email, turning passwords off
// without a provider. Nothing is saved.
func TestSignInSettingsRefused(t *testing.T) {
	site := newOIDCSite(t, "")
	admin := site.person()
	admin.passwordSignIn(breakGlassEmail)
	admin.get("/admin/settings")

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + closed.Addr().String()
	closed.Close()
	notProvider := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notProvider.Close)
	release := make(chan struct{})
	hangs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	t.Cleanup(func() { close(release); hangs.Close() })

	cases := []struct {
		name, field, value, want string
	}{
		{"nobody listens", "issuer", down, "not an OpenID provider"},
		{"not a provider", "issuer", notProvider.URL + "/realms/x", "not an OpenID provider"},
		{"a provider that hangs", "issuer", hangs.URL, "did not answer within 5s"},
		{"not an address", "issuer", "javascript:alert(1)", "Must be the provider's https address"},
		{"with a query", "issuer", site.idp.URL + "?a=1", "An issuer has no user, query or fragment"},
		{"no client id", "client_id", "", "Give the client id"},
		{"an unknown role", "default_role", "owner", "Choose viewer, responder or admin"},
		{"a bad email", "break_glass", "root@example.com, not an email", `"not an email" is not an email address`},
	}
	for _, c := range cases {
		form := signInForm(site)
		form.Set("oidc_name", "Typed name")
		form.Set("client_secret", "typed-secret")
		form.Set(c.field, c.value)
		got := admin.post("/admin/settings/sign-in", form)
		wantPage(t, c.name, got, http.StatusUnprocessableEntity, "/admin/settings/sign-in", c.want, "The sign-in settings were not saved", `value="Typed name"`, "A secret typed before was not kept")
		if c.field != "default_role" && !strings.Contains(got.body, `id="`+c.field+`-error"`) {
			t.Errorf("%s: no message beside %s", c.name, c.field)
		}
		if strings.Contains(got.body, "typed-secret") {
			t.Errorf("%s: the page shows the typed secret", c.name)
		}
	}
	form := signInForm(site)
	form.Set("issuer", "")
	wantPage(t, "passwords off without a provider", admin.post("/admin/settings/sign-in", form), http.StatusUnprocessableEntity, "", "needs an identity provider")
	if _, saved, err := site.store.SignInSettings(context.Background()); err != nil || saved {
		t.Errorf("something was saved: %v, %v", saved, err)
	}
	// The flags are still in force.
	wantPage(t, "sign-in still works", site.person().signIn("alice-sub"), http.StatusOK, "/incidents")
}
