package models

import (
	"context"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// replaceChildren swaps the incident's nested records for the given ones, per kind present,
// through the one writer of nested records, and its outgoing links.
func (s *Store) replaceChildren(tx *gorm.DB, ch *changes, incidentID int64, c Children) error {
	h := newHistory(tx.Statement.Context)
	children := &childWriter{history: h, resolveOwners: true}
	if err := children.add(incidentID, c, true); err != nil {
		return err
	}
	if err := children.write(tx, ch); err != nil {
		return err
	}
	if c.Links != nil {
		ch.incident(incidentID)
		if err := replaceOutgoingLinks(tx, ch, incidentID, *c.Links); err != nil {
			return err
		}
	}
	return h.write(tx)
}

// deleteRow removes one nested record and records it in history.
func deleteRow(tx *gorm.DB, incidentID, id int64, model any, entity string, before fields) error {
	res := tx.Where("incident_id = ? AND id = ?", incidentID, id).Delete(model)
	if res.Error != nil {
		return fmt.Errorf("delete %s %d: %w", entity, id, res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("%s %d: %w", entity, id, ErrNotFound)
	}
	return audit(tx, ActionDelete, entity, id, incidentID, before, nil)
}

// loadChild reads one nested record that must belong to the incident.
func loadChild(tx *gorm.DB, incidentID, id int64, row any, what string) error {
	if err := tx.Where("incident_id = ? AND id = ?", incidentID, id).First(row).Error; err != nil {
		return notFound(err, fmt.Sprintf("%s %d", what, id))
	}
	return nil
}

// withIncident runs fn in a write transaction after checking the incident exists, moves the
// incident's updated_at and records it as changed; insights says whether what fn writes is read
// by the insights too (timeline entries and impact windows are, follow-ups are not).
func (s *Store) withIncident(ctx context.Context, incidentID int64, insights bool, fn func(tx *gorm.DB, c *changes) error) error {
	return s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		res := tx.Model(&Incident{}).Where("id = ?", incidentID).Update("updated_at", time.Now().UTC())
		if res.Error != nil {
			return fmt.Errorf("touch incident %d: %w", incidentID, res.Error)
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("incident %d: %w", incidentID, ErrNotFound)
		}
		if insights {
			c.insights(incidentID)
		} else {
			c.incident(incidentID)
		}
		return fn(tx, c)
	})
}

