package models_test

import (
	"context"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// Near misses stay out of the insights' figures unless asked for, and are counted apart; the
// store's cached copy and a fresh computation from SQL agree, and turning an incident into a near
// miss moves the cached result.
func TestInsightsCountNearMissesApart(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		start := time.Date(2026, 3, 9, 16, 0, 0, 0, time.UTC)
		create := func(detectAfter time.Duration, nearMiss bool) *models.Incident {
			detected := start.Add(detectAfter)
			inc, err := s.CreateIncident(ctx, models.IncidentInput{Title: "Probe", Severity: "sev2", Status: "resolved", TimeZone: "UTC",
				PostmortemState: "none", NearMiss: nearMiss, Milestones: models.Milestones{StartedAt: &start, DetectedAt: &detected}}, models.Children{})
			if err != nil {
				t.Fatal(err)
			}
			return inc
		}
		create(10*time.Minute, false)
		create(20*time.Minute, false)
		near := create(5*time.Hour, true)
		check := func(step string, f models.InsightsFilter, incidents, nearMisses int, median float64) {
			t.Helper()
			for name, compute := range map[string]func(context.Context, models.InsightsFilter) (*models.Insights, error){
				"cached": s.Insights, "computed": s.ComputeInsights,
			} {
				got, err := compute(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				if got.Incidents != incidents || got.NearMisses != nearMisses || got.Figure(models.FigureDetect).Median != median {
					t.Errorf("%s (%s): %d incidents, %d near misses apart, median detection %v; want %d, %d, %v", step, name,
						got.Incidents, got.NearMisses, got.Figure(models.FigureDetect).Median, incidents, nearMisses, median)
				}
			}
		}
		check("default", models.InsightsFilter{}, 2, 1, 900)
		check("included", models.InsightsFilter{NearMisses: models.NearMissesInclude}, 3, 0, 1200)
		check("only", models.InsightsFilter{NearMisses: models.NearMissesOnly}, 1, 0, 18000)
		check("by severity", models.InsightsFilter{Severity: "sev2"}, 2, 1, 900)
		check("another severity", models.InsightsFilter{Severity: "sev1"}, 0, 0, 0)

		in := models.IncidentInput{Title: "Probe", Severity: "sev2", Status: "resolved", TimeZone: "UTC", PostmortemState: "none",
			NearMiss: false, Milestones: near.Milestones()}
		if _, err := s.UpdateIncident(ctx, near.ID, near.Version, in, models.Children{}); err != nil {
			t.Fatal(err)
		}
		check("no longer a near miss", models.InsightsFilter{}, 3, 0, 1200)
	})
}
