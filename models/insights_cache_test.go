package models_test

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// TestInsightsCache proves a repeated request runs one statement, the counter read, and gets the
// same numbers; and that a write through the store is seen by the next request, whose numbers
// match a computation from scratch.
func TestInsightsCache(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		ids := insightsFixture(t, s)
		f := models.InsightsFilter{GroupBy: "service", KeepValues: models.StripPlotLimit}
		first, err := s.Insights(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		before := s.Statements()
		second, err := s.Insights(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if n := s.Statements() - before; n != 1 {
			t.Errorf("a cached request ran %d statements, want 1 (the counter read)", n)
		}
		if !reflect.DeepEqual(first, second) {
			t.Error("the cached result differs from the first")
		}

		// Incident E has no public update yet: one at +60 min makes its first-update figure.
		startE := first.Figure(models.FigureFirstUpdate)
		event := models.EventInput{At: *at(t, "UTC", "2026-03-01 11:00"), Kind: "status_update", Status: "investigating", Public: true}
		if _, err := s.CreateEvent(ctx, ids["E"], event); err != nil {
			t.Fatal(err)
		}
		before = s.Statements()
		third, err := s.Insights(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if n := s.Statements() - before; n < 4 {
			t.Errorf("the request after a write ran %d statements: not recomputed", n)
		}
		if got := third.Figure(models.FigureFirstUpdate); got.Recorded != startE.Recorded+1 || got.Max != 100*60 {
			t.Errorf("first public update after the write: %d recorded, max %v s; want %d, %v", got.Recorded, got.Max, startE.Recorded+1, 100*60)
		}
		fresh, err := s.ComputeInsights(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(third, fresh) {
			t.Error("the recomputed result differs from a computation from scratch")
		}
	})
}

// TestInsightsCacheServesShorterLists proves that the one result kept for a filter answers
// requests for fewer kept values and shorter incident lists exactly as computing them would.
func TestInsightsCacheServesShorterLists(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		insightsFixture(t, s)
		if err := s.WarmInsights(ctx); err != nil {
			t.Fatal(err)
		}
		from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for _, f := range []models.InsightsFilter{
			{}, {KeepValues: 1}, {KeepValues: 2}, {KeepValues: models.StripPlotLimit}, {InvalidListed: 1}, {SlowestListed: 2},
			{GroupBy: "region", KeepValues: 1}, {From: &from, KeepValues: 3, InvalidListed: 1000, SlowestListed: 1000},
		} {
			before := s.Statements()
			cached, err := s.Insights(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if f.GroupBy == "" && f.From == nil && s.Statements()-before != 1 {
				t.Errorf("%+v: %d statements; the warm result should have served it", f, s.Statements()-before)
			}
			fresh, err := s.ComputeInsights(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cached, fresh) {
				t.Errorf("%+v: the cached answer differs from a computation", f)
			}
		}
	})
}

// TestInsightsCacheComputesOnceForConcurrentMisses sends requests for one filter at once after a
// write: together they run what one request after such a write runs, and a counter read each.
func TestInsightsCacheComputesOnceForConcurrentMisses(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		ids := insightsFixture(t, s)
		db, err := s.SQLDB()
		if err != nil {
			t.Fatal(err)
		}
		write := func() {
			t.Helper()
			if res, err := db.Exec("UPDATE incidents SET detected_at = detected_at WHERE id = $1", ids["A"]); err != nil {
				t.Fatal(err)
			} else if n, _ := res.RowsAffected(); n != 1 {
				t.Fatalf("the write changed %d rows", n)
			}
		}
		f := models.InsightsFilter{GroupBy: "factor"}
		if _, err := s.Insights(ctx, f); err != nil {
			t.Fatal(err)
		}
		write()
		before := s.Statements()
		if _, err := s.Insights(ctx, f); err != nil {
			t.Fatal(err)
		}
		one := s.Statements() - before
		write()
		const requests = 8
		results := make([]*models.Insights, requests)
		errs := make([]error, requests)
		before = s.Statements()
		var wg sync.WaitGroup
		for n := range requests {
			wg.Go(func() { results[n], errs[n] = s.Insights(ctx, f) })
		}
		wg.Wait()
		for n := range requests {
			if errs[n] != nil {
				t.Fatal(errs[n])
			}
			if results[n].Incidents != 7 {
				t.Errorf("request %d: %d incidents", n, results[n].Incidents)
			}
		}
		if got, want := s.Statements()-before, one+requests-1; got != want {
			t.Errorf("%d concurrent requests ran %d statements; one request after a write (%d) and a counter read for each other make %d", requests, got, one, want)
		}
	})
}

