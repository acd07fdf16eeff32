package models_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// insightsFixture files seven incidents whose figures are known by hand (minutes after the start
// of impact), one soft-deleted incident that must not count, and returns the ids by letter.
//
//	    sev   method             TTD  TTA  TTM  TTR  impact (windows)               first public update
//	A   sev1  automated_alert     10   15   60  120   60 [0,60]                      20
//	B   sev1  automated_alert     20   25   90  180   50 [0,30]∪[20,50]             30 (a private one at 5, a public note at 1)
//	C   sev2  synthetic_monitor   30   40   45   60   45 [0,open→mitigated 45]       50
//	D   sev2  customer_report     40    –  240  300  120 [0,60]+[120,180]            100
//	E   sev3  customer_report    100    –  130  200    – (no windows)                 –
//	F   sev3  unknown              –    –   30    –   30 [0,open→mitigated 30]       10
//	G   sev4  staff_report       −15    5   20   25   20 [0,20]                       2
//
// TTD: 10, 20, 30, 40, 100 (G invalid, F not recorded): median 30, p90 = 40 + 0.6 × 60 = 76,
// mean 40; 6 of 7 recorded, 1 invalid.
func insightsFixture(t *testing.T, s *models.Store) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	type spec struct {
		key, severity, method         string
		start                         string
		ttd, tta, ttm, ttr            int // minutes; none = not recorded; G's TTD is −15, invalid
		windows                       [][2]int
		publicUpdates, private, notes []int
		services, regions, factors    []string
	}
	const none = math.MinInt
	specs := []spec{
		{key: "A", severity: "sev1", method: "automated_alert", start: "2026-01-05 10:00", ttd: 10, tta: 15, ttm: 60, ttr: 120,
			windows: [][2]int{{0, 60}}, publicUpdates: []int{20, 40}, services: []string{"API"}, regions: []string{"Europe"},
			factors: []string{"retry-amplification", "cold-caches"}},
		{key: "B", severity: "sev1", method: "automated_alert", start: "2026-01-20 10:00", ttd: 20, tta: 25, ttm: 90, ttr: 180,
			windows: [][2]int{{0, 30}, {20, 50}}, publicUpdates: []int{30}, private: []int{5}, notes: []int{1}, services: []string{"API"}, regions: []string{"Europe"},
			factors: []string{"retry-amplification"}},
		{key: "C", severity: "sev2", method: "synthetic_monitor", start: "2026-02-03 10:00", ttd: 30, tta: 40, ttm: 45, ttr: 60,
			windows: [][2]int{{0, none}}, publicUpdates: []int{50}, services: []string{"API"}, regions: []string{"US"}},
		{key: "D", severity: "sev2", method: "customer_report", start: "2026-02-10 10:00", ttd: 40, tta: none, ttm: 240, ttr: 300,
			windows: [][2]int{{0, 60}, {120, 180}}, publicUpdates: []int{100}, services: []string{"Web"}, regions: []string{"US"}},
		{key: "E", severity: "sev3", method: "customer_report", start: "2026-03-01 10:00", ttd: 100, tta: none, ttm: 130, ttr: 200,
			services: []string{"Web"}},
		{key: "F", severity: "sev3", method: "", start: "2026-03-15 10:00", ttd: none, tta: none, ttm: 30, ttr: none,
			windows: [][2]int{{0, none}}, publicUpdates: []int{10}},
		{key: "G", severity: "sev4", method: "staff_report", start: "2026-03-20 10:00", ttd: -15, tta: 5, ttm: 20, ttr: 25,
			windows: [][2]int{{0, 20}}, publicUpdates: []int{2}},
		{key: "deleted", severity: "sev1", method: "automated_alert", start: "2026-01-06 10:00", ttd: 5000, tta: none, ttm: none, ttr: none,
			services: []string{"API"}},
	}
	ids := map[string]int64{}
	for _, sp := range specs {
		start := at(t, "UTC", sp.start)
		after := func(minutes int) *time.Time {
			if minutes == none {
				return nil
			}
			v := start.Add(time.Duration(minutes) * time.Minute)
			return &v
		}
		in := models.IncidentInput{
			Title: "Incident " + sp.key, Severity: sp.severity, Status: "resolved", DetectionMethod: sp.method,
			TimeZone: "UTC", PostmortemState: "none", Services: sp.services, Regions: sp.regions, Factors: sp.factors,
			Milestones: models.Milestones{StartedAt: start, DetectedAt: after(sp.ttd), AcknowledgedAt: after(sp.tta),
				MitigatedAt: after(sp.ttm), ResolvedAt: after(sp.ttr)},
		}
		var events []models.EventInput
		for _, m := range sp.publicUpdates {
			events = append(events, models.EventInput{At: *after(m), Kind: "status_update", Status: "investigating", Public: true})
		}
		for _, m := range sp.private {
			events = append(events, models.EventInput{At: *after(m), Kind: "status_update", Status: "investigating"})
		}
		for _, m := range sp.notes {
			events = append(events, models.EventInput{At: *after(m), Kind: "note", Public: true})
		}
		var windows []models.WindowInput
		for _, w := range sp.windows {
			windows = append(windows, models.WindowInput{StartedAt: *after(w[0]), EndedAt: after(w[1]), Level: "partial_outage"})
		}
		inc, err := s.CreateIncident(ctx, in, models.Children{Timeline: &events, ImpactWindows: &windows})
		if err != nil {
			t.Fatal(err)
		}
		ids[sp.key] = inc.ID
	}
	if err := s.DeleteIncident(ctx, ids["deleted"]); err != nil {
		t.Fatal(err)
	}
	return ids
}

