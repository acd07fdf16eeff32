package models_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// An edit writes only the columns it changed, and records only what it changed: a title-only edit
// moves the incident's version but not its insights version (nothing the insights read changed),
// while a milestone edit moves both.
func TestATitleEditMovesNoInsightBlock(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		inc := createOnDay(t, s, 3, models.IncidentInput{Title: "Before", Services: []string{"API"}})
		db, err := s.SQLDB()
		if err != nil {
			t.Fatal(err)
		}
		versions := func() (version, insights int64) {
			if err := db.QueryRow(fmt.Sprintf(`SELECT version, insights_version FROM incident_versions WHERE incident_id = %d`, inc.ID)).Scan(&version, &insights); err != nil {
				t.Fatal(err)
			}
			return version, insights
		}
		blocks := func() int64 {
			_, n := versions()
			return n
		}
		in := models.IncidentInput{Title: "After", Severity: inc.Severity, Status: inc.Status, TimeZone: inc.TimeZone,
			PostmortemState: inc.PostmortemState, Services: []string{"API"}, Milestones: inc.Milestones()}
		before := blocks()
		versionBefore, _ := versions()
		edited, err := s.UpdateIncident(ctx, inc.ID, inc.Version, in, models.Children{})
		if err != nil {
			t.Fatal(err)
		}
		if got := blocks(); got != before {
			t.Errorf("a title-only edit moved the insights version from %d to %d", before, got)
		}
		if got, _ := versions(); got == versionBefore {
			t.Errorf("a title-only edit left the incident's version at %d", got)
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
			t.Error("a milestone edit left the insights version where it was")
		}
	})
}
