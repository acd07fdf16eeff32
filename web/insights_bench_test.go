package web_test

import (
	"database/sql"
	"net/http"
	"net/http/httptest"
	"testing"

	"hindsight/models/storetest"
)

// BenchmarkInsights100k renders the insights page, and answers the insights API, over 100,000
// incidents with 300,000 timeline events and 133,000 impact windows, on SQLite, warm and cold.
func BenchmarkInsights100k(b *testing.B) {
	a := benchApp(b)
	storetest.Fill(b, a.store, 100000)
	db, err := a.store.SQLDB()
	if err != nil {
		b.Fatal(err)
	}
	// Two public status updates and a private alert per incident, a window each and a second, open
	// window for every third: the joins the insights make are exercised at full size.
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
	// Warm: served from the store's insights cache. Cold: the first request after a write to an
	// incident (the write not timed), which computes the insights again.
	b.Run("page", func(b *testing.B) { serve(b, a, "/insights") })
	b.Run("page-cold", func(b *testing.B) { serveAfterWrite(b, a, db, "/insights") })
	b.Run("page-by-service", func(b *testing.B) { serve(b, a, "/insights?group_by=service") })
	b.Run("page-by-service-cold", func(b *testing.B) { serveAfterWrite(b, a, db, "/insights?group_by=service") })
	b.Run("page-last-90-days", func(b *testing.B) { serve(b, a, "/insights?from=2025-10-03&to=2025-12-31") })
	b.Run("api", func(b *testing.B) { serve(b, a, "/api/v1/insights") })
	b.Run("api-cold", func(b *testing.B) { serveAfterWrite(b, a, db, "/api/v1/insights") })
}

// serveAfterWrite is serve with a write to an incident before every request, outside the timer.
func serveAfterWrite(b *testing.B, a *app, db *sql.DB, path string) {
	b.Helper()
	b.ReportAllocs()
	cookies := a.jar.Cookies(siteURL)
	for b.Loop() {
		b.StopTimer()
		if _, err := db.Exec("UPDATE incidents SET title = title WHERE id = 1"); err != nil {
			b.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodGet, path, nil)
		for _, c := range cookies {
			req.AddCookie(c)
		}
		rec := httptest.NewRecorder()
		b.StartTimer()
		a.e.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("%s: status %d", path, rec.Code)
		}
	}
}
