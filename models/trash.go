package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// TrashDays is how long a deleted incident can be restored. A deleted incident is only ever
// soft-deleted (its row, timeline, impact windows, follow-ups, tags and links all stay); past
// TrashDays it leaves the Trash and can no longer be restored, but it stays in the database,
// hidden, with its history: nothing purges it.
const TrashDays = 30

// ActionRestore names a record brought back after a delete in history.
const ActionRestore = "restore"

// TrashedIncident is a deleted incident as the Trash lists it: who deleted it and when.
type TrashedIncident struct {
	ID              int64
	Title           string
	Severity        string
	Status          string
	Public          bool
	Postmortem      string
	DeletedAt       time.Time
	DeletedBy       string // the actor of the delete's history entry; "" when none was recorded
	RestorableUntil time.Time
}

// trashCutoff is the earliest deletion that can still be restored at now.
func trashCutoff(now time.Time) time.Time { return now.UTC().Add(-TrashDays * 24 * time.Hour) }

// ListTrash lists the incidents deleted within TrashDays of now, most recently deleted first, in
// two statements: the incidents, then their delete entries in history.
func (s *Store) ListTrash(ctx context.Context, now time.Time) ([]TrashedIncident, error) {
	return s.trash(ctx, now, 0)
}

// TrashedIncidentByID returns one incident of the Trash, or ErrNotFound when the incident is live,
// was never deleted, or was deleted more than TrashDays before now.
func (s *Store) TrashedIncidentByID(ctx context.Context, id int64, now time.Time) (*TrashedIncident, error) {
	list, err := s.trash(ctx, now, id)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("incident %d in the trash: %w", id, ErrNotFound)
	}
	return &list[0], nil
}

// trash reads the Trash, or only incident id when it is not 0.
func (s *Store) trash(ctx context.Context, now time.Time, id int64) ([]TrashedIncident, error) {
	db := s.read.WithContext(ctx)
	q := db.Unscoped().Omit(clause.Associations).Where("deleted_at IS NOT NULL AND deleted_at >= ?", trashCutoff(now))
	if id != 0 {
		q = q.Where("id = ?", id)
	}
	var rows []Incident
	err := q.Order("deleted_at DESC, id DESC").Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("list the trash: %w", err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(rows))
	for n := range rows {
		ids[n] = rows[n].ID
	}
	var entries []AuditEntry
	err = db.Where("entity = ? AND action = ? AND entity_id IN ?", EntityIncident, ActionDelete, ids).
		Order("at, id").Find(&entries).Error
	if err != nil {
		return nil, fmt.Errorf("read who deleted the trashed incidents: %w", err)
	}
	by := map[int64]string{}
	for _, e := range entries {
		by[e.EntityID] = e.Actor // the latest delete wins: an incident restored and deleted again
	}
	out := make([]TrashedIncident, len(rows))
	for n, inc := range rows {
		deleted := inc.DeletedAt.Time.UTC()
		out[n] = TrashedIncident{
			ID: inc.ID, Title: inc.Title, Severity: inc.Severity, Status: inc.Status, Public: inc.Public,
			Postmortem: inc.PostmortemState, DeletedAt: deleted, DeletedBy: by[inc.ID],
			RestorableUntil: deleted.Add(TrashDays * 24 * time.Hour),
		}
	}
	return out, nil
}

// RestoreIncident brings a deleted incident back from the Trash as it was: delete only set its
// deleted_at, so clearing it returns the incident with its timeline, impact windows,
// follow-ups, tags and links, and its version and updated_at unchanged. The write path
// records the incident as changed and writes its recurrence copies again. An incident deleted more than TrashDays before now,
// or not deleted, is ErrNotFound.
func (s *Store) RestoreIncident(ctx context.Context, id int64, now time.Time) error {
	return s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		c.row(id, true)
		c.recurrence(id)
		res := tx.Unscoped().Model(&Incident{}).
			Where("id = ? AND deleted_at IS NOT NULL AND deleted_at >= ?", id, trashCutoff(now)).
			UpdateColumn("deleted_at", nil)
		if res.Error != nil {
			return fmt.Errorf("restore incident %d: %w", id, res.Error)
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("incident %d in the trash: %w", id, ErrNotFound)
		}
		return audit(tx, ActionRestore, EntityIncident, id, id, fields{"deleted": true}, fields{"deleted": false})
	})
}

