package web_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// BenchmarkInsights100k renders the insights page, and answers the insights API, over 100,000
// incidents with 300,000 timeline events and 133,000 impact windows, on SQLite, warm and cold.
func BenchmarkInsights100k(b *testing.B) {
	benchmarkInsights(b, storetest.SQLiteFilled(b, "insights-100000", fillForInsights(b)))
}

// BenchmarkInsights100kPostgres is the same on PostgreSQL, when HINDSIGHT_TEST_POSTGRES_URL is set
// (cpu-ms/op then leaves out the server's share).
func BenchmarkInsights100kPostgres(b *testing.B) {
	benchmarkInsights(b, storetest.PostgresFilled(b, "insights-100000", fillForInsights(b)))
}

func fillForInsights(b *testing.B) func(*models.Store) {
	return func(s *models.Store) {
		storetest.Fill(b, s, 100000)
		enrichForInsights(b, s)
	}
}

func benchmarkInsights(b *testing.B, store *models.Store) {
	a := benchAppOn(b, store)
	db, err := a.store.SQLDB()
	if err != nil {
		b.Fatal(err)
	}
	// Warm: served from the store's insights cache. Cold: the first request after a write to an
	// incident's milestones (the write not timed), which reads that incident's block of rows again
	// and aggregates. cpu-ms/op is this process's CPU time per request, all threads.
	write := func(b *testing.B) {
		if _, err := db.Exec("UPDATE incidents SET resolved_at = resolved_at WHERE id = 1"); err != nil {
			b.Fatal(err)
		}
	}
	for _, page := range []struct{ name, path string }{
		{"page", "/insights"},
		{"page-by-service", "/insights?group_by=service"},
		{"page-last-90-days", "/insights?from=2025-10-03&to=2025-12-31"},
		{"api", "/api/v1/insights"},
	} {
		b.Run(page.name, func(b *testing.B) { serveWithCPU(b, a, nil, page.path) })
		b.Run(page.name+"-cold", func(b *testing.B) { serveWithCPU(b, a, write, page.path) })
	}
}

// enrichForInsights gives every incident two public status updates and a private alert, a window
// each and a second, open window for every third: the joins the insights make are exercised at
// full size.
func enrichForInsights(b *testing.B, s *models.Store) {
	db, err := s.SQLDB()
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO timeline_events (incident_id, at, kind, status, body, public, created_at, updated_at)
			SELECT id, detected_at, 'status_update', 'investigating', 'Investigating.', TRUE, created_at, created_at FROM incidents`,
		`INSERT INTO timeline_events (incident_id, at, kind, status, body, public, created_at, updated_at)
			SELECT id, resolved_at, 'status_update', 'resolved', 'Resolved.', TRUE, created_at, created_at FROM incidents`,
		`INSERT INTO timeline_events (incident_id, at, kind, status, body, public, created_at, updated_at)
			SELECT id, started_at, 'alert', '', 'Error rate alert.', FALSE, created_at, created_at FROM incidents`,
		`INSERT INTO impact_windows (incident_id, started_at, ended_at, level, note, created_at, updated_at)
			SELECT id, started_at, resolved_at, 'degraded', '', created_at, created_at FROM incidents`,
		`INSERT INTO impact_windows (incident_id, started_at, ended_at, level, note, created_at, updated_at)
			SELECT id, detected_at, NULL, 'major_outage', '', created_at, created_at FROM incidents WHERE id % 3 = 0`,
		`ANALYZE`,
	} {
		if _, err := db.Exec(q); err != nil {
			b.Fatal(err)
		}
	}
}

// serveWithCPU is serve reporting the CPU time per request too; before, when set, runs ahead of
// every request outside the timers. Without before, one request is served untimed first, so a
// warm loop is warm from the start.
func serveWithCPU(b *testing.B, a *app, before func(*testing.B), path string) {
	b.Helper()
	b.ReportAllocs()
	cookies := a.jar.Cookies(siteURL)
	get := func() {
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
	if before == nil {
		get()
	}
	var cpu time.Duration
	for b.Loop() {
		if before != nil {
			b.StopTimer()
			before(b)
			b.StartTimer()
		}
		start := storetest.CPUTime(b)
		get()
		cpu += storetest.CPUTime(b) - start
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
