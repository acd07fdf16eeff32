package web_test

import (
	"context"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// BenchmarkFollowUpsAtScale measures the pages and queries over 100,000 incidents and
// 300,000 follow-ups (HINDSIGHT_BENCH_INCIDENTS changes the size). Filling takes a few minutes;
// HINDSIGHT_BENCH_CACHE keeps the filled database for the next run.
func BenchmarkFollowUpsAtScale(b *testing.B) {
	size, key, fill := storetest.AtScale(b)
	start := time.Now()
	store := storetest.SQLiteFilled(b, key, fill)
	a := benchAppOn(b, store)
	b.Logf("%d incidents and %d follow-ups ready in %s", size, 3*size, time.Since(start).Round(time.Second))
	ctx := context.Background()
	b.Run("follow-ups-page-filtered", func(b *testing.B) { serveWithCPU(b, a, nil, "/follow-ups?status=open&priority=p1&page=3") })
	b.Run("follow-ups-page-overdue-by-owner", func(b *testing.B) { serveWithCPU(b, a, nil, "/follow-ups?due=overdue&owner=Gateway+team") })
	b.Run("follow-ups-page-by-factor", func(b *testing.B) { serveWithCPU(b, a, nil, "/follow-ups?factor=retry-amplification") })
	b.Run("recurrence-report", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := a.store.Recurrence(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("recurrence-page", func(b *testing.B) { serve(b, a, "/recurrence") })
	inc, err := a.store.GetIncident(ctx, int64(size/2))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("similar-incidents", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, err := a.store.SimilarIncidents(ctx, models.SimilarQuery{
				ExcludeID: inc.ID, Before: inc.StartedAt, Text: "Elevated errors: requests failed for a subset of customers after a cache rollout",
				Services: inc.ServiceNames(), Factors: inc.FactorSlugs(),
			}, 5)
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("search", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := a.store.Search(ctx, "latency alert", 30); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("search-page", func(b *testing.B) { serve(b, a, "/search?q=retry+budget") })
}
