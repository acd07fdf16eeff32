package models_test

import (
	"context"
	"strings"
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

// Which fixes held: a "prevent" fix for cold caches that an incident came back after, a "detect"
// fix for it that only a near miss came back after, and for another factor a fix that an
// incident came back after and a fix of an incident with no start, which takes effect when done.
func TestFixesHeldReport(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		for _, name := range []string{"Probe caches", "Probe certs"} {
			if _, err := s.SaveFactor(ctx, 0, models.FactorInput{Name: name, Slug: strings.ReplaceAll(models.Slugify(name), "_", "-")}); err != nil {
				t.Fatal(err)
			}
		}
		day := func(n int) *time.Time { d := time.Date(2026, 1, n, 12, 0, 0, 0, time.UTC); return &d }
		create := func(n int, factor string, nearMiss bool, fixes ...models.FollowUpInput) {
			t.Helper()
			children := models.Children{}
			if len(fixes) > 0 {
				children.FollowUps = &fixes
			}
			var started *time.Time // n = 0: no start
			if n > 0 {
				started = day(n)
			}
			_, err := s.CreateIncident(ctx, models.IncidentInput{Title: "Probe", Severity: "sev2", Status: "resolved", TimeZone: "UTC",
				PostmortemState: "none", NearMiss: nearMiss, Factors: []string{factor}, Milestones: models.Milestones{StartedAt: started}}, children)
			if err != nil {
				t.Fatal(err)
			}
		}
		fix := func(kind, factor string, done int) models.FollowUpInput {
			return models.FollowUpInput{Title: "Fix " + kind, Kind: kind, Priority: "p2", Status: "done", DoneAt: day(done), Factors: []string{factor}}
		}
		create(1, "probe-caches", false, fix("prevent", "probe-caches", 2))
		create(5, "probe-caches", false, fix("detect", "probe-caches", 6))
		create(9, "probe-caches", true) // a near miss after both fixes
		create(3, "probe-certs", false, fix("process", "probe-certs", 4))
		create(0, "probe-certs", false, fix("mitigate", "probe-certs", 10))
		create(12, "probe-certs", false) // after both of its fixes
		report, err := s.FixesHeldReport(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][3]int{}
		for _, r := range report.Rows {
			got[r.Factor.Slug+"/"+r.Kind] = [3]int{r.Fixes, r.CameBack, r.NearMissAfter}
		}
		want := map[string][3]int{
			"probe-caches/prevent": {1, 1, 0}, "probe-caches/detect": {1, 0, 1}, "probe-certs/process": {1, 1, 0},
			"probe-certs/mitigate": {1, 1, 0},
		}
		if len(got) != len(want) {
			t.Fatalf("rows = %v, want %v", got, want)
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s = %v, want %v (fixes, came back, near miss after)", k, got[k], w)
			}
		}
		if len(report.ByKind) != 4 || report.ByKind[0].Kind != "prevent" || report.ByKind[0].Held() != 0 || report.ByKind[1].Held() != 1 {
			t.Errorf("by kind = %+v", report.ByKind)
		}
		var cold int64
		for _, r := range report.Rows {
			if r.Factor.Slug == "probe-caches" {
				cold = r.Factor.ID
			}
		}
		if report.NearMisses[cold] != 1 {
			t.Errorf("near misses of cold caches = %d, want 1", report.NearMisses[cold])
		}
	})
}

// The older recurrence counts leave near misses out and count them apart: an incident and a near
// miss of one factor do not make it recur, a near miss after its fix does not come back, and the
// time line holds the incident alone; the near miss is listed, marked.
func TestRecurrenceCountsNearMissesApart(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		if _, err := s.SaveFactor(ctx, 0, models.FactorInput{Name: "Probe drift", Slug: "probe-drift"}); err != nil {
			t.Fatal(err)
		}
		day := func(n int) *time.Time { d := time.Date(2026, 1, n, 12, 0, 0, 0, time.UTC); return &d }
		done := day(3)
		fix := []models.FollowUpInput{{Title: "Pin the clock", Kind: "prevent", Priority: "p1", Status: "done", DoneAt: done}}
		create := func(n int, nearMiss bool, children models.Children) {
			t.Helper()
			_, err := s.CreateIncident(ctx, models.IncidentInput{Title: "Probe", Severity: "sev2", Status: "resolved", TimeZone: "UTC",
				PostmortemState: "none", NearMiss: nearMiss, Factors: []string{"probe-drift"}, Milestones: models.Milestones{StartedAt: day(n)}}, children)
			if err != nil {
				t.Fatal(err)
			}
		}
		create(1, false, models.Children{FollowUps: &fix})
		create(10, true, models.Children{})
		report, err := s.Recurrence(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var r *models.FactorRecurrence
		for n := range report {
			if report[n].Factor.Slug == "probe-drift" {
				r = &report[n]
			}
		}
		if r == nil {
			t.Fatal("no line for the factor")
		}
		timeline := 0
		for _, b := range r.Timeline {
			timeline += b.Incidents
		}
		if r.IncidentCount != 1 || r.NearMisses != 1 || r.Recurs || r.CameBack != 0 || timeline != 1 || len(r.Incidents) != 2 {
			t.Errorf("report = %d incidents, %d near misses, recurs %v, came back %d, time line %d, listed %d; want 1, 1, false, 0, 1, 2",
				r.IncidentCount, r.NearMisses, r.Recurs, r.CameBack, timeline, len(r.Incidents))
		}
		for _, inc := range r.Incidents {
			if inc.NearMiss != inc.StartedAt.Equal(*day(10)) || (inc.NearMiss && inc.CameBackAfter != 0) {
				t.Errorf("listed %+v", inc)
			}
		}
	})
}
