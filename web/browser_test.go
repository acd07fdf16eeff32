package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"hindsight/models"
	"hindsight/models/storetest"
	"hindsight/web"
)

// RequireBrowserEnv makes a missing Chromium a failure instead of a skip; CI sets it.
const RequireBrowserEnv = "HINDSIGHT_REQUIRE_BROWSER"

// browser starts headless Chromium for one test, or skips the test when there is none.
func browser(t *testing.T) context.Context {
	t.Helper()
	var path string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		if os.Getenv(RequireBrowserEnv) != "" {
			t.Fatalf("no Chromium on PATH and %s is set; install Debian's chromium", RequireBrowserEnv)
		}
		t.Skip("browser tests skipped: no chromium, chromium-browser or google-chrome on PATH (apt-get install chromium)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.WindowSize(1280, 900),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// liveServer serves the real router on a temporary SQLite database over real HTTP, with one
// responder account.
func liveServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv, _ := liveServerStore(t)
	return srv
}

// liveServerStore is liveServer with its store, for tests that file records directly.
func liveServerStore(t *testing.T) (*httptest.Server, *models.Store) {
	t.Helper()
	store := storetest.SQLite(t)
	if _, err := store.CreateUser(context.Background(), models.UserInput{Email: "responder@example.com", Role: models.RoleResponder, Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(web.New(web.Deps{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)
	return srv, store
}

// signedIn matches only a page served to a signed-in session (templates.Layout marks its body),
// so waiting for it waits for the sign-in to land: the sign-in page has an h1 too.
const signedIn = "body[data-signed-in]"

// signIn signs the browser in as the live server's responder.
func signIn(t *testing.T, ctx context.Context, srv *httptest.Server) {
	t.Helper()
	steps(t, ctx, "sign in",
		chromedp.Navigate(srv.URL+"/incidents"),
		chromedp.WaitVisible(chromedp.ID("email")),
		chromedp.SendKeys(chromedp.ID("email"), "responder@example.com"),
		chromedp.SendKeys(chromedp.ID("password"), testPassword),
		chromedp.Click(chromedp.CSS(`form button[type=submit]`)),
		chromedp.WaitReady(chromedp.CSS(signedIn)),
	)
	if got := text(t, ctx, "h1"); got != "Incidents" {
		t.Fatalf("after sign-in the page says %q", got)
	}
}

// text reads the visible text of the first element the selector matches, once the page has one
// and has finished parsing. It reads through the page's own DOM rather than DevTools node ids,
// which go stale while a page that a form submit replaced is still arriving ("No node with given
// id found"); a read that the navigation itself interrupts is tried again on the new page.
func text(t *testing.T, ctx context.Context, selector string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	script := fmt.Sprintf(`new Promise(resolve => { const read = () => {
		const e = document.querySelector(%q);
		if (e && document.readyState !== "loading") { resolve(e.innerText); } else { setTimeout(read, 20); }
	}; read(); })`, selector)
	for {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](script, chromedp.EvalAwaitPromise))
		if err == nil {
			return strings.TrimSpace(v)
		}
		if ctx.Err() != nil {
			t.Fatalf("read %s: %v", selector, err)
		}
	}
}

func steps(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// screenshot saves the page when HINDSIGHT_SCREENSHOTS names a folder.
func screenshot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("HINDSIGHT_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBrowserFilesAnIncidentInBST files seed 004 in a real browser, in British Summer Time, adds a
// timeline entry, an impact window and a follow-up on the incident page, and reads the figures.
func TestBrowserFilesAnIncidentInBST(t *testing.T) {
	ctx := browser(t)
	srv := liveServer(t)
	signIn(t, ctx, srv)

	steps(t, ctx, "fill the new incident form",
		chromedp.Navigate(srv.URL+"/incidents/new"),
		chromedp.WaitVisible(chromedp.ID("title")),
		chromedp.SendKeys(chromedp.ID("title"), "R&R platform outage and instability"),
		chromedp.SendKeys(chromedp.ID("summary"), "A dashboard refresh meant for one customer went to all of them."),
		chromedp.SetValue(chromedp.ID("severity"), "sev1"),
		chromedp.SetValue(chromedp.ID("status"), "resolved"),
		chromedp.SendKeys(chromedp.ID("services"), "Fast Feedback, Discover"),
		chromedp.SetValue(chromedp.ID("time_zone"), "Europe/London"),
		chromedp.SetValue(chromedp.ID("triggered_at"), "2022-04-01T09:00"),
		chromedp.SetValue(chromedp.ID("started_at"), "2022-04-05T08:00"),
		chromedp.SetValue(chromedp.ID("mitigated_at"), "2022-04-06T16:30"),
		chromedp.SetValue(chromedp.ID("resolved_at"), "2022-04-06T16:30"),
		chromedp.SendKeys(chromedp.ID("root_cause"), "Health checks took **slow but working** machines out of rotation."),
		chromedp.Click(chromedp.ID("save-incident")),
		chromedp.WaitVisible(chromedp.ID("figure-time_to_resolve")),
	)
	if got := text(t, ctx, "#figure-time_to_resolve .value"); got != "32 h 30 min" {
		t.Errorf("time to resolve = %q, want 32 h 30 min", got)
	}
	if got := text(t, ctx, "#figure-time_to_detect .value"); got != "not recorded" {
		t.Errorf("time to detect = %q, want not recorded", got)
	}
	if got := text(t, ctx, "#figure-latent .value"); got != "95 h" {
		t.Errorf("latent period = %q, want 95 h", got)
	}
	if got := text(t, ctx, ".milestones-table tr:nth-child(2) td"); !strings.HasPrefix(got, "2022-04-05 08:00 BST") {
		t.Errorf("start shown as %q, want 2022-04-05 08:00 BST", got)
	}
	if got := text(t, ctx, "#root-cause-h + .prose strong"); got != "slow but working" {
		t.Errorf("Markdown rendered %q", got)
	}

	steps(t, ctx, "add a public status update",
		chromedp.Click(chromedp.CSS("#timeline details.add summary")),
		chromedp.SetValue(chromedp.ID("ev-new-at"), "2022-04-05T09:15"),
		chromedp.SetValue(chromedp.ID("ev-new-kind"), "status_update"),
		chromedp.SetValue(chromedp.ID("ev-new-status"), "investigating"),
		chromedp.SendKeys(chromedp.ID("ev-new-body"), "We are investigating slowness across the platform."),
		chromedp.Click(chromedp.ID("ev-new-public")), // entries are internal unless ticked
		chromedp.Click(chromedp.CSS("#timeline details.add button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#timeline ol.timeline li")),
	)
	if got := text(t, ctx, "#figure-time_to_first_public_update .value"); got != "1 h 15 min" {
		t.Errorf("time to first public update = %q, want 1 h 15 min", got)
	}

	steps(t, ctx, "add an impact window",
		chromedp.Click(chromedp.CSS("#windows details.add summary")),
		chromedp.SetValue(chromedp.ID("win-new-started_at"), "2022-04-05T08:00"),
		chromedp.SetValue(chromedp.ID("win-new-ended_at"), "2022-04-05T18:00"),
		chromedp.SetValue(chromedp.ID("win-new-level"), "major_outage"),
		chromedp.SendKeys(chromedp.ID("win-new-note"), "Peak UK business hours"),
		chromedp.Click(chromedp.CSS("#windows details.add button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("table.windows")),
	)
	if got := text(t, ctx, "#figure-impact .value"); got != "10 h" {
		t.Errorf("impact time = %q, want 10 h", got)
	}

	steps(t, ctx, "add a follow-up",
		chromedp.Click(chromedp.CSS("#follow-ups details.add summary")),
		chromedp.SendKeys(chromedp.ID("fu-new-title"), "Keep slow but healthy machines in rotation"),
		chromedp.SendKeys(chromedp.ID("fu-new-owner"), "platform-team"),
		chromedp.SetValue(chromedp.ID("fu-new-kind"), "mitigate"),
		chromedp.SetValue(chromedp.ID("fu-new-priority"), "p1"),
		chromedp.SetValue(chromedp.ID("fu-new-due_on"), "2022-05-01"),
		chromedp.Click(chromedp.CSS("#follow-ups details.add button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("ul.follow-ups li")),
	)
	if got := text(t, ctx, "ul.follow-ups .fu-title"); got != "Keep slow but healthy machines in rotation" {
		t.Errorf("follow-up title = %q", got)
	}
	if got := text(t, ctx, "ul.follow-ups .fu-meta"); !strings.Contains(got, "Due 2022-05-01") || !strings.Contains(got, "overdue") {
		t.Errorf("follow-up meta = %q, want the due date flagged overdue", got)
	}
	screenshot(t, ctx, "incident-page")

	steps(t, ctx, "a bad form keeps its input",
		chromedp.Navigate(srv.URL+"/incidents/new"),
		chromedp.WaitVisible(chromedp.ID("title")),
		chromedp.SendKeys(chromedp.ID("summary"), "typed before the mistake"),
		chromedp.SetValue(chromedp.ID("started_at"), "2022-04-05T08:00"),
		chromedp.SetValue(chromedp.ID("detected_at"), "2022-04-05T07:00"),
		chromedp.Click(chromedp.ID("save-incident")),
		chromedp.WaitVisible(chromedp.ID("title-error")),
	)
	if got := text(t, ctx, "#title-error"); got != "This field is required." {
		t.Errorf("title error = %q", got)
	}
	if got := text(t, ctx, "#detected_at-warning"); !strings.Contains(got, "Detected is before impact started.") {
		t.Errorf("order warning = %q", got)
	}
	if v, err := chromedp.Run(ctx, chromedp.Value(chromedp.ID("summary"))); err != nil || v != "typed before the mistake" {
		t.Errorf("summary after a failed save = %q, %v", v, err)
	}
}
