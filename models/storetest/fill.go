package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"hindsight/models"
)

// Fill adds n incidents in one transaction, for benchmarks and query-count tests. They start an
// hour apart going back from 2026-01-01, carry the usual milestones, and are spread over four
// services, three regions and every severity and status.
func Fill(t testing.TB, s *models.Store, n int) {
	t.Helper()
	db, err := s.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	now := time.Now().UTC().Truncate(time.Second)
	for i, name := range []string{"Orchestrator", "Action Center", "Authorization Service", "Router"} {
		if _, err := tx.Exec(`INSERT INTO services (id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, 1000+i, name, now); err != nil {
			t.Fatal(err)
		}
	}
	for i, name := range []string{"Canada", "Europe", "US"} {
		if _, err := tx.Exec(`INSERT INTO regions (id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, 1000+i, name, now); err != nil {
			t.Fatal(err)
		}
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		start := base.Add(-time.Duration(i) * time.Hour)
		detected, resolved := start.Add(time.Duration(5+i%240)*time.Minute), start.Add(time.Duration(60+i%600)*time.Minute)
		var id int64
		err := tx.QueryRow(`INSERT INTO incidents (title, summary, severity, status, detection_method, time_zone,
			started_at, detected_at, resolved_at, postmortem_state, version, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, 'UTC', $6, $7, $8, $9, 1, $10, $10) RETURNING id`,
			fmt.Sprintf("Incident %d: elevated errors", i), "Requests failed for a subset of customers.",
			models.Severities[i%4], models.Statuses[i%4], models.DetectionMethods[i%5],
			start, detected, resolved, models.PostmortemStates[i%4], now).Scan(&id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(`INSERT INTO incident_services (incident_id, service_id) VALUES ($1, $2)`, id, 1000+i%4); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(`INSERT INTO incident_regions (incident_id, region_id) VALUES ($1, $2)`, id, 1000+i%3); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}
