package web_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"hindsight/models"
	"hindsight/models/storetest"
	"hindsight/web"
)

// TestBrowserFilesSeed000ByPasting files seed 000 completely in Chromium by pasting its text and
// confirming, and counts what it took: page loads (HTML documents the server sent, htmx swaps
// apart), keystrokes and clicks. Then it adds a timeline entry in place through htmx.
func TestBrowserFilesSeed000ByPasting(t *testing.T) {
	store := storetest.SQLite(t)
	if _, err := store.CreateUser(t.Context(), models.UserInput{Email: "responder@example.com", Role: models.RoleResponder, Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	var loads, swaps atomic.Int64
	app := web.New(web.Deps{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &typeRecorder{ResponseWriter: w}
		app.ServeHTTP(rec, r)
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") && !strings.HasPrefix(r.URL.Path, "/static/") {
			if r.Header.Get("HX-Request") == "true" {
				swaps.Add(1)
			} else {
				loads.Add(1)
			}
		}
	}))
	t.Cleanup(srv.Close)
	ctx := browser(t)
	signIn(t, ctx, srv)
	loads.Store(0)
	seed := seedText(t, "000")
	keys, clicks := 0, 0

	steps(t, ctx, "open the form, paste, read",
		chromedp.Navigate(srv.URL+"/incidents/new"),
		chromedp.WaitVisible(chromedp.ID("paste")),
		chromedp.Click(chromedp.ID("paste")),
		chromedp.SetValue(chromedp.ID("paste"), seed), // one Ctrl+V
		chromedp.Click(chromedp.CSS(`form.paste-form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.ID("pasted-follow-ups")),
	)
	clicks += 2
	keys++
	pasteScreenshots(t, ctx)
	steps(t, ctx, "confirm", chromedp.Click(chromedp.ID("save-incident")), chromedp.WaitVisible(chromedp.ID("figure-time_to_detect")))
	clicks++

	list, _, err := store.ListIncidents(t.Context(), models.IncidentFilter{})
	if err != nil || len(list) != 1 {
		t.Fatalf("incidents after confirming: %d, %v", len(list), err)
	}
	inc, err := store.GetIncident(t.Context(), list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(inc.Timeline) != 7 || len(inc.ImpactWindows) != 2 || len(inc.FollowUps) != 5 {
		t.Errorf("filed %d timeline entries, %d windows, %d follow-ups; want 7, 2, 5", len(inc.Timeline), len(inc.ImpactWindows), len(inc.FollowUps))
	}
	wantUpdates := []string{"16:39 investigating", "17:33 investigating", "17:55 investigating", "18:11 monitoring", "18:18 monitoring", "18:28 resolved"}
	for n, w := range wantUpdates {
		if n < len(inc.Timeline) {
			got := inc.Timeline[n].At.UTC().Format("15:04") + " " + inc.Timeline[n].Status
			if got != w || inc.Timeline[n].At.UTC().Day() != 12 {
				t.Errorf("update %d = %s on the %d, want %s on the 12th", n, got, inc.Timeline[n].At.UTC().Day(), w)
			}
		}
	}
	for name, want := range map[string]string{"started_at": "2026-03-09 16:00", "detected_at": "2026-03-12 16:54", "mitigated_at": "2026-03-12 17:45", "resolved_at": "2026-03-12 18:28"} {
		var got string
		for n, t2 := range inc.Milestones().List() {
			if models.MilestoneNames[n] == name && t2 != nil {
				got = t2.UTC().Format("2006-01-02 15:04")
			}
		}
		if got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if inc.RootCause == "" || inc.CustomerImpact == "" || inc.Detection == "" || inc.Response == "" || inc.DetectionMethod != "customer_report" {
		t.Errorf("sections or detection method missing: %+v", inc.DetectionMethod)
	}
	if got := text(t, ctx, "#figure-time_to_detect .value"); got != "72 h 54 min" {
		t.Errorf("time to detect = %q", got)
	}
	filedLoads := loads.Load()
	t.Logf("seed 000 filed by pasting: %d page loads, %d keystrokes, %d clicks", filedLoads, keys, clicks)
	if filedLoads > 4 || keys+clicks > 60 {
		t.Errorf("took %d loads and %d keystrokes and clicks, goal at most 4 and 60", filedLoads, keys+clicks)
	}
	screenshot(t, ctx, "incident-page-pasted")

	// In place: a timeline entry typed as a time of day alone, saved through htmx.
	steps(t, ctx, "add an entry in place",
		chromedp.Click(chromedp.CSS("#timeline details.add summary")),
		chromedp.SendKeys(chromedp.ID("ev-new-at"), "Mar 12, 2026 4:54 PM"),
	)
	if got := text(t, ctx, "#ev-new-at-understood"); got != "Read as 12 Mar 2026 16:54 UTC" {
		t.Errorf("understood line = %q", got)
	}
	steps(t, ctx, "save it",
		chromedp.SendKeys(chromedp.ID("ev-new-body"), "A customer reported slowness."),
		chromedp.Click(chromedp.CSS("#timeline details.add button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#timeline ol.timeline li:nth-child(8)")),
		// The row is there at the swap; the focus moves at htmx's settle, which then takes the
		// section's data-added marker away (static/forms.js).
		chromedp.WaitNotPresent(chromedp.CSS("section[data-added]")),
	)
	if loads.Load() != filedLoads {
		t.Errorf("adding in place loaded a page")
	}
	if swaps.Load() == 0 {
		t.Errorf("no htmx swap was served")
	}
	focused := evaluate[string](t, ctx, `document.activeElement ? document.activeElement.id : ""`)
	value := evaluate[string](t, ctx, `document.getElementById("ev-new-at").value`)
	open := evaluate[bool](t, ctx, `document.querySelector("#timeline details.add").open`)
	if focused != "ev-new-at" || value != "" || !open {
		t.Errorf("after saving in place: focus on %q, field %q, form open %v; want the empty, open form focused", focused, value, open)
	}
	inc, _ = store.GetIncident(t.Context(), inc.ID)
	if len(inc.Timeline) != 8 {
		t.Errorf("timeline has %d entries after adding one", len(inc.Timeline))
	}
}

// typeRecorder lets the counting wrapper read the Content-Type the router set.
type typeRecorder struct{ http.ResponseWriter }

func (r *typeRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
