package web_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"hindsight/models"
)

// evaluate runs a script in the page and returns its value.
func evaluate[T any](t *testing.T, ctx context.Context, script string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](script, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %s: %v", script, err)
	}
	return v
}

// visible tells whether the element the selector matches is drawn (not display:none).
func visible(t *testing.T, ctx context.Context, selector string) bool {
	t.Helper()
	return evaluate[bool](t, ctx, fmt.Sprintf(`(() => { const e = document.querySelector(%q); return !!e && e.checkVisibility(); })()`, selector))
}

// publicIncident files a public incident with one public status update, straight in the store.
func publicIncident(t *testing.T, store *models.Store) *models.Incident {
	t.Helper()
	started := time.Date(2026, 3, 9, 16, 0, 0, 0, time.UTC)
	inc, err := store.CreateIncident(context.Background(), models.IncidentInput{
		Title: "Canada: slow and timing-out services", Severity: "sev2", Status: "investigating", TimeZone: "UTC",
		PostmortemState: "none", Public: true, Milestones: models.Milestones{StartedAt: &started},
	}, models.Children{Timeline: &[]models.EventInput{
		{At: time.Date(2026, 3, 12, 16, 39, 0, 0, time.UTC), Kind: "status_update", Status: "investigating", Body: "Looking into slow responses in Canada.", Public: true},
		{At: time.Date(2026, 3, 12, 16, 50, 0, 0, time.UTC), Kind: "action", Body: "Paged the gateway team."},
		{At: time.Date(2026, 3, 12, 17, 20, 0, 0, time.UTC), Kind: "status_update", Status: "identified", Body: "Cause identified in the new gateway.", Public: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return inc
}

// statusTexts reads the public incident page and the Atom feed the way a customer's browser does.
func statusTexts(t *testing.T, ctx context.Context, srv *httptest.Server, id int64) (page, feed string) {
	t.Helper()
	steps(t, ctx, "open the status page", chromedp.Navigate(fmt.Sprintf("%s/status/incidents/%d", srv.URL, id)), chromedp.WaitVisible(chromedp.CSS("h1")))
	page = text(t, ctx, "body")
	feed = evaluate[string](t, ctx, `fetch("/status/feed.atom").then(r => r.text())`)
	return page, feed
}

// TestBrowserNoteOnAPublicIncidentStaysInternal files a note on a public incident in Chromium:
// the box is unticked, the form says what ticking it would do, a public note is refused beside
// the box, and the note reaches neither the status page nor its feed.
func TestBrowserNoteOnAPublicIncidentStaysInternal(t *testing.T) {
	ctx := browser(t)
	srv, store := liveServerStore(t)
	inc := publicIncident(t, store)
	signIn(t, ctx, srv)
	path := fmt.Sprintf("%s/incidents/%d", srv.URL, inc.ID)

	steps(t, ctx, "open the add form",
		chromedp.Navigate(path), chromedp.WaitVisible(chromedp.ID("figure-time_to_detect")),
		chromedp.Click(chromedp.CSS("#timeline details.add summary")), chromedp.WaitVisible(chromedp.ID("ev-new-body")))
	if evaluate[bool](t, ctx, `document.getElementById("ev-new-public").checked`) {
		t.Fatal(`"Shown to customers" is ticked by default`)
	}
	if visible(t, ctx, "#ev-new-public-hint .goes-public") {
		t.Error("the form says the entry will appear on the status page while the box is unticked")
	}
	if got := text(t, ctx, "#ev-new-public-hint"); !strings.Contains(got, "Unticked, it stays internal.") {
		t.Errorf("hint next to the box = %q", got)
	}
	if got := evaluate[string](t, ctx, `document.getElementById("ev-new-status").value`); got != "identified" {
		t.Errorf("status posted defaults to %q, want identified (the latest update's)", got)
	}
	// A time typed before the 17:20 update: static/forms.js defaults to the update before it.
	typed := evaluate[string](t, ctx, `(() => { const at = document.getElementById("ev-new-at"); at.value = "2026-03-12T17:00";
		at.dispatchEvent(new Event("change", {bubbles: true})); return document.getElementById("ev-new-status").value; })()`)
	if typed != "investigating" {
		t.Errorf("at 17:00 the status posted is %q, want investigating (the 16:39 update's)", typed)
	}
	steps(t, ctx, "tick the box", chromedp.Click(chromedp.ID("ev-new-public")))
	if !visible(t, ctx, "#ev-new-public-hint .goes-public") || text(t, ctx, "#ev-new-public-hint .goes-public") != "This will appear on the status page now." {
		t.Error("ticked on a public incident, the form does not say the entry will appear on the status page now")
	}

	steps(t, ctx, "post a public note",
		chromedp.SetValue(chromedp.ID("ev-new-at"), "2026-03-12T17:10"),
		chromedp.SetValue(chromedp.ID("ev-new-kind"), "note"),
		chromedp.SendKeys(chromedp.ID("ev-new-body"), "INTERNAL: Customer ACME escalated"),
		chromedp.Click(chromedp.CSS("#timeline details.add button[type=submit]")),
		chromedp.WaitVisible(chromedp.ID("ev-new-public-error")),
	)
	if got := text(t, ctx, "#ev-new-public-error"); !strings.Contains(got, "A note is internal and never shown to customers") {
		t.Errorf("error beside the box = %q", got)
	}
	if got := evaluate[string](t, ctx, `document.getElementById("ev-new-body").value`); got != "INTERNAL: Customer ACME escalated" {
		t.Errorf("the body typed was lost: %q", got)
	}
	if !visible(t, ctx, "#ev-new-public-hint .if-note") {
		t.Error("with Note chosen the form does not say a note is always internal")
	}

	steps(t, ctx, "untick and file the note",
		chromedp.Click(chromedp.ID("ev-new-public")),
		chromedp.Click(chromedp.CSS("#timeline details.add button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#timeline li.kind-note")),
	)
	if got := text(t, ctx, "#timeline li.kind-note"); !strings.Contains(got, "ACME") || strings.Contains(got, "Public") {
		t.Errorf("the note on the incident page reads %q; want it there without a Public badge", got)
	}
	if got := text(t, ctx, "#timeline li.kind-status_update .badge.public"); got != "Public" {
		t.Errorf("the public update's badge reads %q", got)
	}

	page, feed := statusTexts(t, ctx, srv, inc.ID)
	if !strings.Contains(page, "Looking into slow responses in Canada.") || !strings.Contains(feed, "Looking into slow responses in Canada.") {
		t.Fatalf("the public update is missing, so nothing is read:\npage %.300s\nfeed %.300s", page, feed)
	}
	for what, body := range map[string]string{"status page": page, "feed": feed} {
		if strings.Contains(body, "ACME") || strings.Contains(body, "Paged the gateway team") {
			t.Errorf("the %s shows internal entries: %.600s", what, body)
		}
	}
}
