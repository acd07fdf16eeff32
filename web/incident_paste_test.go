package web_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"hindsight/models"
)

// TestIncidentPaste reads seed 000 into the new-incident form: filled, each value listed with its
// words, nothing saved; bad input keeps the text and says what is wrong beside the box.
func TestIncidentPaste(t *testing.T) {
	a := newApp(t)
	check(t, "the box on the new form", a.get("/incidents/new"), http.StatusOK, []string{
		`<label for="paste">Paste a postmortem or status-page history</label>`, `action="/incidents/new/paste"`,
		`Read it into the form`,
	}, []string{`id="suggestions"`})
	seed := seedText(t, "000")
	r := a.post("/incidents/new/paste", url.Values{"paste": {seed}, "paste_time_zone": {"UTC"}})
	check(t, "read", r, http.StatusOK, []string{
		`id="suggestions"`,
		`name="title" value="Canada - Multiple Services - Degraded Performance"`,
		`name="started_at" value="2026-03-09 16:00"`, `name="detected_at" value="2026-03-12 16:54"`,
		`name="mitigated_at" value="2026-03-12 17:45"`, `name="resolved_at" value="2026-03-12 18:28"`,
		`From <q>Impact start: ~March 9, 2026 16:00 UTC</q>`,
		`<q>This issue was detected via customer reports on March 12 at 16:54 UTC (8:54 am PST).</q>`,
		`<option value="customer_report" selected`,
		`7 timeline entries`, `2 impact windows`, `5 follow-ups`,
		`name="timeline.0.at" value="2026-03-12 16:39"`, `name="timeline.6.at" value="2026-03-16 07:06"`,
		`name="windows.0.started_at" value="2026-03-09 16:00"`, `name="windows.1.started_at" value="2026-03-11 08:00"`,
		`name="follow_ups.4.title" value="Add anomaly-detection-based alerts`,
		`Customers in the **Canada region** experienced`, // the section, in its textarea
	}, []string{`name="acknowledged_at" value="2`, `name="triggered_at" value="2`})
	if !strings.Contains(r.body, "Update timeline") {
		t.Errorf("the pasted text is not kept in its box")
	}
	if _, n, _ := a.store.ListIncidents(t.Context(), models.IncidentFilter{}); n != 0 {
		t.Errorf("reading saved %d incidents", n)
	}

	// A zone for times that name none.
	r = a.post("/incidents/new/paste", url.Values{"paste": {"Impact start: July 1, 2025 09:00"}, "paste_time_zone": {"America/New_York"}})
	check(t, "zone", r, http.StatusOK, []string{`name="started_at" value="2025-07-01 09:00"`, `<option value="America/New_York" selected`}, nil)

	check(t, "nothing stated", a.post("/incidents/new/paste", url.Values{"paste": {"We had a bad day."}}), http.StatusOK,
		[]string{`Nothing in the pasted text could be read`}, []string{`id="suggestions"`})
	check(t, "empty", a.post("/incidents/new/paste", url.Values{"paste": {"  "}}), http.StatusUnprocessableEntity,
		[]string{`id="paste-error"`, `Paste the postmortem or status-page history to read.`}, nil)
	check(t, "bad zone keeps the text", a.post("/incidents/new/paste", url.Values{"paste": {"Impact start: July 1, 2025 09:00"}, "paste_time_zone": {"Mars/Base"}}),
		http.StatusUnprocessableEntity, []string{`Not a time zone`, `Impact start: July 1, 2025 09:00</textarea>`}, nil)
	check(t, "viewer", a.as(models.RoleViewer).post("/incidents/new/paste", url.Values{"paste": {seed}}), http.StatusForbidden, nil, nil)
	check(t, "no CSRF token", a.postRaw("/incidents/new/paste", url.Values{"paste": {seed}}), http.StatusForbidden, nil, nil)
}

