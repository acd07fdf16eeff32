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

// signInAtDesktop signs the browser in at a desktop's width, waiting for what only a signed-in
// page has (see signIn).
func signInAtDesktop(t *testing.T, ctx context.Context, srv *httptest.Server) {
	t.Helper()
	steps(t, ctx, "desktop width", chromedp.EmulateViewport(1280, 900))
	signIn(t, ctx, srv)
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
	signInAtDesktop(t, ctx, srv)
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

// TestLayoutOnAPhoneAndADesktop measures what the layout issue named: the header's height on a
// phone, the list tables' Status, TTD and Role within a 390 px screen, the insights date inputs
// wide enough for their value, and histograms that carry their counts as text.
func TestLayoutOnAPhoneAndADesktop(t *testing.T) {
	ctx := browser(t)
	srv, _ := demoServer(t)
	signInAtDesktop(t, ctx, srv)

	pageWidth(t, ctx, srv.URL+"/incidents", 390)
	header, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.querySelector("header.top").getBoundingClientRect().height`))
	if err != nil || header > 90 || header == 0 {
		t.Errorf("the header is %.0f px high on a phone, want at most 90 (%v)", header, err)
	}

	// Every cell of these columns lies inside the 390 px screen, and is drawn.
	columns := []struct{ path, label string }{
		{"/incidents", "Status"}, {"/incidents", "TTD"}, {"/incidents", "TTR"},
		{"/follow-ups", "Status"}, {"/follow-ups", "Due"},
		{"/admin/users", "Role"},
	}
	for _, c := range columns {
		if w := pageWidth(t, ctx, srv.URL+c.path, 390); w > 390 {
			t.Errorf("%s is %d px wide at 390 px", c.path, w)
		}
		outside, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](fmt.Sprintf(`(() => {
			const heads = [...document.querySelectorAll("table.list thead th")].map(th => th.textContent.trim());
			const col = heads.indexOf(%q);
			if (col < 0) return ["no column"];
			const cells = [...document.querySelectorAll("table.list tbody tr")].map(tr => tr.children[col]);
			if (cells.length === 0) return ["no rows"];
			return cells.filter(td => { const r = td.getBoundingClientRect(); return r.width === 0 || r.left < 0 || r.right > innerWidth; })
				.map(td => td.textContent.trim() + " at " + Math.round(td.getBoundingClientRect().left) + "–" + Math.round(td.getBoundingClientRect().right));
		})()`, c.label)))
		if err != nil || len(outside) > 0 {
			t.Errorf("%s: %s cells outside the 390 px screen: %v (%v)", c.path, c.label, outside, err)
		}
	}

	// At 1280 px the incident form uses the page's width, not half of it.
	pageWidth(t, ctx, srv.URL+"/incidents/new", 1280)
	form, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.querySelector("form.incident-form").getBoundingClientRect().width`))
	if err != nil || form < 0.75*1280 {
		t.Errorf("the incident form is %.0f px wide at 1280 px, want at least 75 %% (%v)", form, err)
	}
	// On the account page each heading stands clear of the form above it, and each button sits
	// on the line of its input.
	for _, width := range []int64{1280, 390} {
		pageWidth(t, ctx, srv.URL+"/account", width)
		problems, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(() => {
			const out = [];
			document.querySelectorAll("main section + section > h2").forEach(h => {
				const above = h.parentElement.previousElementSibling.getBoundingClientRect().bottom;
				const gap = h.getBoundingClientRect().top - above;
				if (gap < 16) out.push(h.textContent + " is " + Math.round(gap) + " px under the section above");
			});
			document.querySelectorAll("main section form.row").forEach(f => {
				const input = f.querySelector("input:not([type=hidden])").getBoundingClientRect();
				const button = f.querySelector("button").getBoundingClientRect();
				if (innerWidth > 600 && Math.abs(input.bottom - button.bottom) > 2) out.push(button.height + " px button " + Math.round(button.bottom - input.bottom) + " px off its input's line");
				if (button.width > 240) out.push("a " + Math.round(button.width) + " px wide button");
			});
			if (document.querySelectorAll("main section form.row").length < 2) out.push("no token and feed forms");
			return out;
		})()`))
		if err != nil || len(problems) > 0 {
			t.Errorf("the account page at %d px: %v (%v)", width, problems, err)
		}
	}

	for _, width := range []int64{1280, 390} {
		pageWidth(t, ctx, srv.URL+"/insights?from=2022-04-05&to=2026-03-17", width)
		// A date input's own width (width: auto, nothing stretching or squeezing it) is what
		// Chromium needs to show the whole value and the picker button; the page's may not be less.
		cut, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("input[type=date]")].filter(i => {
				const probe = i.cloneNode();
				probe.removeAttribute("id");
				probe.style.cssText = "position:absolute;width:auto;min-width:0;max-width:none;flex:none";
				i.parentElement.appendChild(probe);
				const needed = probe.offsetWidth;
				probe.remove();
				return i.scrollWidth > i.clientWidth || i.offsetWidth < needed;
			}).map(i => i.id + " is " + i.offsetWidth + " px")`))
		if err != nil || len(cut) > 0 {
			t.Errorf("at %d px the date inputs cut their value: %v (%v)", width, cut, err)
		}
	}
	// Each histogram writes the count of each bar that holds incidents, and the counts add up.
	counts, err := chromedp.Run(ctx, chromedp.Evaluate[map[string][]string](`Object.fromEntries([...document.querySelectorAll(".stat[id^=stat-]")]
		.map(stat => [stat.id, [...stat.querySelectorAll("svg text.count")].map(t => t.textContent)]))`))
	if err != nil || len(counts) == 0 {
		t.Fatalf("no histograms: %v", err)
	}
	// Seed 000, 001, 002, 003 and 004 all have a time to resolve: five values.
	sum := 0
	for _, c := range counts["stat-time_to_resolve"] {
		var n int
		fmt.Sscan(c, &n)
		sum += n
	}
	if sum != 5 {
		t.Errorf("the time-to-resolve histogram's counts are %v, want them to add up to 5", counts["stat-time_to_resolve"])
	}
}
