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
	if _, err := store.CreateWebhookEndpoint(bg, models.WebhookEndpointInput{URL: "https://hooks.example.com/services/T000/B000/hindsight", Description: "on-call channel", Events: models.WebhookEvents, Format: models.WebhookSlack}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := demo.Load(bg, store); err != nil {
		t.Fatal(err)
	}
	seedStatusExtras(t, store)
	// An incident an alert opened, so the milestone source marks show, and its integration.
	_, integ, err := store.CreateIntegration(bg, models.IntegrationInput{Kind: models.IntegrationAlertmanager, Name: "prod alertmanager"})
	if err != nil {
		t.Fatal(err)
	}
	alertStart := time.Date(2026, 11, 30, 7, 54, 0, 0, time.UTC)
	intake, err := store.ReceiveAlerts(bg, integ, alertStart.Add(3*time.Minute), []models.AlertNotice{{
		DedupKey: "{}:{alertname=\"CheckoutErrors\"}", Fingerprint: "3f2a9c1d", State: models.AlertFiring, Title: "CheckoutErrors",
		Summary: "Checkout answers 5xx above 2%", Severity: "critical", Service: "checkout", StartsAt: &alertStart,
	}})
	if err != nil || len(intake.Opened) != 1 {
		t.Fatalf("alert: %+v, %v", intake, err)
	}
	if claimed, err := store.ClaimWebhookDeliveries(bg, "shots", time.Now(), models.Lease, 2); err == nil && len(claimed) == 2 {
		_ = store.RecordWebhookAttempt(bg, &claimed[0], "shots", models.AttemptResult{StatusCode: 200, Duration: 84 * time.Millisecond, ResponseHead: "ok"}, time.Now())
		_ = store.RecordWebhookAttempt(bg, &claimed[1], "shots", models.AttemptResult{StatusCode: 503, Duration: 2100 * time.Millisecond, ResponseHead: "<html><body>Service Unavailable</body></html>"}, time.Now())
	}
	brandStatusPage(t, store)
	srv := httptest.NewServer(web.New(web.Deps{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)
	signIn(t, ctx, srv)
	pages := map[string]string{
		"integrations": "/admin/integrations", "incident-alert": "/incidents/" + itoa(intake.Opened[0]),
		"list": "/incidents", "incident": "/incidents/1", "incident-002": "/incidents/3", "new": "/incidents/new", "edit": "/incidents/1/edit",
		"follow-ups": "/follow-ups", "recurrence": "/recurrence", "insights": "/insights", "search": "/search?q=cache",
		"history": "/incidents/1/history", "account": "/account", "status": "/status",
		"components": "/admin/components", "maintenance": "/maintenance", "maintenance-1": "/maintenance/1",
		"webhooks": "/admin/webhooks", "webhook": "/admin/webhooks/1", "webhook-new": "/admin/webhooks/new",
		"subscribe": "/status/subscribe", "subscribers": "/admin/subscribers",
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
				)
				// The fonts loaded and two frames painted after them: the page as a reader sees it.
				if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](settled, chromedp.EvalAwaitPromise)); err != nil {
					t.Fatal(err)
				}
				png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100 is PNG; below it, JPEG
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

// settled resolves once the page's fonts have loaded and two frames were painted after that.
const settled = `document.fonts.ready.then(() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true)))))`