// updateChild overwrites one nested record that must belong to the incident.
func updateChild(tx *gorm.DB, incidentID, id int64, row any, what string) error {
	res := tx.Model(row).Where("incident_id = ? AND id = ?", incidentID, id).
		Select("*").Omit("id", "incident_id", "created_at", clause.Associations).Updates(row)
	if res.Error != nil {
		return fmt.Errorf("update %s %d: %w", what, id, res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("%s %d: %w", what, id, ErrNotFound)
	}
	return nil
}

// readByInsights says whether the insights read this entry: they read public status updates
// (the first one is when customers were told).
func (ev *TimelineEvent) readByInsights() bool { return ev.Kind == "status_update" && ev.Public }

func eventRow(incidentID int64, in EventInput) TimelineEvent {
	status := in.Status
	if in.Kind != "status_update" {
		status = ""
	}
	return TimelineEvent{IncidentID: incidentID, At: *utc(&in.At), Kind: in.Kind, Status: status, Body: in.Body, Public: EventPublic(in.Kind, in.Public)}
}

func insertEvent(tx *gorm.DB, incidentID int64, in EventInput) (*TimelineEvent, error) {
	ev := eventRow(incidentID, in)
	if err := tx.Create(&ev).Error; err != nil {
		return nil, fmt.Errorf("insert timeline event: %w", err)
	}
	return &ev, audit(tx, ActionCreate, EntityEvent, ev.ID, incidentID, nil, eventFields(&ev))
}

// CreateEvent adds a timeline event to an incident.
func (s *Store) CreateEvent(ctx context.Context, incidentID int64, in EventInput) (*TimelineEvent, error) {
	var ev *TimelineEvent
	err := s.withIncident(ctx, incidentID, false, func(tx *gorm.DB, c *changes) (err error) {
		if err := s.watchEntry(tx, c, incidentID, in); err != nil {
			return err
		}
		if err := checkTimelineRoom(tx, incidentID); err != nil {
			return err
		}
		if ev, err = insertEvent(tx, incidentID, in); err != nil {
			return err
		}
		if ev.readByInsights() {
			c.insights(incidentID)
		}
		return s.timelineCreated(tx, ev) // webhook events: outbox.go
	})
	return ev, err
}

// UpdateEvent changes a timeline event.
func (s *Store) UpdateEvent(ctx context.Context, incidentID, id int64, in EventInput) error {
	return s.withIncident(ctx, incidentID, false, func(tx *gorm.DB, c *changes) error {
		if err := s.watchEntry(tx, c, incidentID, in); err != nil {
			return err
		}
		var current TimelineEvent
		if err := loadChild(tx, incidentID, id, &current, "timeline event"); err != nil {
			return err
		}
		row := eventRow(incidentID, in)
		row.ID = id
		if current.readByInsights() || row.readByInsights() {
			c.insights(incidentID)
		}
		if err := updateChild(tx, incidentID, id, &row, "timeline event"); err != nil {
			return err
		}
		return audit(tx, ActionUpdate, EntityEvent, id, incidentID, eventFields(&current), eventFields(&row))
	})
}

// DeleteEvent removes a timeline event.
func (s *Store) DeleteEvent(ctx context.Context, incidentID, id int64) error {
	return s.withIncident(ctx, incidentID, false, func(tx *gorm.DB, c *changes) error {
		var current TimelineEvent
		if err := loadChild(tx, incidentID, id, &current, "timeline event"); err != nil {
			return err
		}
		if current.readByInsights() {
			c.insights(incidentID)
		}
		return deleteRow(tx, incidentID, id, &TimelineEvent{}, EntityEvent, eventFields(&current))
	})
}

func windowRow(incidentID int64, in WindowInput) ImpactWindow {
	return ImpactWindow{IncidentID: incidentID, StartedAt: *utc(&in.StartedAt), EndedAt: utc(in.EndedAt), Level: in.Level, Note: in.Note}
}

func insertWindow(tx *gorm.DB, incidentID int64, in WindowInput) (*ImpactWindow, error) {
	w := windowRow(incidentID, in)
	if err := tx.Omit(clause.Associations).Create(&w).Error; err != nil {
		return nil, fmt.Errorf("insert impact window: %w", err)
	}
	if err := setWindowServices(tx, w.ID, in.Services); err != nil {
		return nil, err
	}
	return &w, audit(tx, ActionCreate, EntityWindow, w.ID, incidentID, nil, windowFields(&w, uniqueNames(in.Services)))
}

func setWindowServices(tx *gorm.DB, windowID int64, names []string) error {
	ids, err := namedIDs(tx, "services", names)
	if err != nil {
		return err
	}
	return replaceLinks(tx, "impact_window_services", "impact_window_id", "service_id", windowID, ids)
}

// CreateWindow adds an impact window to an incident.
func (s *Store) CreateWindow(ctx context.Context, incidentID int64, in WindowInput) (*ImpactWindow, error) {
	var w *ImpactWindow
	err := s.withIncident(ctx, incidentID, true, func(tx *gorm.DB, _ *changes) (err error) {
		w, err = insertWindow(tx, incidentID, in)
		return err
	})
	return w, err
}

// UpdateWindow changes an impact window.
func (s *Store) UpdateWindow(ctx context.Context, incidentID, id int64, in WindowInput) error {
	return s.withIncident(ctx, incidentID, true, func(tx *gorm.DB, _ *changes) error {
		var current ImpactWindow
		if err := loadChild(tx.Preload("Services"), incidentID, id, &current, "impact window"); err != nil {
			return err
		}
		row := windowRow(incidentID, in)
		row.ID = id
		if err := updateChild(tx, incidentID, id, &row, "impact window"); err != nil {
			return err
		}
		if err := setWindowServices(tx, id, in.Services); err != nil {
			return err
		}
		return audit(tx, ActionUpdate, EntityWindow, id, incidentID, windowFields(&current, current.ServiceNames()), windowFields(&row, uniqueNames(in.Services)))
	})
}

// DeleteWindow removes an impact window.
func (s *Store) DeleteWindow(ctx context.Context, incidentID, id int64) error {
	return s.withIncident(ctx, incidentID, true, func(tx *gorm.DB, _ *changes) error {
		var current ImpactWindow
		if err := loadChild(tx.Preload("Services"), incidentID, id, &current, "impact window"); err != nil {
			return err
		}
		return deleteRow(tx, incidentID, id, &ImpactWindow{}, EntityWindow, windowFields(&current, current.ServiceNames()))
	})
}

func followUpRow(incidentID int64, in FollowUpInput, previous *FollowUp) FollowUp {
	f := FollowUp{
		IncidentID: incidentID, Title: in.Title, Description: in.Description, Kind: in.Kind,
		Priority: in.Priority, Owner: in.Owner, Status: in.Status,
		TrackerURL: in.TrackerURL, Verification: in.Verification, Version: 1,
	}
	if in.DueOn != nil {
		due := time.Date(in.DueOn.Year(), in.DueOn.Month(), in.DueOn.Day(), 0, 0, 0, 0, time.UTC)
		f.DueOn = &due
	}
	if in.Status == "done" {
		// Keep the first completion time across edits that leave it done.
		switch {
		case in.DoneAt != nil:
			f.DoneAt = utc(in.DoneAt)
		case previous != nil && previous.DoneAt != nil:
			f.DoneAt = previous.DoneAt
		default:
			now := time.Now().UTC().Truncate(time.Second)
			f.DoneAt = &now
		}
	}
	return f
}

func insertFollowUp(tx *gorm.DB, incidentID int64, in FollowUpInput) (*FollowUp, error) {
	f := followUpRow(incidentID, in, nil)
	if err := resolveOwner(tx, &f); err != nil {
		return nil, err
	}
	if err := tx.Omit(clause.Associations).Create(&f).Error; err != nil {
		return nil, fmt.Errorf("insert follow-up: %w", err)
	}
	if err := setFollowUpFactors(tx, f.ID, in.Factors); err != nil {
		return nil, err
	}
	return &f, audit(tx, ActionCreate, EntityFollowUp, f.ID, incidentID, nil, followUpFields(&f, uniqueNames(in.Factors)))
}

// resolveOwner makes a follow-up's owner the account it names, by email or by name (ignoring
// case), when exactly one enabled account matches: the owner is then stored as that account's
// id and email. Any other text stays a name for someone without an account.
func resolveOwner(tx *gorm.DB, f *FollowUp) error {
	f.OwnerID = nil
	owner := strings.TrimSpace(f.Owner)
	if owner == "" {
		return nil
	}
	var users []User
	if err := tx.Select("id", "email").Where("disabled_at IS NULL AND (LOWER(email) = LOWER(?) OR LOWER(name) = LOWER(?))", owner, owner).
		Limit(2).Find(&users).Error; err != nil {
		return fmt.Errorf("match follow-up owner: %w", err)
	}
	if len(users) == 1 {
		f.OwnerID, f.Owner = &users[0].ID, users[0].Email
	}
	return nil
}

func setFollowUpFactors(tx *gorm.DB, followUpID int64, slugs []string) error {
	ids, err := factorIDs(tx, slugs, "factors")
	if err != nil {
		return err
	}
	return replaceLinks(tx, "follow_up_factors", "follow_up_id", "factor_id", followUpID, ids)
}

// CreateFollowUp adds a follow-up action to an incident.
func (s *Store) CreateFollowUp(ctx context.Context, incidentID int64, in FollowUpInput) (*FollowUp, error) {
	var f *FollowUp
	err := s.withIncident(ctx, incidentID, false, func(tx *gorm.DB, c *changes) (err error) {
		c.recurrence(incidentID)
		if f, err = insertFollowUp(tx, incidentID, in); err != nil {
			return err
		}
		return s.followUpWritten(tx, nil, f) // webhook events: outbox.go
	})
	return f, err
}

// UpdateFollowUp changes a follow-up. When version is non-zero it must match, else ErrConflict.
func (s *Store) UpdateFollowUp(ctx context.Context, incidentID, id int64, version int, in FollowUpInput) error {
	return s.withIncident(ctx, incidentID, false, func(tx *gorm.DB, c *changes) error {
		c.recurrence(incidentID)
		var current FollowUp
		if err := loadChild(tx.Preload("Factors"), incidentID, id, &current, "follow-up"); err != nil {
			return err
		}
		if version != 0 && version != current.Version {
			return fmt.Errorf("follow-up %d is at version %d, not %d: %w", id, current.Version, version, ErrConflict)
		}
		row := followUpRow(incidentID, in, &current)
		row.ID, row.Version = id, current.Version+1
		if err := resolveOwner(tx, &row); err != nil {
			return err
		}
		if err := updateChild(tx.Where("version = ?", current.Version), incidentID, id, &row, "follow-up"); err != nil {
			return err
		}
		if err := setFollowUpFactors(tx, id, in.Factors); err != nil {
			return err
		}
		if err := audit(tx, ActionUpdate, EntityFollowUp, id, incidentID, followUpFields(&current, current.FactorSlugs()), followUpFields(&row, uniqueNames(in.Factors))); err != nil {
			return err
		}
		return s.followUpWritten(tx, &current, &row) // webhook events: outbox.go
	})
}

// DeleteFollowUp removes a follow-up action.
func (s *Store) DeleteFollowUp(ctx context.Context, incidentID, id int64) error {
	return s.withIncident(ctx, incidentID, false, func(tx *gorm.DB, c *changes) error {
		var current FollowUp
		if err := loadChild(tx.Preload("Factors"), incidentID, id, &current, "follow-up"); err != nil {
			return err
		}
		c.recurrence(incidentID)
		return deleteRow(tx, incidentID, id, &FollowUp{}, EntityFollowUp, followUpFields(&current, current.FactorSlugs()))
	})
}

// AddChildren appends timeline entries, impact windows and follow-ups to an existing incident in
// one transaction: pasted text confirmed on the incident page, or a list of follow-ups, one per
// line. Either all are added or none; the timeline's cap counts what is there already.
func (s *Store) AddChildren(ctx context.Context, incidentID int64, c Children) error {
	// Entries and windows are read by the insights.
	insights := (c.Timeline != nil && len(*c.Timeline) > 0) || (c.ImpactWindows != nil && len(*c.ImpactWindows) > 0)
	return s.withIncident(ctx, incidentID, insights, func(tx *gorm.DB, ch *changes) error {
		if c.Timeline != nil && len(*c.Timeline) > 0 {
			var n int64
			if err := tx.Model(&TimelineEvent{}).Where("incident_id = ?", incidentID).Count(&n).Error; err != nil {
				return fmt.Errorf("count timeline entries: %w", err)
			}
			if n+int64(len(*c.Timeline)) > MaxTimelineEvents {
				return FieldErrors{{Field: "timeline", Message: timelineFullMessage}}
			}
		}
		h := newHistory(ctx)
		children := &childWriter{history: h, resolveOwners: true}
		if err := children.add(incidentID, Children{Timeline: c.Timeline, ImpactWindows: c.ImpactWindows, FollowUps: c.FollowUps}, false); err != nil {
			return err
		}
		if err := children.write(tx, ch); err != nil {
			return err
		}
		return h.write(tx)
	})
}
