package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"hindsight/models"
)

// TestBrowserOIDCSignIn: in real Chromium, the sign-in page's provider button goes through the
// real provider and back, signed in with the role the groups give; the admin then disables an
// account from the users page, through its confirmation.
func TestBrowserOIDCSignIn(t *testing.T) {
	ctx := browser(t)
	site := newOIDCSite(t, "")
	vic, err := site.store.SignInWithOIDC(context.Background(), models.OIDCSignIn{Issuer: site.idp.URL, Subject: "vic-sub", Email: "vic@example.com", Role: models.RoleViewer})
	if err != nil {
		t.Fatal(err)
	}
	site.idp.signInAs("alice-sub")
	steps(t, ctx, "open the sign-in page",
		chromedp.Navigate(site.URL+"/incidents"),
		chromedp.WaitVisible(chromedp.CSS("#oidc-signin a")),
	)
	if got := text(t, ctx, "#oidc-signin a"); got != "Sign in with Example ID" {
		t.Errorf("the provider button says %q", got)
	}
	screenshot(t, ctx, "oidc-login")
	steps(t, ctx, "phone width", chromedp.EmulateViewport(390, 900))
	screenshot(t, ctx, "oidc-login-phone")
	steps(t, ctx, "sign in at the provider",
		chromedp.Click(chromedp.CSS("#oidc-signin a")),
		chromedp.WaitVisible(chromedp.CSS(".who a")),
	)
	if got := text(t, ctx, "h1"); got != "Incidents" {
		t.Errorf("after signing in at the provider the page says %q", got)
	}
	if got := text(t, ctx, ".who a"); got != "alice@example.com" {
		t.Errorf("signed in as %q, want alice@example.com", got)
	}
	if u, err := site.store.UserByEmail(context.Background(), "alice@example.com"); err != nil || u.Role != models.RoleAdmin {
		t.Errorf("alice's account: %+v, %v; want an admin", u, err)
	}

	row := "tr:has(#role-" + itoa(vic.ID) + ") "
	steps(t, ctx, "open the confirmation",
		chromedp.Navigate(site.URL+"/admin/users"),
		chromedp.WaitVisible(chromedp.CSS(row+"summary")),
		chromedp.Click(chromedp.CSS(row+"summary")),
		chromedp.WaitVisible(chromedp.CSS(row+"button.danger")),
	)
	screenshot(t, ctx, "oidc-users-disable-phone")
	steps(t, ctx, "desktop width", chromedp.EmulateViewport(1280, 900))
	screenshot(t, ctx, "oidc-users-disable")
	steps(t, ctx, "disable vic",
		chromedp.Click(chromedp.CSS(row+"button.danger")),
		chromedp.WaitVisible(chromedp.CSS(".alert.success")),
	)
	if got := text(t, ctx, ".alert.success"); !strings.Contains(got, "Disabled vic@example.com") {
		t.Errorf("after disabling, the page says %q", got)
	}
	if got := text(t, ctx, row+".badge"); got != "Disabled" {
		t.Errorf("vic's row says %q, want Disabled", got)
	}
	if u, _ := site.store.UserByID(context.Background(), vic.ID); u == nil || u.DisabledAt == nil {
		t.Errorf("vic is not disabled: %+v", u)
	}
	screenshot(t, ctx, "oidc-users-enable")
	steps(t, ctx, "enable vic again",
		chromedp.Click(chromedp.CSS(row+`button[aria-label="Enable vic@example.com"]`)),
		chromedp.WaitVisible(chromedp.CSS(row+"summary")),
	)
	if got := text(t, ctx, ".alert.success"); !strings.Contains(got, "Enabled vic@example.com") {
		t.Errorf("after enabling, the page says %q", got)
	}
	if u, _ := site.store.UserByID(context.Background(), vic.ID); u == nil || u.DisabledAt != nil {
		t.Errorf("vic is still disabled: %+v", u)
	}
}
