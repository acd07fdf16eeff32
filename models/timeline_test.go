package models_test

import (
	"context"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// TestNotesAreNeverPublic: a note asked for as public is refused by validation and kept internal
// by the store, whichever way it arrives.
func TestNotesAreNeverPublic(t *testing.T) {
	note := models.EventInput{At: time.Date(2026, 3, 12, 17, 10, 0, 0, time.UTC), Kind: "note", Body: "INTERNAL: Customer ACME escalated", Public: true}
	if got := models.ValidateEvent(note).For("public"); got != models.NotePublicMessage {
		t.Errorf("validate a public note: %q", got)
	}
	update := note
	update.Kind, update.Status = "status_update", "investigating"
	if errs := models.ValidateEvent(update); len(errs) != 0 {
		t.Errorf("a public status update is refused: %v", errs)
	}
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		in := seed000(t)
		in.Public = true
		inc, err := s.CreateIncident(ctx, in, models.Children{Timeline: &[]models.EventInput{
			{At: *at(t, "UTC", "2026-03-12 16:39"), Kind: "status_update", Status: "investigating", Body: "Looking into it.", Public: true},
		}})
		if err != nil {
			t.Fatal(err)
		}
		ev, err := s.CreateEvent(ctx, inc.ID, note)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.UpdateEvent(ctx, inc.ID, inc.Timeline[0].ID, models.EventInput{At: inc.Timeline[0].At, Kind: "note", Body: "now a note", Public: true}); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetIncident(ctx, inc.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range got.Timeline {
			if e.Kind == "note" && e.Public {
				t.Errorf("note %d (%q) is public", e.ID, e.Body)
			}
		}
		public, err := s.PublicIncident(ctx, inc.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range public.Timeline {
			if e.ID == ev.ID || e.Kind == "note" {
				t.Errorf("the status page shows note %d %q", e.ID, e.Body)
			}
		}
	})
}

// TestStatusBefore pins the "Status posted" default: the status of the latest status update at
// or before the time, the latest of all when the time is unknown, investigating without any.
func TestStatusBefore(t *testing.T) {
	ts := func(v string) *time.Time { return at(t, "UTC", v) }
	inc := &models.Incident{Status: "resolved", Timeline: []models.TimelineEvent{
		{ID: 1, At: *ts("2026-03-12 16:39"), Kind: "status_update", Status: "investigating"},
		{ID: 2, At: *ts("2026-03-12 17:00"), Kind: "action"},
		{ID: 3, At: *ts("2026-03-12 18:11"), Kind: "status_update", Status: "monitoring"},
		{ID: 4, At: *ts("2026-03-12 18:11"), Kind: "status_update", Status: "identified"},
		{ID: 5, At: *ts("2026-03-12 18:28"), Kind: "status_update", Status: "resolved"},
		{ID: 6, At: *ts("2026-03-16 07:06"), Kind: "note"},
	}}
	for _, c := range []struct {
		at   *time.Time
		want string
	}{
		{nil, "resolved"},
		{ts("2026-03-12 16:00"), "investigating"}, // before every update
		{ts("2026-03-12 16:39"), "investigating"}, // at an update: that one
		{ts("2026-03-12 17:30"), "investigating"}, // an action in between changes nothing
		{ts("2026-03-12 18:11"), "identified"},    // two at once: the one added last
		{ts("2026-03-12 18:20"), "identified"},
		{ts("2026-03-20 09:00"), "resolved"},
	} {
		if got := inc.StatusBefore(c.at); got != c.want {
			t.Errorf("StatusBefore(%v) = %q, want %q", c.at, got, c.want)
		}
	}
	if got := (&models.Incident{Status: "resolved"}).StatusBefore(nil); got != "investigating" {
		t.Errorf("no updates: %q, want investigating", got)
	}
}
