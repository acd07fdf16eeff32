package models_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// trashSample files seed 000 with a timeline, two impact windows, follow-ups tagged with factors
// and a link to another incident.
func trashSample(t *testing.T, ctx context.Context, s *models.Store) *models.Incident {
	t.Helper()
	other, err := s.CreateIncident(ctx, models.IncidentInput{Title: "Earlier cache outage", Severity: "sev3", Status: "resolved", TimeZone: "UTC", PostmortemState: "none"}, models.Children{})
	if err != nil {
		t.Fatal(err)
	}
	in := seed000(t)
	in.Public, in.Factors = true, []string{"cold-caches"}
	done := at(t, "UTC", "2026-03-20 10:00")
	due := at(t, "UTC", "2026-04-30 00:00")
	inc, err := s.CreateIncident(ctx, in, models.Children{
		Timeline: &[]models.EventInput{
			{At: *at(t, "UTC", "2026-03-12 16:39"), Kind: "status_update", Status: "investigating", Body: "Looking into it.", Public: true},
			{At: *at(t, "UTC", "2026-03-12 17:10"), Kind: "note", Body: "Customer ACME escalated."},
			{At: *at(t, "UTC", "2026-03-12 18:11"), Kind: "status_update", Status: "monitoring", Body: "Fix applied.", Public: true},
		},
		ImpactWindows: &[]models.WindowInput{
			{StartedAt: *at(t, "UTC", "2026-03-09 16:00"), EndedAt: at(t, "UTC", "2026-03-12 17:45"), Level: "degraded", Note: "Intermittent", Services: []string{"Orchestrator"}},
			{StartedAt: *at(t, "UTC", "2026-03-12 16:30"), EndedAt: at(t, "UTC", "2026-03-12 17:45"), Level: "major_outage", Services: []string{"Orchestrator", "Action Center"}},
		},
		FollowUps: &[]models.FollowUpInput{
			{Title: "Check cache readiness", Kind: "prevent", Priority: "p1", Status: "open", Owner: "Gateway team", DueOn: due, Factors: []string{"cold-caches"}},
			{Title: "Raise minimum capacity", Kind: "mitigate", Priority: "p1", Status: "done", DoneAt: done, Factors: []string{"capacity-headroom"}},
		},
		Links: &[]models.LinkInput{{Kind: "recurrence_of", IncidentID: other.ID}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// A change after creation, so the version and the follow-up's version are not the first.
	if err := s.UpdateFollowUp(ctx, inc.ID, inc.FollowUps[0].ID, 0, models.FollowUpInput{Title: "Check cache readiness first", Kind: "prevent", Priority: "p1", Status: "in_progress", Owner: "Gateway team", DueOn: due, Factors: []string{"cold-caches"}}); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetIncident(ctx, inc.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// comparable drops what a read fills in differently each time without the record changing.
func comparable(inc *models.Incident) models.Incident {
	c := *inc
	c.DeletedAt = inc.DeletedAt
	for n := range c.FollowUps {
		c.FollowUps[n].Incident = nil
	}
	return c
}

// TestTrashRestoresTheIncidentAsItWas deletes an incident and restores it from the Trash: the
// incident comes back whole, its version and updated_at untouched, and the Trash says who deleted
// it and when. Past TrashDays it can no longer be restored.
func TestTrashRestoresTheIncidentAsItWas(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := models.WithActor(context.Background(), models.Actor{Label: "admin@example.com"})
		before := trashSample(t, ctx, s)
		links, err := s.Links(ctx, before.ID)
		if err != nil || len(links) != 1 {
			t.Fatalf("links before = %v, %v", links, err)
		}
		deletedAround := time.Now().UTC()
		if err := s.DeleteIncident(ctx, before.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetIncident(ctx, before.ID); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("get a deleted incident: %v, want ErrNotFound", err)
		}
		list, _, err := s.ListIncidents(ctx, models.IncidentFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, inc := range list {
			if inc.ID == before.ID {
				t.Fatal("a deleted incident is still listed")
			}
		}

		trash, err := s.ListTrash(ctx, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if len(trash) != 1 || trash[0].ID != before.ID || trash[0].Title != before.Title || trash[0].DeletedBy != "admin@example.com" {
			t.Fatalf("trash = %+v", trash)
		}
		if d := trash[0].DeletedAt.Sub(deletedAround); d < -time.Minute || d > time.Minute {
			t.Errorf("deleted at %v, want about %v", trash[0].DeletedAt, deletedAround)
		}
		if want := trash[0].DeletedAt.Add(models.TrashDays * 24 * time.Hour); !trash[0].RestorableUntil.Equal(want) {
			t.Errorf("restorable until %v, want %v", trash[0].RestorableUntil, want)
		}
		// Past the 30 days it leaves the Trash and cannot come back.
		late := time.Now().Add((models.TrashDays*24 + 1) * time.Hour)
		if trash, err := s.ListTrash(ctx, late); err != nil || len(trash) != 0 {
			t.Errorf("trash after %d days = %+v, %v; want empty", models.TrashDays, trash, err)
		}
		if err := s.RestoreIncident(ctx, before.ID, late); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("restore after %d days: %v, want ErrNotFound", models.TrashDays, err)
		}

		if err := s.RestoreIncident(ctx, before.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		after, err := s.GetIncident(ctx, before.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(comparable(after), comparable(before)) {
			t.Errorf("restored incident differs:\n got %+v\nwant %+v", comparable(after), comparable(before))
		}
		if links, err := s.Links(ctx, before.ID); err != nil || len(links) != 1 {
			t.Errorf("links after restore = %v, %v", links, err)
		}
		if err := s.RestoreIncident(ctx, before.ID, time.Now()); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("restore a live incident: %v, want ErrNotFound", err)
		}
		if trash, err := s.ListTrash(ctx, time.Now()); err != nil || len(trash) != 0 {
			t.Errorf("trash after restore = %+v, %v", trash, err)
		}
		// The counts and lists kept by the write path follow the restore.
		list, total, err := s.ListIncidents(ctx, models.IncidentFilter{})
		if err != nil || total != 2 || len(list) != 2 {
			t.Errorf("list after restore: %d of %d, %v; want both incidents", len(list), total, err)
		}
		fus, counts, err := s.ListFollowUps(ctx, models.FollowUpFilter{})
		if err != nil || len(fus) != 2 || counts.Total != 2 {
			t.Errorf("follow-ups after restore: %d, counts %+v, %v", len(fus), counts, err)
		}
		history, err := s.History(ctx, before.ID)
		if err != nil || len(history) == 0 || history[0].Action != models.ActionRestore || history[0].Actor != "admin@example.com" {
			t.Errorf("latest history entry = %+v, %v; want the restore", history, err)
		}
	})
}

// TestRestoreChildrenAsTheyWere deletes a timeline entry, an impact window and a follow-up and
// puts each back from the copy an Undo keeps: the incident reads exactly as before.
func TestRestoreChildrenAsTheyWere(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		before := trashSample(t, ctx, s)
		ev, w, f := before.Timeline[2], before.ImpactWindows[1], before.FollowUps[0]
		if err := s.DeleteEvent(ctx, before.ID, ev.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteWindow(ctx, before.ID, w.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteFollowUp(ctx, before.ID, f.ID); err != nil {
			t.Fatal(err)
		}
		gone, err := s.GetIncident(ctx, before.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(gone.Timeline) != 2 || len(gone.ImpactWindows) != 1 || len(gone.FollowUps) != 1 {
			t.Fatalf("after deletes: %d events, %d windows, %d follow-ups", len(gone.Timeline), len(gone.ImpactWindows), len(gone.FollowUps))
		}
		if err := s.RestoreEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
		if err := s.RestoreWindow(ctx, w); err != nil {
			t.Fatal(err)
		}
		if err := s.RestoreFollowUp(ctx, f); err != nil {
			t.Fatal(err)
		}
		after, err := s.GetIncident(ctx, before.ID)
		if err != nil {
			t.Fatal(err)
		}
		a, b := comparable(after), comparable(before)
		a.UpdatedAt, b.UpdatedAt = time.Time{}, time.Time{} // each change touches the incident
		if !reflect.DeepEqual(a, b) {
			t.Errorf("after undo:\n got %+v\nwant %+v", a, b)
		}
		if err := s.RestoreEvent(ctx, ev); !errors.Is(err, models.ErrConflict) {
			t.Errorf("restore an entry twice: %v, want ErrConflict", err)
		}
	})
}