// RestoreEvent puts back a timeline event deleted from a live incident, with its id, times and
// fields as they were, for an Undo.
func (s *Store) RestoreEvent(ctx context.Context, ev TimelineEvent) error {
	return s.withIncident(ctx, ev.IncidentID, false, func(tx *gorm.DB, c *changes) error {
		ev.Public = EventPublic(ev.Kind, ev.Public)
		if ev.readByInsights() {
			c.insights(ev.IncidentID)
		}
		if err := notThere(tx, &TimelineEvent{}, ev.ID, "timeline event"); err != nil {
			return err
		}
		if err := tx.Create(&ev).Error; err != nil {
			return fmt.Errorf("restore timeline event %d: %w", ev.ID, err)
		}
		return audit(tx, ActionRestore, EntityEvent, ev.ID, ev.IncidentID, nil, eventFields(&ev))
	})
}

// RestoreWindow puts back an impact window deleted from a live incident, services and all.
func (s *Store) RestoreWindow(ctx context.Context, w ImpactWindow) error {
	return s.withIncident(ctx, w.IncidentID, true, func(tx *gorm.DB, _ *changes) error {
		services := w.ServiceNames()
		w.Services = nil
		if err := notThere(tx, &ImpactWindow{}, w.ID, "impact window"); err != nil {
			return err
		}
		if err := tx.Omit(clause.Associations).Create(&w).Error; err != nil {
			return fmt.Errorf("restore impact window %d: %w", w.ID, err)
		}
		if err := setWindowServices(tx, w.ID, services); err != nil {
			return err
		}
		return audit(tx, ActionRestore, EntityWindow, w.ID, w.IncidentID, nil, windowFields(&w, services))
	})
}

// RestoreFollowUp puts back a follow-up deleted from a live incident, with its version, done
// date and factors. A factor removed from the taxonomy since is left off rather than failing the
// Undo.
func (s *Store) RestoreFollowUp(ctx context.Context, f FollowUp) error {
	return s.withIncident(ctx, f.IncidentID, false, func(tx *gorm.DB, _ *changes) error {
		slugs := f.FactorSlugs()
		f.Factors, f.Incident = nil, nil
		if err := notThere(tx, &FollowUp{}, f.ID, "follow-up"); err != nil {
			return err
		}
		if err := tx.Omit(clause.Associations).Create(&f).Error; err != nil {
			return fmt.Errorf("restore follow-up %d: %w", f.ID, err)
		}
		var known []string
		if err := tx.Model(&Factor{}).Where("slug IN ?", nonNilNames(slugs)).Pluck("slug", &known).Error; err != nil {
			return fmt.Errorf("restore follow-up %d factors: %w", f.ID, err)
		}
		if err := setFollowUpFactors(tx, f.ID, known); err != nil {
			return err
		}
		return audit(tx, ActionRestore, EntityFollowUp, f.ID, f.IncidentID, nil, followUpFields(&f, known))
	})
}

// notThere refuses to restore a record whose id is taken: it was restored already.
func notThere(tx *gorm.DB, model any, id int64, what string) error {
	var n int64
	if err := tx.Model(model).Where("id = ?", id).Count(&n).Error; err != nil {
		return fmt.Errorf("find %s %d: %w", what, id, err)
	}
	if n > 0 {
		return fmt.Errorf("%s %d is back already: %w", what, id, ErrConflict)
	}
	return nil
}
