package models_test

import (
	"context"
	"testing"

	"hindsight/models"
	"hindsight/models/storetest"
)

// BenchmarkListCountsAtScale measures the totals kept in memory (list_counts.go) over 100,000
// incidents and 300,000 follow-ups (HINDSIGHT_BENCH_INCIDENTS changes the size): read whole, as
// the first read after a start or a restore does, and brought up to date after one incident
// changed, as every read after a write does.
func BenchmarkListCountsAtScale(b *testing.B) {
	_, key, fill := storetest.AtScale(b)
	b.Run("sqlite", func(b *testing.B) { benchListCounts(b, storetest.SQLiteFilled(b, key, fill)) })
	b.Run("postgres", func(b *testing.B) { benchListCounts(b, storetest.PostgresFilled(b, key, fill)) })
}

func benchListCounts(b *testing.B, s *models.Store) {
	ctx := context.Background()
	f := models.FollowUpFilter{Status: "open", Priority: "p1", Limit: 1}
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			s.ForgetCounts()
			if _, _, err := s.ListFollowUps(ctx, f); err != nil {
				b.Fatal(err)
			}
		}
	})
	inc, err := s.GetIncident(ctx, 7)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("after-one-change", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			if _, err := s.CreateFollowUp(ctx, inc.ID, models.FollowUpInput{Title: "Check the pool", Kind: "detect", Priority: "p1", Status: "open"}); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, _, err := s.ListFollowUps(ctx, f); err != nil {
				b.Fatal(err)
			}
		}
	})
}
