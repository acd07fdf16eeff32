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
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"hindsight/models"
	"hindsight/models/demo"
	"hindsight/models/storetest"
	"hindsight/web"
)

// TestScreenshots photographs the main pages with the sample incidents at desktop and phone
// widths, light and dark, into the folder HINDSIGHT_SCREENSHOTS names; without it, it skips.
// It is how the pages are looked at, and how the README's picture is made.
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("HINDSIGHT_SCREENSHOTS")
	if dir == "" {
		t.Skip("set HINDSIGHT_SCREENSHOTS to a folder to take screenshots")
	}
	ctx := browser(t)
	store := storetest.SQLite(t)
	bg := context.Background()
	if _, err := store.CreateUser(bg, models.UserInput{Email: "responder@example.com", Role: models.RoleAdmin, Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	if _, err := demo.Load(bg, store); err != nil {
		t.Fatal(err)
	}
	brandStatusPage(t, store)
	srv := httptest.NewServer(web.New(web.Deps{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)
	signIn(t, ctx, srv)
	pages := map[string]string{
		"list": "/incidents", "incident": "/incidents/1", "incident-002": "/incidents/3", "new": "/incidents/new",
		"follow-ups": "/follow-ups", "recurrence": "/recurrence", "insights": "/insights", "search": "/search?q=cache",
		"history": "/incidents/1/history", "account": "/account", "status": "/status",
		"status-incident": "/status/incidents/1", "status-history": "/status/history", "settings": "/admin/settings",
	}
	if only := os.Getenv("HINDSIGHT_SCREENSHOT_PAGES"); only != "" {
		for name := range pages {
			if !strings.Contains(","+only+",", ","+name+",") {
				delete(pages, name)
			}
		}
	}
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
					chromedp.Sleep(200*time.Millisecond),
				)
				png, err := chromedp.Run(ctx, chromedp.FullScreenshot(85))
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
