package storetest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"hindsight/models"
)

// FillFollowUps gives every incident perIncident follow-ups and tags incidents and follow-ups
// with factors of the starting taxonomy, in one transaction, for the benchmarks of the follow-up
// list, the recurrence report, search and similar incidents. A third of the follow-ups are done,
// some are overdue and some have no owner; titles vary so that search has work to do.
func FillFollowUps(t testing.TB, s *models.Store, perIncident int) {
	t.Helper()
	ctx := context.Background()
	db, err := s.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	var factorIDs []int64
	rows, err := db.QueryContext(ctx, `SELECT id FROM factors ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		factorIDs = append(factorIDs, id)
	}
	rows.Close()
	var incidentIDs []int64
	rows, err = db.QueryContext(ctx, `SELECT id FROM incidents ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		incidentIDs = append(incidentIDs, id)
	}
	rows.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	tagIncident, err := tx.PrepareContext(ctx, `INSERT INTO incident_factors (incident_id, factor_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`)
	if err != nil {
		t.Fatal(err)
	}
	insertFollowUp, err := tx.PrepareContext(ctx, `INSERT INTO follow_ups (incident_id, title, description, kind, priority, owner,
		due_on, status, done_at, version, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 1, $10, $10) RETURNING id`)
	if err != nil {
		t.Fatal(err)
	}
	tagFollowUp, err := tx.PrepareContext(ctx, `INSERT INTO follow_up_factors (follow_up_id, factor_id) VALUES ($1, $2)`)
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"cache", "capacity", "latency alert", "retry budget", "health check", "timeout", "failover", "rollout canary", "runbook", "dashboard"}
	owners := []string{"", "Gateway team", "Observability team", "Platform team", "sre@example.com"}
	now := time.Now().UTC().Truncate(time.Second)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for n, incidentID := range incidentIDs {
		for k := 0; k < 1+n%2; k++ {
			if _, err := tagIncident.ExecContext(ctx, incidentID, factorIDs[(n+k*3)%len(factorIDs)]); err != nil {
				t.Fatal(err)
			}
		}
		for k := 0; k < perIncident; k++ {
			i := n*perIncident + k
			status := models.FollowUpStatuses[i%4]
			var done any
			if status == "done" {
				done = base.Add(-time.Duration(n)*time.Hour + 48*time.Hour)
			}
			var due any
			if i%5 != 0 {
				due = base.AddDate(0, 0, i%400-200)
			}
			var id int64
			err := insertFollowUp.QueryRowContext(ctx, incidentID, fmt.Sprintf("Follow-up %d: %s", i, words[i%len(words)]),
				"Make sure it does not happen again: "+words[(i+3)%len(words)], models.FollowUpKinds[i%4], models.FollowUpPriorities[i%3],
				owners[i%len(owners)], due, status, done, now).Scan(&id)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tagFollowUp.ExecContext(ctx, id, factorIDs[i%len(factorIDs)]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordEverything(ctx); err != nil {
		t.Fatal(err)
	}
}

// AtScale is the database the benchmarks at scale share: 100,000 incidents (or as many as
// HINDSIGHT_BENCH_INCIDENTS says) with three follow-ups each. It returns the size, the key
// SQLiteFilled and PostgresFilled keep it under, and the fill.
func AtScale(b testing.TB) (size int, key string, fill func(*models.Store)) {
	size = 100000
	if v, err := strconv.Atoi(os.Getenv("HINDSIGHT_BENCH_INCIDENTS")); err == nil && v > 0 {
		size = v
	}
	return size, "followups-" + strconv.Itoa(size), func(s *models.Store) {
		Fill(b, s, size)
		FillFollowUps(b, s, 3)
	}
}
