package models_test

import (
	"context"
	"strconv"
	"testing"

	"hindsight/models"
	"hindsight/models/storetest"
)

// BenchmarkRecurrenceAtScale measures the recurrence report over 100,000 incidents and 300,000
// follow-ups (HINDSIGHT_BENCH_INCIDENTS changes the size) on SQLite and, when
// HINDSIGHT_TEST_POSTGRES_URL is set, on PostgreSQL, listing as many incidents per factor as the
// page (10), the API by default (100) and the API at most (1000). With HINDSIGHT_BENCH_CACHE set,
// the filled SQLite file is kept there and the filled PostgreSQL database on the server.
func BenchmarkRecurrenceAtScale(b *testing.B) {
	_, key, fill := storetest.AtScale(b)
	b.Run("sqlite", func(b *testing.B) {
		benchRecurrence(b, storetest.SQLiteFilled(b, key, fill))
	})
	b.Run("postgres", func(b *testing.B) {
		benchRecurrence(b, storetest.PostgresFilled(b, key, fill))
	})
}

func benchRecurrence(b *testing.B, s *models.Store) {
	ctx := context.Background()
	for _, listed := range []int{10, models.RecurrenceListed, models.RecurrenceMaxListed} {
		b.Run("listed-"+strconv.Itoa(listed), func(b *testing.B) {
			b.ReportAllocs()
			before := s.Statements()
			for b.Loop() {
				if _, err := s.RecurrenceListing(ctx, listed); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(s.Statements()-before)/float64(b.N), "statements/op")
		})
	}
}
