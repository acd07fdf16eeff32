package web_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"testing"

	"hindsight/models"
	"hindsight/models/storetest"
	"hindsight/web"
)

func benchApp(b *testing.B) *app { return benchAppOn(b, storetest.SQLite(b)) }

// benchAppOn serves store, signed in as a responder.
func benchAppOn(b *testing.B, store *models.Store) *app {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	jar, _ := cookiejar.New(nil)
	a := &app{t: b, e: web.New(web.Deps{Store: store, Log: log}), store: store, jar: jar}
	return a.as(models.RoleResponder)
}

func serve(b *testing.B, a *app, path string) {
	b.Helper()
	b.ReportAllocs()
	b.ResetTimer()
	cookies := a.jar.Cookies(siteURL)
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		for _, c := range cookies {
			req.AddCookie(c)
		}
		rec := httptest.NewRecorder()
		a.e.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("%s: status %d", path, rec.Code)
		}
	}
}

// BenchmarkIncidentPage serves an incident with 50 timeline events, 5 impact windows and
// 10 follow-ups: kept (viewed again, nothing changed), rendered again from the records in memory,
// and rendered after a rename moved the names counter, so its records are read again too.
func BenchmarkIncidentPage(b *testing.B) {
	a := benchApp(b)
	r := a.post("/incidents", seed000Form())
	path := r.header.Get("Location")
	for i := 0; i < 50; i++ {
		a.post(path+"/events", url.Values{"at": {fmt.Sprintf("2026-03-12T%02d:%02d", 12+i/10, i%60)}, "time_zone": {"UTC"}, "kind": {"status_update"}, "status": {"investigating"}, "public": {"true"},
			"body": {"Our teams continue to investigate **degraded performance** in the Canada region. More updates will follow."}})
	}
	for i := 0; i < 5; i++ {
		a.post(path+"/windows", url.Values{"started_at": {fmt.Sprintf("2026-03-1%dT08:00", i)}, "ended_at": {fmt.Sprintf("2026-03-1%dT12:00", i)}, "time_zone": {"UTC"}, "level": {"degraded"}, "services": {"Orchestrator"}})
	}
	for i := 0; i < 10; i++ {
		a.post(path+"/follow-ups", url.Values{"title": {fmt.Sprintf("Follow-up %d", i)}, "kind": {"prevent"}, "priority": {"p2"}, "status": {"open"}, "owner": {"sre"}, "due_on": {"2026-04-01"}, "description": {"Add a *cache readiness* check."}})
	}
	b.Run("kept", func(b *testing.B) { serveWithCPU(b, a, nil, path) })
	b.Run("rendered", func(b *testing.B) {
		// A background refresh of the similar ranking moves the page's mark and nothing else, so
		// the page is rendered again from the records kept in memory.
		serveWithCPU(b, a, func(b *testing.B) {
			db, err := a.store.SQLDB()
			if err != nil {
				b.Fatal(err)
			}
			if _, err := db.Exec("UPDATE similar_sets SET computed_at = computed_at + 1"); err != nil {
				b.Fatal(err)
			}
		}, path)
	})
	b.Run("rendered-after-rename", func(b *testing.B) { serveWithCPU(b, a, moveIncidentsMark(a), path) })
}

// moveIncidentsMark returns a step that records a shared change, as a rename does, which every
// kept list and incident page is checked against, so the next view renders the page again.
func moveIncidentsMark(a *app) func(*testing.B) {
	return func(b *testing.B) {
		if err := a.store.RecordSharedChange(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListPage10k serves the incident list over 10,000 incidents: kept, and rendered after
// the incidents' mark moved.
func BenchmarkListPage10k(b *testing.B) {
	a := benchApp(b)
	storetest.Fill(b, a.store, 10000)
	b.Run("unfiltered/kept", func(b *testing.B) { serve(b, a, "/incidents") })
	b.Run("unfiltered/rendered", func(b *testing.B) { serveWithCPU(b, a, moveIncidentsMark(a), "/incidents") })
	b.Run("by-severity/rendered", func(b *testing.B) { serveWithCPU(b, a, moveIncidentsMark(a), "/incidents?severity=sev1") })
	b.Run("page-100/rendered", func(b *testing.B) { serveWithCPU(b, a, moveIncidentsMark(a), "/incidents?page=100") })
}