// TestInsightsCacheAcrossStores opens two stores on one database, as two server processes or a
// server and the CLI would, and proves a write through one invalidates the other's cache.
func TestInsightsCacheAcrossStores(t *testing.T) {
	storetest.EachShared(t, func(t *testing.T, open func() *models.Store) {
		ctx := context.Background()
		a, b := open(), open()
		insightsFixture(t, a)
		f := models.InsightsFilter{KeepValues: models.StripPlotLimit}
		for _, s := range []*models.Store{a, b} {
			if got, err := s.Insights(ctx, f); err != nil || got.Incidents != 7 {
				t.Fatalf("before: %v incidents, %v", got, err)
			}
		}
		before := b.Statements()
		if _, err := b.Insights(ctx, f); err != nil {
			t.Fatal(err)
		}
		if n := b.Statements() - before; n != 1 {
			t.Fatalf("B's cached request ran %d statements, want 1", n)
		}

		in := models.IncidentInput{Title: "Through A", Severity: "sev1", Status: "resolved", TimeZone: "UTC", PostmortemState: "none",
			Milestones: models.Milestones{StartedAt: at(t, "UTC", "2026-04-01 10:00"), DetectedAt: at(t, "UTC", "2026-04-01 10:30")}}
		if _, err := a.CreateIncident(ctx, in, models.Children{}); err != nil {
			t.Fatal(err)
		}
		got, err := b.Insights(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if got.Incidents != 8 {
			t.Errorf("B after A's write: %d incidents, want 8", got.Incidents)
		}
		if st := got.Figure(models.FigureDetect); st.Recorded != 7 || st.Max != 100*60 {
			t.Errorf("B after A's write: time to detect %d recorded, max %v s", st.Recorded, st.Max)
		}
		fresh, err := b.ComputeInsights(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, fresh) {
			t.Error("B's answer after A's write differs from a computation from scratch")
		}
	})
}

// TestInsightsCacheIsBounded asks for more filters than the cache keeps: the least recently used
// is computed again, the most recent is still served from the cache.
func TestInsightsCacheIsBounded(t *testing.T) {
	s := storetest.SQLite(t)
	ctx := context.Background()
	insightsFixture(t, s)
	filter := func(n int) models.InsightsFilter {
		from := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, n)
		return models.InsightsFilter{From: &from}
	}
	statements := func(n int) int64 {
		t.Helper()
		before := s.Statements()
		if _, err := s.Insights(ctx, filter(n)); err != nil {
			t.Fatal(err)
		}
		return s.Statements() - before
	}
	const filters = 70
	for n := range filters {
		statements(n)
	}
	if got := statements(filters - 1); got != 1 {
		t.Errorf("the newest filter ran %d statements, want 1", got)
	}
	if got := statements(0); got == 1 {
		t.Error("the oldest of 70 filters was still cached; the cache is not bounded")
	}
}

// loopWithCPU runs op for the benchmark, and before it, when set, outside the timers; it reports
// the CPU time op took beside the wall time, which on a shared machine depends less on what else
// is running. Without before, op runs once untimed first, so a warm loop is warm from the start.
func loopWithCPU(b *testing.B, before, op func(*testing.B)) {
	b.ReportAllocs()
	if before == nil {
		op(b)
	}
	var cpu time.Duration
	for b.Loop() {
		if before != nil {
			b.StopTimer()
			before(b)
			b.StartTimer()
		}
		start := storetest.CPUTime(b)
		op(b)
		cpu += storetest.CPUTime(b) - start
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