// want is a figure's expected numbers, in minutes.
type want struct {
	median, p90, mean        float64
	recorded, total, invalid int
}

func checkStats(t *testing.T, where string, got models.Stats, w want) {
	t.Helper()
	near := func(a, b float64) bool { return math.Abs(a-b) < 0.001 }
	if got.Recorded != w.recorded || got.Total != w.total || got.Invalid != w.invalid {
		t.Errorf("%s %s: %d of %d recorded, %d invalid; want %d of %d, %d invalid",
			where, got.Figure, got.Recorded, got.Total, got.Invalid, w.recorded, w.total, w.invalid)
	}
	if got.N() == 0 {
		return
	}
	if !near(got.Median, w.median*60) || !near(got.P90, w.p90*60) || !near(got.Mean, w.mean*60) {
		t.Errorf("%s %s: median %.3f s, p90 %.3f s, mean %.3f s; want %.3f, %.3f, %.3f",
			where, got.Figure, got.Median, got.P90, got.Mean, w.median*60, w.p90*60, w.mean*60)
	}
}

func TestInsightsHandComputed(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		insightsFixture(t, s)
		got, err := s.Insights(ctx, models.InsightsFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Incidents != 7 {
			t.Fatalf("%d incidents, want 7 (the deleted one left out)", got.Incidents)
		}
		checkStats(t, "all", got.Figure(models.FigureDetect), want{30, 76, 40, 6, 7, 1})
		checkStats(t, "all", got.Figure(models.FigureAcknowledge), want{20, 35.5, 21.25, 4, 7, 0})
		checkStats(t, "all", got.Figure(models.FigureMitigate), want{60, 174, 615.0 / 7, 7, 7, 0})
		checkStats(t, "all", got.Figure(models.FigureResolve), want{150, 250, 147.5, 6, 7, 0})
		checkStats(t, "all", got.Figure(models.FigureImpact), want{47.5, 90, 325.0 / 6, 6, 7, 0})
		checkStats(t, "all", got.Figure(models.FigureFirstUpdate), want{25, 75, 212.0 / 6, 6, 7, 0})
		ttd := got.Figure(models.FigureDetect)
		if ttd.P25 != 20*60 || ttd.P75 != 40*60 || ttd.Min != 10*60 || ttd.Max != 100*60 {
			t.Errorf("TTD quartiles %v %v, range %v–%v", ttd.P25, ttd.P75, ttd.Min, ttd.Max)
		}
		// 10 and 20 min fall in 5–15 and 15–30 min; 30 in 30–60; 40 in 30–60; 100 in 1–2 h.
		if wantHist := []int{0, 0, 1, 1, 2, 1, 0, 0, 0, 0, 0, 0}; !slices.Equal(ttd.Histogram, wantHist) {
			t.Errorf("TTD histogram %v, want %v", ttd.Histogram, wantHist)
		}

		// The trend by month: January A, B; February C, D; March E, F, G.
		if len(got.Trend) != 3 {
			t.Fatalf("trend has %d months, want 3: %+v", len(got.Trend), got.Trend)
		}
		for n, w := range []struct {
			label     string
			incidents int
			ttd       want
		}{
			{"2026-01", 2, want{15, 19, 15, 2, 2, 0}},
			{"2026-02", 2, want{35, 39, 35, 2, 2, 0}},
			{"2026-03", 3, want{100, 100, 100, 2, 3, 1}},
		} {
			p := got.Trend[n]
			if p.Label != w.label || p.Incidents != w.incidents {
				t.Errorf("trend %d: %s with %d incidents, want %s with %d", n, p.Label, p.Incidents, w.label, w.incidents)
			}
			checkStats(t, p.Label, p.Figure(models.FigureDetect), w.ttd)
		}

		// By severity (the default grouping) and by detection method, always.
		groups := map[string]models.InsightGroup{}
		for _, g := range got.Groups {
			groups[g.Key] = g
		}
		checkStats(t, "sev1", groups["sev1"].Figure(models.FigureDetect), want{15, 19, 15, 2, 2, 0})
		checkStats(t, "sev3", groups["sev3"].Figure(models.FigureDetect), want{100, 100, 100, 1, 2, 0})
		checkStats(t, "sev4", groups["sev4"].Figure(models.FigureDetect), want{0, 0, 0, 1, 1, 1})
		methods := map[string]models.InsightGroup{}
		for _, g := range got.Detection {
			methods[g.Key] = g
		}
		if len(got.Detection) != 5 || methods["customer_report"].Incidents != 2 || methods[models.DetectionUnknown].Incidents != 1 {
			t.Errorf("detection methods: %+v", got.Detection)
		}
		checkStats(t, "customer reports", methods["customer_report"].Figure(models.FigureDetect), want{70, 94, 70, 2, 2, 0})

		// The slowest detections, slowest first, named; the invalid one listed apart.
		var slowest []string
		for _, r := range got.Slowest {
			slowest = append(slowest, r.Title+" "+r.TimeToDetect.String())
		}
		if w := []string{"Incident E 1h40m0s", "Incident D 40m0s", "Incident C 30m0s", "Incident B 20m0s", "Incident A 10m0s"}; !slices.Equal(slowest, w) {
			t.Errorf("slowest = %v, want %v", slowest, w)
		}
		if got.InvalidTotal != 1 || len(got.InvalidIncidents) != 1 || got.InvalidIncidents[0].Title != "Incident G" ||
			!slices.Equal(got.InvalidIncidents[0].Invalid, []string{models.FigureDetect}) {
			t.Errorf("invalid incidents: %d, %+v", got.InvalidTotal, got.InvalidIncidents)
		}

		if s.Dialect() == "postgres" {
			crossCheckWithPercentileCont(t, s, ttd)
		}
	})
}

