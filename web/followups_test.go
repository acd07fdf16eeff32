package web_test

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"hindsight/models/demo"
)

func (a *app) loadDemo() {
	a.t.Helper()
	if _, err := demo.Load(context.Background(), a.store); err != nil {
		a.t.Fatal(err)
	}
}

func TestFollowUpsAcrossIncidents(t *testing.T) {
	a := newApp(t)
	a.loadDemo()
	check(t, "all", a.get("/follow-ups"), 200, []string{"Follow-up actions", "Check cache readiness", "Remove the dashboard auto-refresh feature", "without an owner"}, nil)
	check(t, "by owner", a.get("/follow-ups?owner=Gateway+team"), 200, []string{"Check cache readiness", "Raise the minimum capacity"}, []string{"Remove the dashboard auto-refresh"})
	check(t, "active only", a.get("/follow-ups?status=open"), 200, []string{"Check cache readiness"}, []string{"Raise the minimum capacity"})
	check(t, "by factor", a.get("/follow-ups?factor=health-checks-removed-capacity"), 200, []string{"Give operators control over when health checks", "Check cache readiness"}, []string{"Raise the minimum capacity"})
	check(t, "by service", a.get("/follow-ups?service=Router"), 200, nil, []string{"Check cache readiness"})
	check(t, "overdue", a.get("/follow-ups?due=overdue"), 200, []string{"(overdue)"}, []string{"Remove the dashboard auto-refresh"})
	check(t, "no due date", a.get("/follow-ups?due=none"), 200, []string{"Raise the minimum capacity"}, []string{"Check cache readiness"})
	check(t, "mine, with none", a.get("/follow-ups?mine=1"), 200, []string{"No follow-up matches"}, nil)
	check(t, "sorted by priority", a.get("/follow-ups?sort=priority"), 200, nil, nil)

	r := a.get("/follow-ups.csv?owner=Gateway+team")
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/csv") {
		t.Fatalf("csv: %d %s", r.status, r.header.Get("Content-Type"))
	}
	rows, err := csv.NewReader(strings.NewReader(r.body)).ReadAll()
	if err != nil || len(rows) != 3 || rows[0][1] != "title" {
		t.Errorf("csv rows = %v, %v", rows, err)
	}

	// Bulk: close the two Gateway team actions.
	page := a.get("/follow-ups?owner=Gateway+team")
	ids := regexp.MustCompile(`name="id" value="(\d+)"`).FindAllStringSubmatch(page.body, -1)
	form := url.Values{"status": {"done"}, "return": {"/follow-ups?owner=Gateway+team"}}
	for _, m := range ids {
		form.Add("id", m[1])
	}
	check(t, "bulk", a.post("/follow-ups/bulk", form), http.StatusSeeOther, nil, nil)
	check(t, "after bulk", a.get("/follow-ups?owner=Gateway+team&status=open"), 200, []string{"No follow-up matches"}, nil)
	check(t, "bulk with a bad status", a.post("/follow-ups/bulk", url.Values{"status": {"finished"}, "id": {"1"}}), 422, nil, nil)
	check(t, "viewer cannot bulk", a.as("viewer").post("/follow-ups/bulk", form), http.StatusForbidden, nil, nil)

	check(t, "one follow-up", a.get("/follow-ups/1"), 200, []string{"Check cache readiness", "How we will know it worked", "History", "created follow-up #1", "Cold caches after restart"}, nil)
	check(t, "missing follow-up", a.get("/follow-ups/999"), 404, nil, nil)
	check(t, "atom", a.get("/follow-ups/feed.atom"), 200, []string{"<feed", "follow-up"}, nil)
}

func TestDueBeforeStartIsFlagged(t *testing.T) {
	a := newApp(t)
	path := a.createIncident(seed000Form())
	check(t, "allowed", a.post(path+"/follow-ups", url.Values{"title": {"Backdated"}, "kind": {"detect"}, "priority": {"p1"}, "status": {"open"}, "due_on": {"2026-03-01"}}), http.StatusSeeOther, nil, nil)
	check(t, "flagged", a.get(path), 200, []string{"due before the incident started"}, nil)
}

func TestCalendarAndFeedLinks(t *testing.T) {
	a := newApp(t)
	a.loadDemo()
	r := a.post("/account/feeds", url.Values{"owner": {"Gateway team"}})
	check(t, "create", r, http.StatusSeeOther, nil, nil)
	flash := a.get("/account")
	m := regexp.MustCompile(`/feeds/([A-Za-z0-9_-]+)/calendar\.ics`).FindStringSubmatch(flash.body)
	if m == nil {
		t.Fatalf("no feed link on the account page: %.2000s", flash.body)
	}
	anon := a.anonymous()
	ics := anon.get("/feeds/" + m[1] + "/calendar.ics")
	check(t, "calendar", ics, 200, []string{"BEGIN:VCALENDAR\r\n", "BEGIN:VEVENT", "DTSTART;VALUE=DATE:20260430", "SUMMARY:Check cache readiness"}, []string{"Raise the minimum capacity"})
	for _, line := range strings.Split(ics.body, "\r\n") {
		if len(line) > 75 {
			t.Errorf("iCalendar line longer than 75 octets: %q", line)
		}
	}
	check(t, "atom", anon.get("/feeds/"+m[1]+"/follow-ups.atom"), 200, []string{"<feed", "Gateway team"}, nil)
	check(t, "unknown", anon.get("/feeds/nope/calendar.ics"), 404, nil, nil)
	check(t, "revoke", a.post("/account/feeds/1/revoke", nil), http.StatusSeeOther, nil, nil)
	check(t, "revoked", anon.get("/feeds/"+m[1]+"/calendar.ics"), 404, []string{"revoked"}, nil)
}

