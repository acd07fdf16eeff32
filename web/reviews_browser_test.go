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
	"hindsight/models/storetest"
	"hindsight/web"
)

// TestReviewAndDebriefInBrowser, in real Chromium on SQLite and PostgreSQL: an admin asks
// themself and a colleague for a review, comments on the root cause, approves; schedules the
// debrief with the people named in the incident ticked, previews the notes in place (htmx) and
// keeps them; and finds the debrief on /reviews. With HINDSIGHT_SCREENSHOTS set, the three pages
// are photographed at desktop and phone widths, light and dark.
func TestReviewAndDebriefInBrowser(t *testing.T) {
	for _, db := range []struct {
		name  string
		store func(testing.TB) *models.Store
	}{{"sqlite", storetest.SQLite}, {"postgres", storetest.Postgres}} {
		t.Run(db.name, func(t *testing.T) { reviewAndDebriefInBrowser(t, db.store(t), db.name == "sqlite") })
	}
}

func reviewAndDebriefInBrowser(t *testing.T, store *models.Store, photograph bool) {
	ctx := browser(t)
	bg := context.Background()
	me, err := store.CreateUser(bg, models.UserInput{Email: "responder@example.com", Name: "Ada Admin", Role: models.RoleAdmin, Password: testPassword})
	if err != nil {
		t.Fatal(err)
	}
	priya, err := store.CreateUser(bg, models.UserInput{Email: "priya@example.com", Name: "Priya Raman", Role: models.RoleResponder, Password: testPassword})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 3, 9, 16, 0, 0, 0, time.UTC)
	timeline := []models.EventInput{
		{At: start.Add(5 * time.Minute), Kind: "alert", Body: "Latency alert for the Canada routers fired"},
		{At: start.Add(40 * time.Minute), Kind: "action", Body: "Priya Raman restarted the routers to warm the caches"},
	}
	inc, err := store.CreateIncident(bg, models.IncidentInput{
		Title: "Canada routers slow", Severity: "sev2", Status: "resolved", TimeZone: "UTC", PostmortemState: "in_review",
		RootCause: "Routing caches came up **cold** after restarts.", Milestones: models.Milestones{StartedAt: &start},
	}, models.Children{Timeline: &timeline})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(web.New(web.Deps{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)
	signIn(t, ctx, srv)
	base := "/incidents/" + itoa(inc.ID)

	steps(t, ctx, "ask for a review",
		chromedp.Navigate(srv.URL+base+"/review"),
		chromedp.WaitVisible(chromedp.ID("reviewers-h")),
		chromedp.Click(chromedp.CSS(`input[name=reviewers][value="`+itoa(me.ID)+`"]`)),
		chromedp.Click(chromedp.CSS(`input[name=reviewers][value="`+itoa(priya.ID)+`"]`)),
		chromedp.Click(chromedp.CSS(`.request-review button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`ul.reviewers`)),
	)
	if got := text(t, ctx, "#approvals"); got != "0 of 2 reviewers approve" {
		t.Errorf("approvals say %q", got)
	}
	steps(t, ctx, "comment on the root cause",
		chromedp.Click(chromedp.CSS(`#section-root_cause details.new-thread summary`)),
		chromedp.SendKeys(chromedp.ID("body-root_cause"), "Which restart? The *first* one?"),
		chromedp.Click(chromedp.CSS(`#section-root_cause details.new-thread button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`#section-root_cause article.thread em`)),
	)
	steps(t, ctx, "approve",
		chromedp.Click(chromedp.CSS(`form[action$="/review/approval"] button`)),
		chromedp.WaitReady(chromedp.CSS(`form[action$="/review/approval"] input[value=false]`)),
	)
	if got := text(t, ctx, "#approvals"); got != "1 of 2 reviewers approve" {
		t.Errorf("after approving, approvals say %q", got)
	}

	when := time.Now().UTC().Add(72*time.Hour).Format("2006-01-02") + " 15:00"
	steps(t, ctx, "the debrief form", chromedp.Navigate(srv.URL+base+"/debrief"), chromedp.WaitVisible(chromedp.ID("starts_at")))
	checked, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('input[name=participants][value="`+itoa(priya.ID)+`"]').checked`))
	if err != nil || !checked {
		t.Errorf("Priya, named in the timeline, is not suggested: %v", err)
	}
	if got := text(t, ctx, ".q-alert"); !strings.Contains(got, "What did the alert tell you?") || !strings.Contains(got, "Latency alert for the Canada routers fired") {
		t.Errorf("the alert questions say %q", got)
	}
	steps(t, ctx, "schedule",
		chromedp.SetValue(chromedp.ID("starts_at"), when),
		chromedp.SetValue(chromedp.ID("time_zone"), "UTC"),
		chromedp.SetValue(chromedp.ID("facilitator"), itoa(me.ID)),
		chromedp.Click(chromedp.CSS(`.debrief-schedule button.primary`)),
		chromedp.WaitVisible(chromedp.ID("people-h")),
	)
	if got := text(t, ctx, "#debrief-when"); !strings.Contains(got, when) {
		t.Errorf("the debrief is at %q, want %s", got, when)
	}
	steps(t, ctx, "preview the notes",
		chromedp.SetValue(chromedp.ID("notes-text"), "Caches were **cold**. <img src=x onerror=\"document.title='x'\">"),
		chromedp.Click(chromedp.CSS(`button[name=preview]`)),
		chromedp.WaitVisible(chromedp.CSS(`#notes-preview strong`)),
	)
	state, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname + "|" + document.title + "|" + document.querySelectorAll("#notes-preview img[onerror]").length`))
	if err != nil {
		t.Fatal(err)
	}
	if parts := strings.Split(state, "|"); parts[0] != base+"/debrief" || parts[1] == "x" || parts[2] != "0" {
		t.Errorf("after the preview: path|title|unsafe images = %q", state)
	}
	steps(t, ctx, "keep the notes",
		chromedp.Click(chromedp.CSS(`#notes button.primary`)),
		chromedp.WaitVisible(chromedp.CSS(`.debrief-notes strong`)),
	)
	steps(t, ctx, "/reviews", chromedp.Navigate(srv.URL+"/reviews"), chromedp.WaitVisible(chromedp.ID("debriefs-h")))
	if got := text(t, ctx, "#debriefs"); !strings.Contains(got, "Canada routers slow") || !strings.Contains(got, "facilitator") {
		t.Errorf("/reviews lists the debriefs as %q", got)
	}
	if got := text(t, ctx, "#threads"); !strings.Contains(got, "Root cause") {
		t.Errorf("/reviews lists the threads as %q", got)
	}

	dir := os.Getenv("HINDSIGHT_SCREENSHOTS")
	if dir == "" || !photograph {
		return
	}
	for name, path := range map[string]string{"review": base + "/review", "debrief": base + "/debrief", "reviews": "/reviews", "review-publish-approvals": base + "/postmortem"} {
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
