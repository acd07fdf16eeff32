package demo_test

import (
	"context"
	"fmt"
	"testing"
	_ "time/tzdata" // Validate resolves Europe/London even where the system has no zone files

	"hindsight/models"
	"hindsight/models/demo"
	"hindsight/models/storetest"
)

func TestSamplesAreValid(t *testing.T) {
	samples := demo.Incidents()
	if len(samples) != 5 {
		t.Fatalf("got %d samples, want 5", len(samples))
	}
	keys := map[string]bool{}
	for n, sample := range samples {
		if want := fmt.Sprintf("seed-%03d", n); sample.Key != want {
			t.Errorf("sample %d key = %q, want %q", n, sample.Key, want)
		}
		keys[sample.Key] = true
		t.Run(sample.Key, func(t *testing.T) {
			in := sample.Incident
			if errs := models.Validate(in); len(errs) > 0 {
				t.Errorf("incident: %v", errs)
			}
			if warnings := in.Milestones.OrderWarnings(); len(warnings) > 0 {
				t.Errorf("milestones out of order: %+v", warnings)
			}
			for i, ev := range *sample.Children.Timeline {
				if errs := models.Validate(ev); len(errs) > 0 {
					t.Errorf("timeline event %d: %v", i, errs)
				}
			}
			for i, w := range *sample.Children.ImpactWindows {
				if errs := models.ValidateWindow(w); len(errs) > 0 {
					t.Errorf("impact window %d: %v", i, errs)
				}
				// Every window lies inside the incident's own impact.
				m := in.Milestones
				if m.StartedAt != nil && w.StartedAt.Before(*m.StartedAt) {
					t.Errorf("impact window %d starts before the incident", i)
				}
				if m.ResolvedAt != nil && w.EndedAt != nil && w.EndedAt.After(*m.ResolvedAt) {
					t.Errorf("impact window %d ends after resolution", i)
				}
			}
			for i, f := range *sample.Children.FollowUps {
				if errs := models.Validate(f); len(errs) > 0 {
					t.Errorf("follow-up %d: %v", i, errs)
				}
			}
		})
	}
	if len(keys) != len(samples) {
		t.Errorf("sample keys are not unique: %v", keys)
	}
}

func TestLoad(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		added, err := demo.Load(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if added != 5 {
			t.Errorf("first Load added %d, want 5", added)
		}
		added, err = demo.Load(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if added != 0 {
			t.Errorf("second Load added %d, want 0", added)
		}
		_, total, err := s.ListIncidents(ctx, models.IncidentFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if total != 5 {
			t.Errorf("%d incidents stored, want 5", total)
		}

		figures := []struct {
			key    string
			figure func(models.Metrics) models.Figure
			name   string
			want   string
		}{
			{"seed-000", func(m models.Metrics) models.Figure { return m.TimeToDetect }, "TTD", "72 h 54 min"},
			{"seed-000", func(m models.Metrics) models.Figure { return m.TimeToFirstPublicUpdate }, "first public update", "72 h 39 min"},
			{"seed-000", func(m models.Metrics) models.Figure { return m.Impact }, "impact", "73 h 45 min"},
			{"seed-001", func(m models.Metrics) models.Figure { return m.TimeToDetect }, "TTD", "20 min"},
			{"seed-002", func(m models.Metrics) models.Figure { return m.TimeToDetect }, "TTD", "3 h 54 min"},
			{"seed-002", func(m models.Metrics) models.Figure { return m.TimeToMitigate }, "TTM", "6 h 24 min"},
			{"seed-003", func(m models.Metrics) models.Figure { return m.TimeToDetect }, "TTD", "not recorded"},
			{"seed-003", func(m models.Metrics) models.Figure { return m.TimeToMitigate }, "TTM", "48 min"},
			{"seed-004", func(m models.Metrics) models.Figure { return m.TimeToResolve }, "TTR", "32 h 30 min"},
			{"seed-004", func(m models.Metrics) models.Figure { return m.TimeToDetect }, "TTD", "not recorded"},
		}
		for _, tc := range figures {
			inc := incident(t, s, tc.key)
			if got := models.FormatFigure(tc.figure(models.ComputeMetrics(inc))); got != tc.want {
				t.Errorf("%s %s = %q, want %q", tc.key, tc.name, got, tc.want)
			}
		}

		inc := incident(t, s, "seed-000")
		if len(inc.Timeline) != 7 || len(inc.ImpactWindows) != 2 || len(inc.FollowUps) != 5 {
			t.Errorf("seed-000 has %d events, %d windows, %d follow-ups; want 7, 2, 5",
				len(inc.Timeline), len(inc.ImpactWindows), len(inc.FollowUps))
		}
		if inc := incident(t, s, "seed-004"); inc.TimeZone != "Europe/London" || inc.StartedAt.UTC().Hour() != 7 {
			t.Errorf("seed-004 zone %q, start %v; want Europe/London, 07:00 UTC", inc.TimeZone, inc.StartedAt)
		}
	})
}

// A sample someone deleted stays deleted: Load neither fails nor brings it back.
func TestLoadAfterDelete(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		if _, err := demo.Load(ctx, s); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteIncident(ctx, incident(t, s, "seed-001").ID); err != nil {
			t.Fatal(err)
		}
		added, err := demo.Load(ctx, s)
		if err != nil {
			t.Fatalf("Load after a delete: %v", err)
		}
		if added != 0 {
			t.Errorf("Load after a delete added %d, want 0", added)
		}
		_, total, err := s.ListIncidents(ctx, models.IncidentFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if total != 4 {
			t.Errorf("%d incidents listed, want 4", total)
		}
	})
}

func incident(t *testing.T, s *models.Store, key string) *models.Incident {
	t.Helper()
	ctx := context.Background()
	id, err := s.FindBySource(ctx, demo.Source, key)
	if err != nil {
		t.Fatal(err)
	}
	if id == 0 {
		t.Fatalf("sample %s not found", key)
	}
	inc, err := s.GetIncident(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return inc
}