func TestLinksFactorsAndSimilar(t *testing.T) {
	a := newApp(t)
	a.loadDemo()
	// Seeds are loaded in order: 1 = seed 000, 2 = seed 001, 3 = seed 002.
	check(t, "factors shown", a.get("/incidents/1"), 200, []string{"Retry amplification", "Health checks removed working capacity", `href="/recurrence#factor-retry-amplification"`}, nil)
	check(t, "similar with reason", a.get("/incidents/3"), 200, []string{"Similar earlier incidents", "shares: retry amplification", "Link as related"}, nil)
	check(t, "link", a.post("/incidents/3/links", url.Values{"kind": {"recurrence_of"}, "incident_id": {"#2"}}), http.StatusSeeOther, nil, nil)
	check(t, "shown from this end", a.get("/incidents/3"), 200, []string{"Recurrence of", "#2"}, nil)
	check(t, "shown from the other end", a.get("/incidents/2"), 200, []string{"Recurred as", "#3"}, nil)
	check(t, "to itself", a.post("/incidents/3/links", url.Values{"kind": {"related"}, "incident_id": {"3"}}), 422, []string{"cannot be linked to itself"}, nil)
	check(t, "duplicate", a.post("/incidents/3/links", url.Values{"kind": {"recurrence_of"}, "incident_id": {"2"}}), 422, []string{"already linked"}, nil)
	check(t, "missing", a.post("/incidents/3/links", url.Values{"kind": {"related"}, "incident_id": {"99"}}), 422, []string{"There is no incident #99."}, nil)
	check(t, "not a number", a.post("/incidents/3/links", url.Values{"kind": {"related"}, "incident_id": {"seed"}}), 422, []string{"Write the other incident"}, nil)
	check(t, "unknown kind", a.post("/incidents/3/links", url.Values{"kind": {"cousin_of"}, "incident_id": {"1"}}), 422, []string{"Must be one of"}, nil)
	check(t, "delete from the other end", a.post("/incidents/2/links/1/delete", nil), http.StatusSeeOther, nil, nil)
	check(t, "gone", a.get("/incidents/3"), 200, []string{"Not linked to any incident."}, nil)

	// Filing: the draft is compared before it is saved, and nothing is saved.
	draft := with(seed000Form(), "title", "Authorization retries overwhelmed hosts", "factors", "retry-amplification", "services", "Authorization Service")
	check(t, "similar while filing", a.post("/incidents/new/similar", draft), 200, []string{"Similar earlier incidents", "shares: retry amplification", `value="Authorization retries overwhelmed hosts"`}, nil)
	check(t, "tag on the form", a.post("/incidents", draft), http.StatusSeeOther, nil, nil)
	check(t, "tagged", a.get("/incidents/6"), 200, []string{"Retry amplification"}, nil)

	check(t, "recurrence page", a.get("/recurrence"), 200, []string{"Recurring causes", "Health checks removed working capacity", "came back after its fix", "recurs with no follow-up", "<svg"}, nil)
	check(t, "factors page", a.get("/factors"), 200, []string{"retry-amplification", "Add a factor"}, nil)
	check(t, "add factor", a.post("/factors", url.Values{"slug": {"dns-ttl"}, "name": {"DNS TTL too long"}}), http.StatusSeeOther, nil, nil)
	check(t, "bad slug", a.post("/factors", url.Values{"slug": {"Bad Slug"}, "name": {"x"}}), 422, []string{"lowercase letters"}, nil)
	check(t, "duplicate slug", a.post("/factors", url.Values{"slug": {"dns-ttl"}, "name": {"again"}}), 422, []string{"Another factor has this slug."}, nil)
	check(t, "responder cannot edit the taxonomy", a.as("responder").post("/factors", url.Values{"slug": {"x"}, "name": {"x"}}), http.StatusForbidden, nil, nil)
}

func TestSearchPage(t *testing.T) {
	a := newApp(t)
	a.loadDemo()
	check(t, "hits", a.get("/search?q=cache"), 200, []string{"<mark>", "Incident"}, nil)
	check(t, "follow-ups found", a.get("/search?q=readiness"), 200, []string{"Follow-up", "Check cache readiness"}, nil)
	for _, q := range []string{`"unbalanced`, `(((`, `NEAR(cache gateway)`, `cache*`, `<script>alert(1)</script>`, `%`, `AND`} {
		r := a.get("/search?q=" + url.QueryEscape(q))
		check(t, "syntax "+q, r, 200, nil, []string{"<script>alert"})
	}
}

