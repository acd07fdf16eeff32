package models_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

func at(t *testing.T, zone, value string) *time.Time {
	t.Helper()
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	v, err := time.ParseInLocation("2006-01-02 15:04", value, loc)
	if err != nil {
		t.Fatal(err)
	}
	return &v
}

func seed000(t *testing.T) models.IncidentInput {
	return models.IncidentInput{
		Title: "Canada: slow and timing-out services", Severity: "sev2", Status: "resolved",
		DetectionMethod: "customer_report", TimeZone: "UTC", PostmortemState: "published",
		Services: []string{"Orchestrator", "Action Center", "orchestrator"}, Regions: []string{"Canada"},
		Milestones: models.Milestones{
			StartedAt:   at(t, "UTC", "2026-03-09 16:00"),
			DetectedAt:  at(t, "UTC", "2026-03-12 16:54"),
			MitigatedAt: at(t, "UTC", "2026-03-12 17:45"),
			ResolvedAt:  at(t, "UTC", "2026-03-12 18:28"),
		},
	}
}

func TestIncidentRoundTrip(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		in := seed000(t)
		timeline := []models.EventInput{
			{At: *at(t, "UTC", "2026-03-12 16:39"), Kind: "status_update", Status: "investigating", Body: "Looking into it", Public: true},
			{At: *at(t, "UTC", "2026-03-12 18:28"), Kind: "status_update", Status: "resolved", Body: "Fixed", Public: true},
		}
		windows := []models.WindowInput{
			{StartedAt: *at(t, "UTC", "2026-03-09 16:00"), EndedAt: at(t, "UTC", "2026-03-12 17:45"), Level: "degraded", Services: []string{"Orchestrator"}},
			{StartedAt: *at(t, "UTC", "2026-03-11 08:00"), EndedAt: at(t, "UTC", "2026-03-11 12:00"), Level: "partial_outage"},
		}
		inc, err := s.CreateIncident(ctx, in, models.Children{Timeline: &timeline, ImpactWindows: &windows})
		if err != nil {
			t.Fatal(err)
		}
		if got := inc.ServiceNames(); !slices.Equal(got, []string{"Action Center", "Orchestrator"}) {
			t.Errorf("services = %v, want the two distinct names", got)
		}
		m := models.ComputeMetrics(inc)
		if got := models.FormatFigure(m.TimeToDetect); got != "72 h 54 min" {
			t.Errorf("TTD = %q, want 72 h 54 min", got)
		}
		if got := models.FormatFigure(m.TimeToFirstPublicUpdate); got != "72 h 39 min" {
			t.Errorf("time to first public update = %q", got)
		}
		if got := models.FormatFigure(m.Impact); got != "73 h 45 min" {
			t.Errorf("impact = %q, want the union 73 h 45 min", got)
		}
		if got := models.FormatFigure(m.TimeToAcknowledge); got != "not recorded" {
			t.Errorf("TTA = %q, want not recorded", got)
		}
		if len(inc.Timeline) != 2 || inc.Timeline[0].Body != "Looking into it" {
			t.Errorf("timeline = %+v", inc.Timeline)
		}
		if len(inc.ImpactWindows) != 2 || inc.ImpactWindows[0].ServiceNames()[0] != "Orchestrator" {
			t.Errorf("windows = %+v", inc.ImpactWindows)
		}

		in.Title = "Changed"
		updated, err := s.UpdateIncident(ctx, inc.ID, inc.Version, in, models.Children{})
		if err != nil {
			t.Fatal(err)
		}
		if updated.Version != inc.Version+1 || updated.Title != "Changed" || len(updated.Timeline) != 2 {
			t.Errorf("after update: version %d title %q events %d", updated.Version, updated.Title, len(updated.Timeline))
		}
		if _, err := s.UpdateIncident(ctx, inc.ID, inc.Version, in, models.Children{}); !errors.Is(err, models.ErrConflict) {
			t.Errorf("stale version: err = %v, want ErrConflict", err)
		}
		if err := s.DeleteIncident(ctx, inc.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetIncident(ctx, inc.ID); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("deleted incident: err = %v, want ErrNotFound", err)
		}
	})
}

func TestBSTMilestones(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		in := models.IncidentInput{
			Title: "R&R platform slow", Severity: "sev1", Status: "resolved", TimeZone: "Europe/London", PostmortemState: "draft",
			Milestones: models.Milestones{
				TriggeredAt: at(t, "Europe/London", "2022-04-01 10:00"),
				StartedAt:   at(t, "Europe/London", "2022-04-05 08:00"),
				ResolvedAt:  at(t, "Europe/London", "2022-04-06 16:30"),
			},
		}
		inc, err := s.CreateIncident(ctx, in, models.Children{})
		if err != nil {
			t.Fatal(err)
		}
		if got := inc.StartedAt.UTC().Format(time.RFC3339); got != "2022-04-05T07:00:00Z" {
			t.Errorf("started_at stored as %s, want 07:00 UTC", got)
		}
		if got := models.FormatFigure(models.ComputeMetrics(inc).TimeToResolve); got != "32 h 30 min" {
			t.Errorf("TTR = %q, want 32 h 30 min", got)
		}
	})
}