// crossCheckWithPercentileCont asks PostgreSQL itself for the TTD median and p90, so the Go
// interpolation is proven against the definition DESIGN §2 names.
func crossCheckWithPercentileCont(t *testing.T, s *models.Store, ttd models.Stats) {
	t.Helper()
	db, err := s.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	var median, p90 sql.NullFloat64
	err = db.QueryRow(`SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY d), percentile_cont(0.9) WITHIN GROUP (ORDER BY d)
		FROM (SELECT EXTRACT(EPOCH FROM detected_at - started_at) AS d FROM incidents
			WHERE deleted_at IS NULL AND detected_at >= started_at) x`).Scan(&median, &p90)
	if err != nil {
		t.Fatal(err)
	}
	if median.Float64 != ttd.Median || p90.Float64 != ttd.P90 {
		t.Errorf("percentile_cont gives median %v, p90 %v; Go gives %v, %v", median.Float64, p90.Float64, ttd.Median, ttd.P90)
	}
}

func TestInsightsFilters(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		insightsFixture(t, s)
		from, to := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		cases := []struct {
			name      string
			filter    models.InsightsFilter
			incidents int
			ttd       want
		}{
			{"February", models.InsightsFilter{From: &from, To: &to}, 2, want{35, 39, 35, 2, 2, 0}},
			{"from March", models.InsightsFilter{From: &to}, 3, want{100, 100, 100, 2, 3, 1}},
			{"sev1", models.InsightsFilter{Severity: "sev1"}, 2, want{15, 19, 15, 2, 2, 0}},
			{"customer reports", models.InsightsFilter{DetectionMethod: "customer_report"}, 2, want{70, 94, 70, 2, 2, 0}},
			{"unknown method", models.InsightsFilter{DetectionMethod: models.DetectionUnknown}, 1, want{0, 0, 0, 0, 1, 0}},
			{"service API", models.InsightsFilter{Service: "API"}, 3, want{20, 28, 20, 3, 3, 0}},
			{"region US", models.InsightsFilter{Region: "US"}, 2, want{35, 39, 35, 2, 2, 0}},
			{"factor", models.InsightsFilter{Factor: "retry-amplification"}, 2, want{15, 19, 15, 2, 2, 0}},
			{"nothing", models.InsightsFilter{Region: "Mars"}, 0, want{0, 0, 0, 0, 0, 0}},
		}
		for _, tc := range cases {
			got, err := s.Insights(ctx, tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			if got.Incidents != tc.incidents {
				t.Errorf("%s: %d incidents, want %d", tc.name, got.Incidents, tc.incidents)
			}
			checkStats(t, tc.name, got.Figure(models.FigureDetect), tc.ttd)
		}

		// Grouped by service, an incident counts once per service; those with none are together.
		got, err := s.Insights(ctx, models.InsightsFilter{GroupBy: "service", KeepValues: 10})
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, g := range got.Groups {
			keys = append(keys, g.Key)
		}
		if !slices.Equal(keys, []string{"API", "Web", models.NoGroup}) {
			t.Fatalf("service groups %q", keys)
		}
		checkStats(t, "API", got.Groups[0].Figure(models.FigureDetect), want{20, 28, 20, 3, 3, 0})
		checkStats(t, "Web", got.Groups[1].Figure(models.FigureDetect), want{70, 94, 70, 2, 2, 0})
		if v := got.Groups[0].Figure(models.FigureDetect).Values; !slices.Equal(v, []int64{600, 1200, 1800}) {
			t.Errorf("API TTD values %v, want the three, ascending", v)
		}

		// By factor: A has two, B one; the other five have none.
		byFactor, err := s.Insights(ctx, models.InsightsFilter{GroupBy: "factor"})
		if err != nil {
			t.Fatal(err)
		}
		var factorGroups []string
		for _, g := range byFactor.Groups {
			factorGroups = append(factorGroups, fmt.Sprintf("%s:%d", g.Key, g.Incidents))
		}
		if w := []string{"Cold caches after restart:1", "Retry amplification:2", ":5"}; !slices.Equal(factorGroups, w) {
			t.Errorf("factor groups %q, want %q", factorGroups, w)
		}

		quarters, err := s.Insights(ctx, models.InsightsFilter{Interval: "quarter"})
		if err != nil {
			t.Fatal(err)
		}
		if len(quarters.Trend) != 1 || quarters.Trend[0].Label != "2026-Q1" || quarters.Trend[0].Incidents != 7 {
			t.Errorf("quarters: %+v", quarters.Trend)
		}
	})
}

