package web_test

import (
	"encoding/xml"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestStatusImpactComesFromWindows proves the status page's impact is the worst level of the
// incident's impact windows (none, minor, major, critical for no window, degraded, partial and
// major outage), never its internal severity: on /status, the incident page, the history, the
// Atom feed and the Statuspage v2 JSON.
func TestStatusImpactComesFromWindows(t *testing.T) {
	admin := newApp(t)
	open := func(title, severity string) string {
		return admin.createIncident(with(seed000Form(), "title", title, "severity", severity, "public", "true",
			"status", "investigating", "mitigated_at", "", "resolved_at", ""))
	}
	window := func(path, level string) {
		r := admin.post(path+"/windows", url.Values{"started_at": {"2026-03-11T08:00"}, "time_zone": {"UTC"}, "level": {level}})
		if r.status != http.StatusSeeOther {
			t.Fatalf("window %s: %d %.400s", level, r.status, r.body)
		}
	}
	degradedSev1 := open("A sev1 that only degraded", "sev1")
	window(degradedSev1, "degraded")
	outageSev4 := open("A sev4 that was a major outage", "sev4")
	window(outageSev4, "degraded")
	window(outageSev4, "major_outage")
	open("A sev2 with no window", "sev2")
	resolved := admin.createIncident(with(seed000Form(), "title", "A resolved sev1 partial outage", "severity", "sev1", "public", "true"))
	window(resolved, "partial_outage")

	public := admin.anonymous()
	home := public.get("/status")
	check(t, "status home", home, http.StatusOK, []string{"Minor impact", "Critical impact", "Major impact"}, nil)
	card := func(title string) string {
		at := strings.Index(home.body, title)
		if at < 0 {
			t.Fatalf("status home lacks %q", title)
		}
		end := strings.Index(home.body[at:], "</article>")
		if end < 0 {
			end = len(home.body) - at
		}
		return home.body[at : at+end]
	}
	for title, want := range map[string]string{"A sev1 that only degraded": "Minor impact", "A sev4 that was a major outage": "Critical impact"} {
		if c := card(title); !strings.Contains(c, want) {
			t.Errorf("card %q lacks %q: %s", title, want, c)
		}
	}
	if c := card("A sev2 with no window"); strings.Contains(c, "impact</span>") {
		t.Errorf("an incident without a window shows an impact: %s", c)
	}
	check(t, "overall", home, http.StatusOK, []string{"Major Service Outage"}, nil)

	check(t, "degraded sev1 page", public.get("/status"+degradedSev1), http.StatusOK, []string{"Minor impact"}, []string{"Critical impact", "Major impact"})
	check(t, "major outage sev4 page", public.get("/status"+outageSev4), http.StatusOK, []string{"Critical impact"}, []string{"Minor impact"})
	check(t, "history", public.get("/status/history"), http.StatusOK, []string{"A resolved sev1 partial outage", "Major impact", "Minor impact", "Critical impact"}, nil)

	var feed struct {
		Entries []struct {
			Title string `xml:"title"`
		} `xml:"entry"`
	}
	if err := xml.Unmarshal([]byte(public.get("/status/feed.atom").body), &feed); err != nil {
		t.Fatal(err)
	}
	titles := map[string]bool{}
	for _, e := range feed.Entries {
		titles[e.Title] = true
	}
	for _, want := range []string{
		"A sev1 that only degraded (Investigating, minor impact)",
		"A sev4 that was a major outage (Investigating, critical impact)",
		"A sev2 with no window (Investigating)",
		"A resolved sev1 partial outage (Resolved, major impact)",
	} {
		if !titles[want] {
			t.Errorf("feed lacks the entry %q: %v", want, titles)
		}
	}

	var doc struct {
		Incidents []struct{ Name, Impact string } `json:"incidents"`
		Status    struct{ Indicator string }      `json:"status"`
	}
	wantImpact := map[string]string{
		"A sev1 that only degraded": "minor", "A sev4 that was a major outage": "critical",
		"A sev2 with no window": "none", "A resolved sev1 partial outage": "major",
	}
	for _, path := range []string{"/status/api/v2/incidents.json", "/status/api/v2/incidents/unresolved.json", "/status/api/v2/summary.json"} {
		r := public.get(path)
		doc.Incidents = nil
		r.decode(t, &doc)
		if len(doc.Incidents) == 0 {
			t.Errorf("%s: no incidents: %.300s", path, r.body)
		}
		for _, inc := range doc.Incidents {
			if inc.Impact != wantImpact[inc.Name] {
				t.Errorf("%s: %q impact %q, want %q", path, inc.Name, inc.Impact, wantImpact[inc.Name])
			}
		}
	}
	if doc.Status.Indicator != "critical" {
		t.Errorf("summary indicator %q, want critical", doc.Status.Indicator)
	}
}