func TestChildrenCRUD(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		inc, err := s.CreateIncident(ctx, seed000(t), models.Children{})
		if err != nil {
			t.Fatal(err)
		}
		ev, err := s.CreateEvent(ctx, inc.ID, models.EventInput{At: *at(t, "UTC", "2026-03-17 07:57"), Kind: "action", Body: "scope confirmed"})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.UpdateEvent(ctx, inc.ID, ev.ID, models.EventInput{At: ev.At, Kind: "note", Body: "edited"}); err != nil {
			t.Fatal(err)
		}
		w, err := s.CreateWindow(ctx, inc.ID, models.WindowInput{StartedAt: *at(t, "UTC", "2026-03-17 04:00"), Level: "degraded", Services: []string{"Document Understanding"}})
		if err != nil {
			t.Fatal(err)
		}
		f, err := s.CreateFollowUp(ctx, inc.ID, models.FollowUpInput{Title: "Latency alerts", Kind: "detect", Priority: "p1", Status: "open"})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.UpdateFollowUp(ctx, inc.ID, f.ID, f.Version, models.FollowUpInput{Title: "Latency alerts", Kind: "detect", Priority: "p1", Status: "done"}); err != nil {
			t.Fatal(err)
		}
		if err := s.UpdateFollowUp(ctx, inc.ID, f.ID, f.Version, models.FollowUpInput{Title: "x", Kind: "detect", Priority: "p1", Status: "open"}); !errors.Is(err, models.ErrConflict) {
			t.Errorf("stale follow-up version: %v", err)
		}
		got, err := s.GetIncident(ctx, inc.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Timeline) != 1 || got.Timeline[0].Body != "edited" || got.Timeline[0].Kind != "note" {
			t.Errorf("timeline after edit = %+v", got.Timeline)
		}
		if len(got.FollowUps) != 1 || got.FollowUps[0].Status != "done" || got.FollowUps[0].DoneAt == nil || got.FollowUps[0].Version != 2 {
			t.Errorf("follow-up after edit = %+v", got.FollowUps)
		}
		// seed 000's window has no end: it runs to mitigation, 17:45 on the 12th.
		if m := models.ComputeMetrics(got); !m.Impact.Invalid {
			t.Errorf("window from 03-17 ending at mitigation 03-12 should be invalid, got %+v", m.Impact)
		}
		if err := s.DeleteWindow(ctx, inc.ID, w.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteWindow(ctx, inc.ID, w.ID); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("second delete: %v, want ErrNotFound", err)
		}
		if err := s.DeleteEvent(ctx, inc.ID+1000, ev.ID); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("event of another incident: %v, want ErrNotFound", err)
		}
	})
}

func TestListFilters(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		for n, title := range []string{"first 100% outage", "second", "third"} {
			in := seed000(t)
			in.Title = title
			start := time.Date(2026, 1, 1+n, 0, 0, 0, 0, time.UTC)
			in.Milestones.StartedAt = &start
			if n == 1 {
				in.Severity, in.Regions = "sev1", []string{"Europe"}
			}
			if _, err := s.CreateIncident(ctx, in, models.Children{}); err != nil {
				t.Fatal(err)
			}
		}
		noStart := seed000(t)
		noStart.Title, noStart.Milestones = "unknown start", models.Milestones{}
		if _, err := s.CreateIncident(ctx, noStart, models.Children{}); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name   string
			filter models.IncidentFilter
			want   []string
		}{
			{"all newest first, unknown start last", models.IncidentFilter{}, []string{"third", "second", "first 100% outage", "unknown start"}},
			{"severity", models.IncidentFilter{Severity: "sev1"}, []string{"second"}},
			{"region", models.IncidentFilter{Region: "Europe"}, []string{"second"}},
			{"service", models.IncidentFilter{Service: "Action Center", Limit: 2}, []string{"third", "second"}},
			{"text with LIKE characters", models.IncidentFilter{Text: "100%"}, []string{"first 100% outage"}},
			{"text case-insensitive", models.IncidentFilter{Text: "SECOND"}, []string{"second"}},
			{"offset", models.IncidentFilter{Offset: 3}, []string{"unknown start"}},
		}
		for _, tc := range cases {
			list, total, err := s.ListIncidents(ctx, tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			var titles []string
			for _, inc := range list {
				titles = append(titles, inc.Title)
			}
			if !slices.Equal(titles, tc.want) {
				t.Errorf("%s: got %v, want %v", tc.name, titles, tc.want)
			}
			if tc.filter.Limit == 0 && tc.filter.Offset == 0 && int(total) != len(tc.want) {
				t.Errorf("%s: total %d, want %d", tc.name, total, len(tc.want))
			}
		}
	})
}

func TestOrderWarnings(t *testing.T) {
	m := models.Milestones{
		StartedAt:  at(t, "UTC", "2026-03-09 16:00"),
		DetectedAt: at(t, "UTC", "2026-03-09 15:00"),
		ResolvedAt: at(t, "UTC", "2026-03-10 15:00"),
	}
	w := m.OrderWarnings()
	if len(w) != 1 || w[0].Field != "detected_at" || w[0].Before != "started_at" {
		t.Fatalf("warnings = %+v, want detected before started", w)
	}
	metrics := models.MilestoneMetrics(&models.Incident{StartedAt: m.StartedAt, DetectedAt: m.DetectedAt})
	if !metrics.TimeToDetect.Invalid || !slices.Equal(metrics.Invalid(), []string{"time_to_detect"}) {
		t.Errorf("invalid = %v", metrics.Invalid())
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		72*time.Hour + 54*time.Minute: "72 h 54 min",
		3 * time.Hour:                 "3 h",
		20 * time.Minute:              "20 min",
		90 * time.Second:              "1 min 30 s",
		45 * time.Second:              "45 s",
		-5 * time.Minute:              "−5 min",
	} {
		if got := models.FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
