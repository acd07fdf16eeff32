package models_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// TestListTotalsFollowEveryChange checks the list totals kept by triggers (migration 00007)
// against a count of the rows themselves, for every combination of the filters they serve, after
// creates, edits that move incidents between statuses, severities and postmortem states, soft
// deletes and a hard delete.
func TestListTotalsFollowEveryChange(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		storetest.Fill(t, s, 40)
		var ids []int64
		for n := range 12 {
			inc, err := s.CreateIncident(ctx, models.IncidentInput{
				Title: fmt.Sprintf("Counted %d", n), Severity: models.Severities[n%4], Status: models.Statuses[n%3],
				PostmortemState: models.PostmortemStates[n%2], TimeZone: "UTC",
			}, models.Children{})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, inc.ID)
		}
		for n, id := range ids[:6] {
			in := models.IncidentInput{Title: fmt.Sprintf("Edited %d", n), Severity: models.Severities[(n+1)%4],
				Status: "resolved", PostmortemState: "published", TimeZone: "UTC"}
			if _, err := s.UpdateIncident(ctx, id, 0, in, models.Children{}); err != nil {
				t.Fatal(err)
			}
		}
		for _, id := range ids[6:9] {
			if err := s.DeleteIncident(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
		db, err := s.SQLDB()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `DELETE FROM incidents WHERE id = $1`, ids[9]); err != nil {
			t.Fatal(err)
		}

		statuses := append([]string{""}, models.Statuses...)
		severities := append([]string{""}, models.Severities...)
		states := append([]string{""}, models.PostmortemStates...)
		for _, status := range statuses {
			for _, severity := range severities {
				for _, state := range states {
					f := models.IncidentFilter{Status: status, Severity: severity, PostmortemState: state, Limit: 1}
					_, got, err := s.ListIncidentSummaries(ctx, f)
					if err != nil {
						t.Fatal(err)
					}
					var want int64
					err = db.QueryRowContext(ctx, `SELECT count(*) FROM incidents WHERE deleted_at IS NULL
						AND ($1 = '' OR status = $1) AND ($2 = '' OR severity = $2) AND ($3 = '' OR postmortem_state = $3)`,
						status, severity, state).Scan(&want)
					if err != nil {
						t.Fatal(err)
					}
					if got != want {
						t.Errorf("status %q severity %q postmortem %q: total %d, rows %d", status, severity, state, got, want)
					}
				}
			}
		}
		if _, total, err := s.ListIncidents(ctx, models.IncidentFilter{Limit: 1}); err != nil || total != 40+12-4 {
			t.Errorf("ListIncidents total %d, %v; want %d", total, err, 40+12-4)
		}
	})
}

// TestListSummariesCarryWhatTheListShows reads a page of summaries in both dialects and checks
// each field the list page shows against the incident as GetIncident loads it.
func TestListSummariesCarryWhatTheListShows(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		storetest.Fill(t, s, 60)
		started := time.Date(2026, 3, 9, 16, 0, 0, 0, time.UTC)
		detected := started.Add(72*time.Hour + 54*time.Minute)
		created, err := s.CreateIncident(ctx, models.IncidentInput{
			Title: "Canada - Multiple Services - Degraded Performance", Severity: "sev2", Status: "resolved",
			PostmortemState: "draft", TimeZone: "Europe/London", Services: []string{"Router", "Action Center", "Orchestrator"},
			Regions: []string{"US", "Canada"}, Milestones: models.Milestones{StartedAt: &started, DetectedAt: &detected},
		}, models.Children{})
		if err != nil {
			t.Fatal(err)
		}
		page, total, err := s.ListIncidentSummaries(ctx, models.IncidentFilter{Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		if total != 61 || len(page) != 50 {
			t.Fatalf("total %d, page of %d; want 61 and 50", total, len(page))
		}
		full, _, err := s.ListIncidents(ctx, models.IncidentFilter{Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		for n := range page {
			got, want := page[n], full[n]
			if got.ID != want.ID || got.Title != want.Title || got.Severity != want.Severity || got.Status != want.Status ||
				got.PostmortemState != want.PostmortemState || got.TimeZone != want.TimeZone ||
				!sameInstant(got.StartedAt, want.StartedAt) || !sameInstant(got.DetectedAt, want.DetectedAt) ||
				!sameInstant(got.ResolvedAt, want.ResolvedAt) ||
				!slices.Equal(got.ServiceNames(), want.ServiceNames()) || !slices.Equal(got.RegionNames(), want.RegionNames()) {
				t.Errorf("row %d: summary %+v\nwhole record %+v", n, got, want)
			}
		}
		for _, inc := range page {
			if inc.ID == created.ID {
				if !slices.Equal(inc.ServiceNames(), []string{"Action Center", "Orchestrator", "Router"}) ||
					!slices.Equal(inc.RegionNames(), []string{"Canada", "US"}) {
					t.Errorf("tags of the new incident: %v %v", inc.ServiceNames(), inc.RegionNames())
				}
			}
		}
	})
}

func sameInstant(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}
