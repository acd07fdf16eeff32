package models_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/mdexport"
	"hindsight/models/storetest"
)

// TestDayPrecisionFigures: a milestone known only to the day makes every figure measured from or
// to it approximate, written in whole days ("about 4 days") on the page, the list and the
// Markdown export, named in the API's metrics; the insights count those figures apart and leave
// them out of the median, p90 and mean, alike from SQL and from the store's copy, on both
// databases. Seed 004: the change went out on 1 April, known to the day; impact began on 5 April.
func TestDayPrecisionFigures(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		file := func(title string, started, detected time.Time, days ...string) *models.Incident {
			t.Helper()
			trigger := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
			in := models.IncidentInput{Title: title, Severity: "sev2", Status: "resolved", TimeZone: "UTC",
				Milestones:    models.Milestones{TriggeredAt: &trigger, StartedAt: &started, DetectedAt: &detected, ResolvedAt: &detected},
				MilestoneDays: days}
			inc, err := s.CreateIncident(ctx, in, models.Children{})
			if err != nil {
				t.Fatal(err)
			}
			return inc
		}
		start := time.Date(2026, 4, 5, 10, 30, 0, 0, time.UTC)
		seed004 := file("Deploy bit four days later", start, start.Add(10*time.Minute), "triggered_at")
		dayStart := file("Started some time on the 6th", time.Date(2026, 4, 6, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 6, 5, 0, 0, 0, time.UTC), "started_at")
		file("Exact", start, start.Add(30*time.Minute))

		m := models.ComputeMetrics(seed004)
		if !m.Latent.Approximate || m.TimeToDetect.Approximate {
			t.Errorf("seed 004: latent approximate %v, detect approximate %v", m.Latent.Approximate, m.TimeToDetect.Approximate)
		}
		if got := models.FormatFigure(m.Latent); got != "about 4 days" {
			t.Errorf("latent period = %q, want about 4 days", got)
		}
		if got := models.FormatFigure(m.TimeToDetect); got != "10 min" {
			t.Errorf("an exact figure = %q", got)
		}
		d := models.ComputeMetrics(dayStart)
		if got := models.FormatFigure(d.TimeToDetect); !d.TimeToDetect.Approximate || got != "less than a day" {
			t.Errorf("detected 5 h into a day-only start = %q", got)
		}
		if got := d.Approximate(); len(got) != 3 || got[0] != models.FigureDetect {
			t.Errorf("approximate figures = %v, want detect, resolve and latent", got)
		}
		md := mdexport.Render(seed004)
		if !strings.Contains(md, "- Impact began about 4 days after the trigger.\n") {
			t.Errorf("the Markdown export says the latent period as:\n%s", md)
		}
		list, _, err := s.ListIncidentSummaries(ctx, models.IncidentFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, inc := range list {
			if inc.ID == dayStart.ID && !models.MilestoneMetrics(&inc).TimeToDetect.Approximate {
				t.Error("the list's row does not know its start is day-only")
			}
		}

		for name, read := range map[string]func() (*models.Insights, error){
			"sql":    func() (*models.Insights, error) { return s.ComputeInsights(ctx, models.InsightsFilter{}) },
			"cached": func() (*models.Insights, error) { return s.Insights(ctx, models.InsightsFilter{}) },
		} {
			in, err := read()
			if err != nil {
				t.Fatal(err)
			}
			ttd := in.Figure(models.FigureDetect)
			if ttd.Recorded != 3 || ttd.Approximate != 1 || ttd.N() != 2 || ttd.Median != 20*60 {
				t.Errorf("%s: time to detect recorded %d, approximate %d, n %d, median %v; want 3, 1, 2, 1200",
					name, ttd.Recorded, ttd.Approximate, ttd.N(), ttd.Median)
			}
		}
		// Typed again to the minute, the figure counts again, in the cached copy too.
		current, err := s.GetIncident(ctx, dayStart.ID)
		if err != nil {
			t.Fatal(err)
		}
		in := models.IncidentInput{Title: current.Title, Severity: current.Severity, Status: current.Status, TimeZone: "UTC", Milestones: current.Milestones()}
		if _, err := s.UpdateIncident(ctx, current.ID, current.Version, in, models.Children{}); err != nil {
			t.Fatal(err)
		}
		cached, err := s.Insights(ctx, models.InsightsFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if ttd := cached.Figure(models.FigureDetect); ttd.Approximate != 0 || ttd.N() != 3 {
			t.Errorf("after the start was typed to the minute: approximate %d, n %d", ttd.Approximate, ttd.N())
		}
	})
}