// TestBrowserPastesSeed000 pastes seed 000 into the box in Chromium, reads it into the form,
// and files the incident.
func TestBrowserPastesSeed000(t *testing.T) {
	seed := seedText(t, "000")
	ctx := browser(t)
	srv := liveServer(t)
	signIn(t, ctx, srv)
	steps(t, ctx, "paste and read",
		chromedp.Navigate(srv.URL+"/incidents/new"),
		chromedp.WaitVisible(chromedp.ID("paste")),
		chromedp.SetValue(chromedp.ID("paste"), seed),
		chromedp.Click(chromedp.CSS(`form.paste-form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.ID("suggestions")),
	)
	pasteScreenshots(t, ctx)
	// The read form passes axe-core as every GET page does (TestAccessibilityOfEveryPage).
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](axeScript(t))); err != nil {
		t.Fatalf("load axe-core: %v", err)
	}
	violations, err := chromedp.Run(ctx, chromedp.Evaluate[[]axeViolation](runAxe, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("run axe-core: %v", err)
	}
	for _, v := range violations {
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Errorf("read form: %s violation %s (%s) at %s", v.Impact, v.ID, v.Help, strings.Join(v.Targets, "; "))
		}
	}
	for id, want := range map[string]string{
		"title":        "Canada - Multiple Services - Degraded Performance",
		"started_at":   "2026-03-09 16:00",
		"detected_at":  "2026-03-12 16:54",
		"mitigated_at": "2026-03-12 17:45",
		"resolved_at":  "2026-03-12 18:28",
		"status":       "resolved",
	} {
		got, err := chromedp.Run(ctx, chromedp.Value(chromedp.ID(id)))
		if err != nil || got != want {
			t.Errorf("%s = %q (%v), want %q", id, got, err, want)
		}
	}
	steps(t, ctx, "save",
		chromedp.Click(chromedp.ID("save-incident")),
		chromedp.WaitVisible(chromedp.ID("figure-time_to_detect")),
	)
	if got := text(t, ctx, "h1"); got != "Canada - Multiple Services - Degraded Performance" {
		t.Errorf("saved page h1 = %q", got)
	}
	if got := text(t, ctx, "#figure-time_to_detect .value"); got != "72 h 54 min" {
		t.Errorf("time to detect = %q, want 72 h 54 min", got)
	}
}

// pasteScreenshots saves the read form as PNGs, wide and narrow, light and dark, when
// HINDSIGHT_SCREENSHOTS names a folder.
func pasteScreenshots(t *testing.T, ctx context.Context) {
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
			name := filepath.Join(dir, "paste-"+scheme+"-"+itoa(width)+".png")
			if err := os.WriteFile(name, png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	steps(t, ctx, "back to the desktop width", chromedp.EmulateViewport(1280, 900))
}

// TestPastedDayOnlyTriggerSavesAsADay pastes seed 004, whose trigger is stated only to the day
// ("On the 1st of April we deployed a change"): the form holds the date alone, says so, and saved
// as it stands the trigger is stored as known only to the day.
func TestPastedDayOnlyTriggerSavesAsADay(t *testing.T) {
	a := newApp(t)
	r := a.post("/incidents/new/paste", url.Values{"paste": {seedText(t, "004")}, "paste_time_zone": {"Europe/London"}})
	check(t, "read", r, http.StatusOK, []string{`name="triggered_at" value="2022-04-01"`, `1 Apr 2022 (the day only)`,
		`<q>On the 1st of April we deployed a change`, `name="started_at" value="2022-04-05 08:00"`}, nil)
	form := url.Values{"title": {"R&R platform performance"}, "severity": {"sev2"}, "status": {"resolved"}, "time_zone": {"Europe/London"},
		"postmortem_state": {"draft"}, "triggered_at": {"2022-04-01"}, "pasted_triggered_at": {"2022-04-01"}, "started_at": {"2022-04-05 08:00"},
		"resolved_at": {"2022-04-06 16:30"}}
	path := a.createIncident(form)
	id, _ := strconv.ParseInt(strings.TrimPrefix(path, "/incidents/"), 10, 64)
	stored, err := a.store.GetIncident(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if !stored.DayOnly("triggered_at") || stored.DayOnly("started_at") || stored.MilestoneSources["triggered_at"].Kind != "pasted" {
		t.Errorf("stored day-only %q, trigger's source %+v", stored.MilestoneDays, stored.MilestoneSources["triggered_at"])
	}
}
