package models_test

import (
	"context"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// TestIncidentRowCarriesItsLinks compares the links read with an incident's row (one JSON column
// of the row's statement) with the links read apart, from both ends, on both databases: the
// kind, the direction, the other incident's title, status and start (milestones are kept to the second), and
// that a link to a deleted incident is left out of both.
func TestIncidentRowCarriesItsLinks(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		started := time.Date(2026, 3, 12, 16, 0, 0, 250_000_000, time.UTC).Add(1500 * time.Nanosecond)
		create := func(title string, at *time.Time) int64 {
			t.Helper()
			in := models.IncidentInput{Title: title, Severity: "sev3", Status: "investigating", TimeZone: "UTC", PostmortemState: "none"}
			in.Milestones.StartedAt = at
			inc, err := s.CreateIncident(ctx, in, models.Children{})
			if err != nil {
				t.Fatal(err)
			}
			return inc.ID
		}
		a, b, c, gone := create("Checkout failing", nil), create("Card payments \"declined\"", &started), create("Checkout failing again", nil), create("Deleted", nil)
		for _, l := range []struct {
			from int64
			in   models.LinkInput
		}{{a, models.LinkInput{Kind: "related", IncidentID: b}}, {c, models.LinkInput{Kind: "recurrence_of", IncidentID: a}}, {a, models.LinkInput{Kind: "caused_by", IncidentID: gone}}} {
			if _, err := s.AddLink(ctx, l.from, l.in); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.DeleteIncident(ctx, gone); err != nil {
			t.Fatal(err)
		}
		for _, id := range []int64{a, b, c} {
			inc, err := s.GetIncident(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			apart, err := s.Links(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if len(inc.Links) != len(apart) || (id == a && len(apart) != 2) {
				t.Fatalf("incident %d: the row carries %d links, read apart %d: %+v / %+v", id, len(inc.Links), len(apart), inc.Links, apart)
			}
			for n, l := range apart {
				got := inc.Links[n]
				sameStart := (got.StartedAt == nil) == (l.StartedAt == nil) && (l.StartedAt == nil || got.StartedAt.Equal(*l.StartedAt))
				if got.LinkID != l.LinkID || got.Kind != l.Kind || got.Outgoing != l.Outgoing || got.OtherID != l.OtherID ||
					got.Title != l.Title || got.Status != l.Status || !sameStart {
					t.Errorf("incident %d link %d: the row says %+v, read apart %+v", id, n, got, l)
				}
			}
		}
		inc, err := s.GetIncident(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		if l := inc.Links[0]; l.OtherID != b || l.StartedAt == nil || !l.StartedAt.Equal(started.Truncate(time.Second)) {
			t.Errorf("the link to %d reads %+v, want its start %s", b, l, started)
		}
	})
}
