package models_test

import (
	"context"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// An edit writes only the columns it changed: a title-only edit leaves the insights' block
// counters where they were (nothing the insights read changed), while a milestone edit moves them.
func TestATitleEditMovesNoInsightBlock(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		inc := createOnDay(t, s, 3, models.IncidentInput{Title: "Before", Services: []string{"API"}})
		db, err := s.SQLDB()
		if err != nil {
			t.Fatal(err)
		}
		blocks := func() (n int64) {
			if err := db.QueryRow(`SELECT COALESCE(SUM(n), 0) FROM insight_blocks`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		in := models.IncidentInput{Title: "After", Severity: inc.Severity, Status: inc.Status, TimeZone: inc.TimeZone,
			PostmortemState: inc.PostmortemState, Services: []string{"API"}, Milestones: inc.Milestones()}
		before := blocks()
		edited, err := s.UpdateIncident(ctx, inc.ID, inc.Version, in, models.Children{})
		if err != nil {
			t.Fatal(err)
		}
		if got := blocks(); got != before {
			t.Errorf("a title-only edit moved the insight blocks from %d to %d", before, got)
		}
		if edited.Title != "After" || edited.Version != inc.Version+1 {
			t.Errorf("edited = %q version %d", edited.Title, edited.Version)
		}
		later := inc.StartedAt.Add(time.Hour)
		in.Milestones.DetectedAt = &later
		if _, err := s.UpdateIncident(ctx, inc.ID, edited.Version, in, models.Children{}); err != nil {
			t.Fatal(err)
		}
		if got := blocks(); got == before {
			t.Error("a milestone edit left the insight blocks where they were")
		}
	})
}
