package models_test

import (
	"context"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// TestIdleOutboxRoundsWriteNothing: a round of the subscribers' worker that finds nothing due
// (every write wakes one) claims nothing and runs no writing statement, on either database, so
// it never takes SQLite's one writer from the writes that woke it.
func TestIdleOutboxRoundsWriteNothing(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		if _, err := s.CreateIncident(ctx, models.IncidentInput{Title: "Queue backlog", Severity: "sev3", Status: "investigating", TimeZone: "UTC", PostmortemState: "none"}, models.Children{}); err != nil {
			t.Fatal(err)
		}
		before := s.LocalWrites()
		items, err := s.ClaimDeliveries(ctx, 50, time.Minute)
		if err != nil || len(items) != 0 {
			t.Fatalf("deliveries claimed from an empty outbox: %v, %v", items, err)
		}
		invitations, err := s.ClaimInvitations(ctx, 50, time.Minute)
		if err != nil || len(invitations) != 0 {
			t.Fatalf("invitations claimed with none queued: %v, %v", invitations, err)
		}
		if n := s.LocalWrites() - before; n != 0 {
			t.Errorf("an idle round ran %d writing statements, want 0", n)
		}
	})
}
