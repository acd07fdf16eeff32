package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"hindsight/models"
	"hindsight/models/demo"
	"hindsight/models/storetest"
	"hindsight/web"
)

// TestLanguageInBrowser: on the sample incident whose root cause says "by human error" (seed
// 004), the edit form shows the wording check right under the root cause field and the postmortem
// preview lists it; with HINDSIGHT_SCREENSHOTS set, both pages and the account page's switches are
// photographed at desktop and phone widths, light and dark.
func TestLanguageInBrowser(t *testing.T) {
	ctx := browser(t)
	store := storetest.SQLite(t)
	bg := context.Background()
	if _, err := store.CreateUser(bg, models.UserInput{Email: "responder@example.com", Role: models.RoleAdmin, Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	if _, err := demo.Load(bg, store); err != nil {
		t.Fatal(err)
	}
	var id int64
	for n := int64(1); n < 50 && id == 0; n++ {
		inc, err := store.GetIncident(bg, n)
		if err == nil && strings.Contains(inc.RootCause, "human error") {
			id = n
		}
	}
	if id == 0 {
		t.Fatal("no sample incident says human error")
	}
	srv := httptest.NewServer(web.New(web.Deps{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)
	signIn(t, ctx, srv)
	base := "/incidents/" + itoa(id)

	steps(t, ctx, "edit form", chromedp.Navigate(srv.URL+base+"/edit"), chromedp.WaitVisible(chromedp.ID("root_cause-language")))
	if got := text(t, ctx, "#root_cause-language mark"); got != "human error" {
		t.Errorf("root cause note marks %q", got)
	}
	// The note sits beside its own field: the element before it holds the root cause textarea.
	follows, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("root_cause-language").previousElementSibling.querySelector("textarea").id === "root_cause"`))
	if err != nil || !follows {
		t.Errorf("the root cause note does not follow its field (err %v)", err)
	}
	steps(t, ctx, "preview", chromedp.Navigate(srv.URL+base+"/postmortem"), chromedp.WaitVisible(chromedp.ID("language")))
	if got := text(t, ctx, "#language"); !strings.Contains(got, "human error") || !strings.Contains(got, "Try instead:") {
		t.Errorf("preview wording check says %q", got)
	}

	dir := os.Getenv("HINDSIGHT_SCREENSHOTS")
	if dir == "" {
		return
	}
	pages := map[string]string{"language-edit": base + "/edit", "language-preview": base + "/postmortem", "language-account": "/account#language"}
	for name, path := range pages {
		for _, width := range []int64{1280, 390} {
			for _, scheme := range []string{"light", "dark"} {
				file := filepath.Join(dir, name+"-"+scheme+"-"+itoa(width)+".png")
				steps(t, ctx, "screenshot "+file,
					chromedp.EmulateViewport(width, 900),
					chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
						_, err := cdp.Call(ctx, target, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
							Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
						})
						return err
					}),
					chromedp.Navigate(srv.URL+path),
					chromedp.WaitVisible(chromedp.CSS("main")),
				)
				png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, png, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}
