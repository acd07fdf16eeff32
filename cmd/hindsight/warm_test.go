package main

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// TestWarmUpWarmsInsights proves the start-up warm-up, which /readyz waits for, leaves the
// default insights in the cache: the insights page's first request then reads only the change
// counter.
func TestWarmUpWarmsInsights(t *testing.T) {
	store := storetest.SQLite(t)
	storetest.Fill(t, store, 200)
	ctx := context.Background()
	select {
	case <-warmUp(ctx, store, slog.New(slog.NewTextHandler(io.Discard, nil))):
	case <-time.After(30 * time.Second):
		t.Fatal("the warm-up did not finish")
	}
	before := store.Statements()
	got, err := store.Insights(ctx, models.InsightsFilter{KeepValues: models.StripPlotLimit})
	if err != nil {
		t.Fatal(err)
	}
	if n := store.Statements() - before; n != 1 || got.Incidents != 200 {
		t.Errorf("first insights request after the warm-up: %d statements, %d incidents; want 1 statement, 200", n, got.Incidents)
	}
}
