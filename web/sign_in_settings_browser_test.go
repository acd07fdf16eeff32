package web_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestBrowserSignInSettings: in real Chromium an admin fills the sign-in settings form: an
// issuer nobody answers at is refused with the message beside the field and the typed values
// kept; corrected, the settings are saved and the sign-in page's button takes the new name.
func TestBrowserSignInSettings(t *testing.T) {
	ctx := browser(t)
	site := newOIDCSite(t, "")
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + closed.Addr().String()
	closed.Close()

	steps(t, ctx, "sign in as the break-glass admin",
		chromedp.Navigate(site.URL+"/login"),
		chromedp.WaitVisible(chromedp.ID("email")),
		chromedp.SendKeys(chromedp.ID("email"), breakGlassEmail),
		chromedp.SendKeys(chromedp.ID("password"), testPassword),
		chromedp.Click(chromedp.CSS(`form[action="/login"] button[type=submit]`)),
		chromedp.WaitReady(chromedp.CSS(signedIn)),
		chromedp.Navigate(site.URL+"/admin/settings"),
		chromedp.WaitVisible(chromedp.ID("issuer")),
	)
	settingsScreenshots(t, ctx, "settings-sign-in")
	if got := value(t, ctx, "#client_secret"); got != "" {
		t.Errorf("the secret field holds %q", got)
	}
	steps(t, ctx, "type an issuer nobody answers at",
		clear("issuer"),
		chromedp.SendKeys(chromedp.ID("issuer"), down),
		clear("oidc_name"),
		chromedp.SendKeys(chromedp.ID("oidc_name"), "Company SSO"),
		chromedp.Click(chromedp.CSS(`#sign-in button[type=submit]`)),
		chromedp.WaitVisible(chromedp.ID("issuer-error")),
	)
	if got := text(t, ctx, "#issuer-error"); !strings.Contains(got, "not an OpenID provider") {
		t.Errorf("beside the issuer: %q", got)
	}
	if got := value(t, ctx, "#issuer"); got != down {
		t.Errorf("the issuer field holds %q, want what was typed, %q", got, down)
	}
	if got := value(t, ctx, "#oidc_name"); got != "Company SSO" {
		t.Errorf("the name field holds %q, want what was typed", got)
	}
	settingsScreenshots(t, ctx, "settings-sign-in-error")
	steps(t, ctx, "correct it and save",
		clear("issuer"),
		chromedp.SendKeys(chromedp.ID("issuer"), site.idp.URL),
		chromedp.Click(chromedp.CSS(`#sign-in button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("#sign-in .alert.success")),
	)
	if got := text(t, ctx, "#sign-in .alert.success"); !strings.Contains(got, "Sign-in settings saved") {
		t.Errorf("after saving: %q", got)
	}
	if saved, ok, err := site.store.SignInSettings(context.Background()); err != nil || !ok || saved.Name != "Company SSO" || saved.Issuer != site.idp.URL {
		t.Errorf("saved %+v, %v, %v", saved, ok, err)
	}
	steps(t, ctx, "sign out and look at the sign-in page",
		chromedp.Click(chromedp.CSS(`form[action="/logout"] button`)),
		chromedp.WaitReady(chromedp.CSS("body:not([data-signed-in])")),
		chromedp.Navigate(site.URL+"/login"),
		chromedp.WaitVisible(chromedp.CSS("#oidc-signin a")),
	)
	if got := text(t, ctx, "#oidc-signin a"); got != "Sign in with Company SSO" {
		t.Errorf("the provider button says %q", got)
	}
}

// clear empties a form field, for SendKeys to type a new value.
func clear(id string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](`(document.getElementById(`+jsString(id)+`).value = "") === ""`)(ctx, target)
		return err
	})
}

// value reads a form field's current value.
func value(t *testing.T, ctx context.Context, selector string) string {
	t.Helper()
	text(t, ctx, selector) // waits for it
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector(`+jsString(selector)+`).value`))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func jsString(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// settingsScreenshots saves the page wide and narrow, light and dark, when HINDSIGHT_SCREENSHOTS
// names a folder.
func settingsScreenshots(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("HINDSIGHT_SCREENSHOTS")
	if dir == "" {
		return
	}
	for _, width := range []int64{1280, 390} {
		for _, scheme := range []string{"light", "dark"} {
			steps(t, ctx, "emulate",
				chromedp.EmulateViewport(width, 900),
				chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
					_, err := cdp.Call(ctx, target, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
						Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
					})
					return err
				}),
			)
			png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name+"-"+scheme+"-"+itoa(width)+".png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	steps(t, ctx, "back to the desktop width", chromedp.EmulateViewport(1280, 900))
}
