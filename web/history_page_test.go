package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestHistoryReadsLikeTheForms proves the history names fields as the forms do, writes times in
// the incident's zone, tells a creation in one line and shows long texts as a collapsed diff.
func TestHistoryReadsLikeTheForms(t *testing.T) {
	a := newApp(t)
	form := with(seed000Form(), "time_zone", "America/Toronto", "root_cause", "Caches came up cold.\nNo headroom.\nRetries piled on.")
	path := a.createIncident(form)
	for _, body := range []string{"Investigating reports of slow requests", "Found the cold caches", "Capacity added"} {
		if r := a.post(path+"/events", url.Values{"at": {"2026-03-12T12:39"}, "time_zone": {"America/Toronto"}, "kind": {"status_update"}, "status": {"investigating"}, "body": {body}}); r.status != http.StatusSeeOther {
			t.Fatalf("add entry: %d %.300s", r.status, r.body)
		}
	}
	edited := with(form, "version", "1", "title", "Canada: degraded performance", "started_at", "2026-03-09T15:00",
		"root_cause", "Caches came up cold.\nThe cluster had no headroom.\nRetries piled on.")
	if r := a.post(path+"/edit", edited); r.status != http.StatusSeeOther {
		t.Fatalf("edit: %d %.500s", r.status, r.body)
	}
	r := a.get(path + "/history")
	check(t, "history", r, http.StatusOK, []string{
		// one line for the creation and the entries filed with it, no empty fields
		"created the incident (SEV2, Resolved) with 4 milestones, 2 services, 1 region, 2 written sections and 3 timeline entries",
		// labels, not column names
		"<dt>Title</dt>", "<dt>Impact started</dt>", "<dt>Root cause</dt>",
		// times in the incident's zone (16:00 in Toronto is 20:00 UTC), in the app's format
		"2026-03-09 16:00 EDT", "2026-03-09 15:00 EDT",
		// the long text as a collapsed diff of its changed lines
		"<details><summary>1 line removed, 1 added</summary>",
		`<span class="sr-only">removed: </span>No headroom.</span>`,
		`<span class="sr-only">added: </span>The cluster had no headroom.</span>`,
	}, []string{"root_cause", "started_at", "2026-03-09T20:00:00Z", "(empty)", "<dt>Lessons</dt>", "created timeline entry"})
	if n := strings.Count(r.body, "<li>"); n != 2 {
		t.Errorf("history has %d items, want 2 (the creation and the edit)", n)
	}
}

// TestHistoryIsPaged proves a long history is read a page at a time, newest first, and that a
// page past the end is an empty page rather than an error.
func TestHistoryIsPaged(t *testing.T) {
	a := newApp(t)
	path := a.createIncident(seed000Form())
	a.post(path+"/events", url.Values{"at": {"2026-03-12T16:39"}, "time_zone": {"UTC"}, "kind": {"note"}, "body": {"edit 0"}})
	// 1 creation of the incident, 1 of the entry, 198 edits: 200 entries.
	for n := 1; n <= 198; n++ {
		r := a.post(path+"/events/1", url.Values{"at": {"2026-03-12T16:39"}, "time_zone": {"UTC"}, "kind": {"note"}, "body": {fmt.Sprintf("edit %d", n)}})
		if r.status != http.StatusSeeOther {
			t.Fatalf("edit %d: %d %.300s", n, r.status, r.body)
		}
	}
	first := a.get(path + "/history")
	check(t, "first page", first, http.StatusOK, []string{"edit 198", "Page 1", "<del class=\"before\">edit 98</del>", `href="/incidents/1/history?page=2" rel="next"`},
		[]string{"created the incident", `rel="prev"`, "<del class=\"before\">edit 97</del>"})
	if n := strings.Count(first.body, "<li>"); n != 100 {
		t.Errorf("first page has %d entries, want 100", n)
	}
	if strings.Index(first.body, "edit 198") > strings.Index(first.body, "edit 150") {
		t.Error("the first page is not newest first")
	}
	second := a.get(path + "/history?page=2")
	check(t, "second page", second, http.StatusOK, []string{"created the incident", "<del class=\"before\">edit 97</del>", `href="/incidents/1/history?page=1" rel="prev"`},
		[]string{`rel="next"`, "<del class=\"before\">edit 98</del>"})
	// The entry filed with the incident joins its creation: 98 edits and one creation.
	if n := strings.Count(second.body, "<li>"); n != 99 {
		t.Errorf("second page has %d items, want 99", n)
	}
	for _, page := range []string{"3", "99999999999999999999", "-4", "x"} {
		r := a.get(path + "/history?page=" + page)
		if r.status != http.StatusOK {
			t.Errorf("page %s: status %d", page, r.status)
		}
	}
	check(t, "past the end", a.get(path+"/history?page=3"), http.StatusOK, []string{"No changes on page 3"}, []string{"<li>"})
}
