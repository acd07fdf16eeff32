package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"hindsight/models/storetest"
)

// statements runs a request and returns how many SQL statements it took.
func (a *app) statements(path string) int64 {
	a.t.Helper()
	if r := a.get(path); r.status != http.StatusOK {
		a.t.Fatalf("%s: status %d", path, r.status)
	}
	// The request's own statements, not those of the background workers beside it.
	return a.lastStatements.Load()
}

// TestQueryCountsDoNotGrowWithRows proves the list and incident pages and the API list run a
// fixed number of statements, however many rows they show: no N+1.
func TestQueryCountsDoNotGrowWithRows(t *testing.T) {
	a := newApp(t)
	storetest.Fill(t, a.store, 3)
	fewList := a.statements("/incidents")
	fewAPI := a.statements("/api/v1/incidents?limit=500")
	storetest.Fill(t, a.store, 120)
	manyList := a.statements("/incidents")
	manyAPI := a.statements("/api/v1/incidents?limit=500")
	if fewList != manyList {
		t.Errorf("list page: %d statements for 3 rows, %d for 50", fewList, manyList)
	}
	if fewAPI != manyAPI {
		t.Errorf("API list: %d statements for 3 incidents, %d for 123", fewAPI, manyAPI)
	}
	// session, user, count, page, services and regions (a join-table query and a names query
	// each), the two filter lists, and the session's CSRF token on first use
	if manyList > 11 {
		t.Errorf("list page runs %d statements, want at most 11", manyList)
	}

	path := a.createIncident(seed000Form())
	addChildren := func(n int) {
		for i := 0; i < n; i++ {
			a.post(path+"/events", url.Values{"at": {fmt.Sprintf("2026-03-12T17:%02d", i%60)}, "time_zone": {"UTC"}, "kind": {"note"}, "body": {"x"}})
			a.post(path+"/windows", url.Values{"started_at": {"2026-03-11T08:00"}, "time_zone": {"UTC"}, "level": {"degraded"}, "services": {fmt.Sprintf("svc-%d", i)}})
			a.post(path+"/follow-ups", url.Values{"title": {"t"}, "kind": {"detect"}, "priority": {"p1"}, "status": {"open"}})
		}
	}
	// The first view after the incident's services change ranks its similar incidents again, once;
	// the views measured are renderings after it, forced by a shared change (as a rename), which
	// both pages are kept by.
	render := func() int64 {
		t.Helper()
		if err := a.store.RecordSharedChange(t.Context()); err != nil {
			t.Fatal(err)
		}
		return a.statements(path)
	}
	addChildren(1)
	a.get(path)
	fewPage := render()
	addChildren(20)
	a.get(path)
	manyPage := render()
	if fewPage != manyPage {
		t.Errorf("incident page: %d statements with 1 of each record, %d with 21", fewPage, manyPage)
	}

	// Viewed again with nothing changed, both pages are served as kept: the session with its account, and the mark.
	for _, p := range []string{"/incidents", path} {
		a.get(p)
		if n := a.statements(p); n != 2 {
			t.Errorf("%s viewed again unchanged: %d statements, want 2", p, n)
		}
	}
}