// TestInsightsMatchIncidentFigures proves the aggregate path computes each incident's figures as
// the incident page does, on the sample incidents (seed 000's overlapping windows included).
func TestInsightsMatchIncidentFigures(t *testing.T) {
	s := storetest.SQLite(t)
	ctx := context.Background()
	ids := insightsFixture(t, s)
	for key, id := range ids {
		if key == "deleted" {
			continue
		}
		inc, err := s.GetIncident(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		m := models.ComputeMetrics(inc)
		// Filtering by the exact start picks this incident alone.
		to := inc.StartedAt.Add(time.Second)
		got, err := s.Insights(ctx, models.InsightsFilter{From: inc.StartedAt, To: &to, KeepValues: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, fig := range m.All() {
			if !slices.Contains(models.InsightFigures, fig.Name) {
				continue
			}
			st := got.Figure(fig.Name)
			if fig.Recorded != (st.Recorded == 1) || fig.Invalid != (st.Invalid == 1) {
				t.Errorf("%s %s: page recorded=%v invalid=%v, insights %d recorded %d invalid", key, fig.Name, fig.Recorded, fig.Invalid, st.Recorded, st.Invalid)
				continue
			}
			if st.N() == 1 && st.Median != fig.Value.Seconds() {
				t.Errorf("%s %s: page %v, insights %v s", key, fig.Name, fig.Value, st.Median)
			}
		}
	}
}

func TestOperationalCounts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		in := seed000(t)
		in.Status = "investigating"
		due := func(d string) *time.Time { return at(t, "UTC", d+" 00:00") }
		followUps := []models.FollowUpInput{
			{Title: "overdue", Kind: "prevent", Priority: "p1", Status: "open", DueOn: due("2026-03-31")},
			{Title: "overdue too", Kind: "prevent", Priority: "p2", Status: "in_progress", DueOn: due("2026-03-01")},
			{Title: "due today", Kind: "prevent", Priority: "p1", Status: "open", DueOn: due("2026-04-01")},
			{Title: "done late", Kind: "prevent", Priority: "p1", Status: "done", DueOn: due("2026-03-01")},
			{Title: "no date", Kind: "prevent", Priority: "p1", Status: "open"},
		}
		if _, err := s.CreateIncident(ctx, in, models.Children{FollowUps: &followUps}); err != nil {
			t.Fatal(err)
		}
		resolved := seed000(t)
		gone, err := s.CreateIncident(ctx, resolved, models.Children{FollowUps: &followUps})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteIncident(ctx, gone.ID); err != nil {
			t.Fatal(err)
		}
		got, err := s.Operational(ctx, time.Date(2026, 4, 1, 15, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		if got.OpenIncidents["sev2"] != 1 || got.OpenIncidents["sev1"] != 0 || len(got.OpenIncidents) != 4 {
			t.Errorf("open incidents %v", got.OpenIncidents)
		}
		if got.OverdueFollowUps["p1"] != 1 || got.OverdueFollowUps["p2"] != 1 || got.OverdueFollowUps["p3"] != 0 {
			t.Errorf("overdue follow-ups %v", got.OverdueFollowUps)
		}
	})
}

// enrich gives every incident that storetest.Fill made two public status updates, a private alert
// and an impact window, and every third one a second, open window: insights then read real joins.
func enrich(b testing.TB, s *models.Store) {
	b.Helper()
	db, err := s.SQLDB()
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO timeline_events (incident_id, at, kind, status, body, public, created_at, updated_at)
			SELECT id, detected_at, 'status_update', 'investigating', 'Investigating.', TRUE, created_at, created_at FROM incidents`,
		`INSERT INTO timeline_events (incident_id, at, kind, status, body, public, created_at, updated_at)
			SELECT id, resolved_at, 'status_update', 'resolved', 'Resolved.', TRUE, created_at, created_at FROM incidents`,
		`INSERT INTO timeline_events (incident_id, at, kind, status, body, public, created_at, updated_at)
			SELECT id, started_at, 'alert', '', 'Error rate alert.', FALSE, created_at, created_at FROM incidents`,
		`INSERT INTO impact_windows (incident_id, started_at, ended_at, level, note, created_at, updated_at)
			SELECT id, started_at, resolved_at, 'degraded', '', created_at, created_at FROM incidents`,
		`INSERT INTO impact_windows (incident_id, started_at, ended_at, level, note, created_at, updated_at)
			SELECT id, detected_at, NULL, 'major_outage', '', created_at, created_at FROM incidents WHERE id % 3 = 0`,
		`ANALYZE`,
	} {
		if _, err := db.Exec(q); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInsights100k aggregates 100,000 incidents with 300,000 timeline events and 133,000
// impact windows: the store's share of the insights page, on SQLite. "uncached" computes without
// the cache, "cold" is the first request after a write (the write itself not timed), "warm" a
// request served from the cache. cpu-ms/op is this process's CPU time per request, all threads.
func BenchmarkInsights100k(b *testing.B) { benchmarkInsights(b, storetest.SQLite(b)) }

// BenchmarkInsights100kPostgres is the same on PostgreSQL, when HINDSIGHT_TEST_POSTGRES_URL is set
// (cpu-ms/op then leaves out the server's share).
func BenchmarkInsights100kPostgres(b *testing.B) { benchmarkInsights(b, storetest.Postgres(b)) }

func benchmarkInsights(b *testing.B, s *models.Store) {
	storetest.Fill(b, s, 100000)
	enrich(b, s)
	db, err := s.SQLDB()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	write := func(b *testing.B) {
		if _, err := db.Exec("UPDATE incidents SET resolved_at = resolved_at WHERE id = 1"); err != nil {
			b.Fatal(err)
		}
	}
	for _, groupBy := range []string{"severity", "service"} {
		f := models.InsightsFilter{GroupBy: groupBy, KeepValues: models.StripPlotLimit}
		insights := func(get func(context.Context, models.InsightsFilter) (*models.Insights, error)) func(*testing.B) {
			return func(b *testing.B) {
				if _, err := get(ctx, f); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.Run(groupBy+"/uncached", func(b *testing.B) { loopWithCPU(b, nil, insights(s.ComputeInsights)) })
		b.Run(groupBy+"/cold", func(b *testing.B) { loopWithCPU(b, write, insights(s.Insights)) })
		b.Run(groupBy+"/warm", func(b *testing.B) { loopWithCPU(b, nil, insights(s.Insights)) })
	}
}

// TestInsightsReadsUnusualIncidentsExactly covers what the packed query cannot carry: an incident
// with no start whose open window runs to mitigation, and a detection typed 36 years late.
func TestInsightsReadsUnusualIncidentsExactly(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		create := func(title string, m models.Milestones, windows []models.WindowInput) {
			in := models.IncidentInput{Title: title, Severity: "sev3", Status: "resolved", TimeZone: "UTC", PostmortemState: "none", Milestones: m}
			if _, err := s.CreateIncident(ctx, in, models.Children{ImpactWindows: &windows}); err != nil {
				t.Fatal(err)
			}
		}
		create("no start", models.Milestones{MitigatedAt: at(t, "UTC", "2026-03-01 12:00")},
			[]models.WindowInput{{StartedAt: *at(t, "UTC", "2026-03-01 10:00"), Level: "degraded"}})
		create("typo", models.Milestones{StartedAt: at(t, "UTC", "2026-03-02 10:00"), DetectedAt: at(t, "UTC", "2062-03-02 10:00"),
			AcknowledgedAt: at(t, "UTC", "2026-03-02 10:05")}, nil)
		got, err := s.Insights(ctx, models.InsightsFilter{})
		if err != nil {
			t.Fatal(err)
		}
		checkStats(t, "no start", got.Figure(models.FigureImpact), want{120, 120, 120, 1, 2, 0})
		checkStats(t, "no start", got.Figure(models.FigureMitigate), want{0, 0, 0, 0, 2, 0})
		checkStats(t, "typo", got.Figure(models.FigureAcknowledge), want{5, 5, 5, 1, 2, 0})
		years36 := float64(time.Date(2062, 3, 2, 10, 0, 0, 0, time.UTC).Sub(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)) / time.Minute)
		checkStats(t, "typo", got.Figure(models.FigureDetect), want{years36, years36, years36, 1, 2, 0})
	})
}

// TestInsightsQueriesUseTheirIndexes proves each read of the insights is served by its index of
// migration 00002, in index order: on SQLite the covering expression indexes hand over Unix
// seconds without parsing a date per row, and no read sorts.
func TestInsightsQueriesUseTheirIndexes(t *testing.T) {
	s := storetest.SQLite(t)
	storetest.Fill(t, s, 200)
	from := time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, f := range []models.InsightsFilter{{}, {Severity: "sev1", From: &from}} {
		plans, err := s.ExplainInsights(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		for name, index := range map[string]string{
			"incidents":            "USING INDEX incidents_insights_idx",
			"first public updates": "USING INDEX timeline_events_public_updates_idx",
			"impact windows":       "USING COVERING INDEX impact_windows_insights_idx",
		} {
			if plan := plans[name]; !strings.Contains(plan, index) || strings.Contains(plan, "TEMP B-TREE") {
				t.Errorf("%+v: %s plan does not read %s in order:\n%s", f, name, index, plan)
			}
		}
	}
}

func TestInsightsQueriesOnPostgres(t *testing.T) {
	s := storetest.Postgres(t)
	storetest.Fill(t, s, 200)
	plans, err := s.ExplainInsights(context.Background(), models.InsightsFilter{Severity: "sev2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) != 3 {
		t.Errorf("plans %v", plans)
	}
}
