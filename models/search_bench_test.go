package models_test

import (
	"context"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// searchBenchQueries mix words that match tens of thousands of rows with rarer ones and one
// pair that matches nothing, since each stresses a different part of the search.
var searchBenchQueries = []string{"latency alert", "retry budget", "cache", "failover runbook", "replication lag"}

// BenchmarkSearchAtScale measures Search and SimilarIncidents over 100,000 incidents and
// 300,000 follow-ups (HINDSIGHT_BENCH_INCIDENTS changes the size) on SQLite and, when
// HINDSIGHT_TEST_POSTGRES_URL is set, on PostgreSQL. With HINDSIGHT_BENCH_CACHE set, the filled
// SQLite file is kept there and the filled PostgreSQL database is kept on the server, so that
// only the first run spends minutes filling.
func BenchmarkSearchAtScale(b *testing.B) {
	size, key, fill := storetest.AtScale(b)
	b.Run("sqlite", func(b *testing.B) {
		benchSearch(b, storetest.SQLiteFilled(b, key, fill), size)
	})
	b.Run("postgres", func(b *testing.B) {
		benchSearch(b, storetest.PostgresFilled(b, key, fill), size)
	})
}

func benchSearch(b *testing.B, s *models.Store, size int) {
	ctx := context.Background()
	for _, q := range searchBenchQueries {
		b.Run("search/"+q, func(b *testing.B) {
			b.ReportAllocs()
			cpu := storetest.CPUTime(b)
			for b.Loop() {
				if _, err := s.Search(ctx, q, 30); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
		})
	}
	inc, err := s.GetIncident(ctx, int64(size/2))
	if err != nil {
		b.Fatal(err)
	}
	for name, text := range map[string]string{
		"draft":    "Elevated errors: requests failed for a subset of customers after a cache rollout",
		"incident": inc.Title + " " + inc.Summary,
	} {
		b.Run("similar/"+name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := storetest.CPUTime(b)
			for b.Loop() {
				_, err := s.SimilarIncidents(ctx, models.SimilarQuery{
					ExcludeID: inc.ID, Before: inc.StartedAt, Text: text,
					Services: inc.ServiceNames(), Factors: inc.FactorSlugs(),
				}, 5)
				if err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
		})
	}
}

func reportCPU(b *testing.B, since time.Duration) {
	b.ReportMetric(float64((storetest.CPUTime(b)-since).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