func TestAPIFollowUpsFactorsRecurrence(t *testing.T) {
	a := newApp(t)
	a.loadDemo()
	check(t, "factors", a.json(http.MethodGet, "/api/v1/factors", nil), 200, []string{`"slug":"retry-amplification"`, `"name":"Retry amplification"`}, nil)
	check(t, "list", a.json(http.MethodGet, "/api/v1/follow-ups?owner=Gateway+team", nil), 200, []string{`"total":2`, `"factors":["capacity-headroom"]`}, nil)
	check(t, "bad filter", a.json(http.MethodGet, "/api/v1/follow-ups?due=someday", nil), 422, []string{`"field":"due"`}, nil)
	r := a.json(http.MethodPost, "/api/v1/follow-ups", `{"incident_id": 1, "title": "Canary the gateway", "kind": "prevent", "priority": "p2", "status": "open", "factors": ["change-error"]}`)
	check(t, "create", r, http.StatusCreated, []string{`"version":1`, `"factors":["change-error"]`, `"incident_id":1`}, nil)
	var created struct{ ID int64 }
	r.decode(t, &created)
	path := "/api/v1/follow-ups/" + itoa(created.ID)
	check(t, "update", a.json(http.MethodPut, path, `{"version": 1, "title": "Canary the gateway", "kind": "prevent", "priority": "p1", "status": "in_progress"}`), 200, []string{`"version":2`, `"priority":"p1"`, `"factors":[]`}, nil)
	check(t, "stale", a.json(http.MethodPut, path, `{"version": 1, "title": "x", "kind": "prevent", "priority": "p1", "status": "open"}`), http.StatusConflict, nil, nil)
	check(t, "unknown factor", a.json(http.MethodPost, "/api/v1/follow-ups", `{"incident_id": 1, "title": "x", "kind": "prevent", "priority": "p2", "status": "open", "factors": ["bad-luck"]}`), 422, []string{`"field":"factors"`, "Unknown factor: bad-luck"}, nil)
	check(t, "missing incident", a.json(http.MethodPost, "/api/v1/follow-ups", `{"incident_id": 99, "title": "x", "kind": "prevent", "priority": "p2", "status": "open"}`), 404, nil, nil)

	inc := strings.Replace(seed002JSON, `"severity": "sev2",`, `"severity": "sev2", "factors": ["retry-amplification", "timeout-mismatch"], "links": [{"kind": "recurrence_of", "incident_id": 2}],`, 1)
	check(t, "incident with factors and links", a.json(http.MethodPost, "/api/v1/incidents", inc), http.StatusCreated, []string{`"factors":["retry-amplification","timeout-mismatch"]`, `"links":[{"kind":"recurrence_of","incident_id":2}]`}, nil)
	check(t, "the other end", a.json(http.MethodGet, "/api/v1/incidents/2", nil), 200, []string{`"linked_from":[{"kind":"recurrence_of","incident_id":6}]`}, nil)
	check(t, "self link by API", a.json(http.MethodPut, "/api/v1/incidents/6", strings.Replace(inc, `"incident_id": 2`, `"incident_id": 6`, 1)), 422, []string{`"field":"links[0].incident_id"`}, nil)
	check(t, "unknown factor by API", a.json(http.MethodPost, "/api/v1/incidents", strings.Replace(inc, "timeout-mismatch", "gremlins", 1)), 422, []string{"Unknown factor: gremlins"}, nil)

	var report struct {
		Factors []struct {
			Slug      string `json:"slug"`
			Incidents []struct {
				ID int64 `json:"id"`
			} `json:"incidents"`
			Flags []string `json:"flags"`
		} `json:"factors"`
	}
	a.json(http.MethodGet, "/api/v1/recurrence", nil).decode(t, &report)
	got := map[string][]int64{}
	flags := map[string][]string{}
	for _, f := range report.Factors {
		for _, inc := range f.Incidents {
			got[f.Slug] = append(got[f.Slug], inc.ID)
		}
		flags[f.Slug] = f.Flags
	}
	if !sameIDs(got["health-checks-removed-capacity"], 1, 4, 5) || !sameIDs(got["retry-amplification"], 1, 2, 3, 6) {
		t.Errorf("recurrence = %v", got)
	}
	if !strings.Contains(strings.Join(flags["health-checks-removed-capacity"], ","), "came_back_after_fix") {
		t.Errorf("flags = %v", flags)
	}
}

func sameIDs(got []int64, want ...int64) bool {
	if len(got) != len(want) {
		return false
	}
	seen := map[int64]bool{}
	for _, g := range got {
		seen[g] = true
	}
	for _, w := range want {
		if !seen[w] {
			return false
		}
	}
	return true
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
