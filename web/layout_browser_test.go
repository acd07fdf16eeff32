package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"hindsight/models"
	"hindsight/models/demo"
	"hindsight/models/storetest"
	"hindsight/web"
)

// demoServer serves the five sample incidents, seed 000 first, with one admin account the
// browser signs in as.
func demoServer(t *testing.T) (*httptest.Server, *models.Store) {
	t.Helper()
	store := storetest.SQLite(t)
	bg := context.Background()
	if _, err := store.CreateUser(bg, models.UserInput{Email: "responder@example.com", Role: models.RoleAdmin, Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	if _, err := demo.Load(bg, store); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(web.New(web.Deps{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)
	return srv, store
}

// pageWidth loads a page at a width and returns how wide its document is.
func pageWidth(t *testing.T, ctx context.Context, url string, width int64) int {
	t.Helper()
	steps(t, ctx, "open "+url, chromedp.EmulateViewport(width, 900), chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("main h1")))
	w, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestHistoryFitsAPhone opens seed 000's history after several edits, long texts and long
// unbroken values among them, at a phone's 390 px: nothing may scroll sideways.
func TestHistoryFitsAPhone(t *testing.T) {
	ctx := browser(t)
	srv, store := demoServer(t)
	bg := models.WithActor(context.Background(), models.Actor{Label: "responder@example.com"})
	inc, err := store.GetIncident(bg, 1)
	if err != nil || len(inc.Timeline) < 2 {
		t.Fatalf("seed 000: %v, %d entries", err, len(inc.Timeline))
	}
	for n, ev := range inc.Timeline[:3] {
		body := ev.Body + "\n\nAdded later: see https://status.example.com/incidents/" + strings.Repeat("x", 80) + fmt.Sprintf("\nline %d", n)
		if err := store.UpdateEvent(bg, 1, ev.ID, models.EventInput{At: ev.At, Kind: ev.Kind, Status: ev.Status, Body: body, Public: ev.Public}); err != nil {
			t.Fatal(err)
		}
		short := models.EventInput{At: ev.At.Add(-5 * 60e9), Kind: "note", Body: strings.Repeat("unbroken", 12)}
		if err := store.UpdateEvent(bg, 1, ev.ID, short); err != nil {
			t.Fatal(err)
		}
	}
	signIn(t, ctx, srv)
	if w := pageWidth(t, ctx, srv.URL+"/incidents/1/history", 390); w > 390 {
		t.Errorf("the history is %d px wide at 390 px", w)
	}
	// Open every collapsed diff: the open ones must fit too.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelectorAll("details").forEach(d => d.open = true)`)); err != nil {
		t.Fatal(err)
	}
	w, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
	if err != nil || w > 390 {
		t.Errorf("with the diffs open the history is %d px wide at 390 px (%v)", w, err)
	}
	// Nor may a part of it scroll sideways on its own, as a wide table in a scrolling box would.
	scrollers, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("main *")]
		.filter(e => !e.matches(".sr-only") && getComputedStyle(e).overflowX !== "visible" && e.scrollWidth > e.clientWidth + 1)
		.map(e => e.tagName + "." + e.className)`))
	if err != nil || len(scrollers) > 0 {
		t.Errorf("parts of the history scroll sideways at 390 px: %v (%v)", scrollers, err)
	}
	screenshot(t, ctx, "history-phone")
}
