package models

import (
	"context"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Maintenance is planned work, a record of its own (not an incident): when it is scheduled,
// which components it covers, and the updates posted on it. It reaches the status page only
// when someone marked it public.
type Maintenance struct {
	ID             int64
	Title          string
	Status         string // the latest update's: scheduled, in_progress, verifying, completed
	ScheduledFor   time.Time
	ScheduledUntil time.Time
	Public         bool
	Source         string // set on imported maintenance, with ExternalID the source's id
	ExternalID     string
	Components     []Component `gorm:"many2many:maintenance_components"`
	Updates        []MaintenanceUpdate
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// MaintenanceUpdate is one message posted on a maintenance, with the status it set.
type MaintenanceUpdate struct {
	ID            int64
	MaintenanceID int64
	Status        string
	Body          string
	At            time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Maintenance statuses, as Statuspage names them.
const (
	MaintenanceScheduled  = "scheduled"
	MaintenanceInProgress = "in_progress"
	MaintenanceVerifying  = "verifying"
	MaintenanceCompleted  = "completed"
)

// MaintenanceInput is a new or changed maintenance. Components are component ids.
type MaintenanceInput struct {
	Title          string    `json:"title" validate:"required,max=200"`
	ScheduledFor   time.Time `json:"scheduled_for" validate:"required,instant"`
	ScheduledUntil time.Time `json:"scheduled_until" validate:"required,instant"`
	Public         bool      `json:"public"`
	Components     []int64   `json:"components" validate:"max=100"`
}

// MaintenanceUpdateInput is an update posted on a maintenance.
type MaintenanceUpdateInput struct {
	Status string    `json:"status" validate:"required,oneof=scheduled in_progress verifying completed"`
	Body   string    `json:"body" validate:"max=20000"`
	At     time.Time `json:"at" validate:"omitempty,instant"` // now when zero
}

// MaintenanceImport is a maintenance read from another status page, found again on re-import
// by its source and external id. Components are named; a name no component has yet becomes a
// component covering the service of that name, since the source listed it as a component.
type MaintenanceImport struct {
	Source, ExternalID string
	Input              MaintenanceInput
	ComponentNames     []string
	Updates            []MaintenanceUpdateInput // oldest first
	CreatedAt          time.Time                // the source's; now when zero
}

func checkMaintenance(in *MaintenanceInput) FieldErrors {
	in.Title = strings.TrimSpace(in.Title)
	errs := Validate(*in)
	if errs.For("scheduled_until") == "" && errs.For("scheduled_for") == "" && in.ScheduledUntil.Before(in.ScheduledFor) {
		errs.Add("scheduled_until", "The end must come after the start.")
	}
	return errs
}

// EffectiveStatus is the maintenance's status at now: as posted, except that scheduled work
// whose start has come counts as in progress and work past its scheduled end as completed, as
// Statuspage's automatic start and completion do.
func (m *Maintenance) EffectiveStatus(now time.Time) string {
	switch {
	case m.Status == MaintenanceCompleted || !now.Before(m.ScheduledUntil):
		return MaintenanceCompleted
	case m.Status == MaintenanceScheduled && !now.Before(m.ScheduledFor):
		return MaintenanceInProgress
	}
	return m.Status
}

// Active tells whether the maintenance is under way at now.
func (m *Maintenance) Active(now time.Time) bool {
	s := m.EffectiveStatus(now)
	return s == MaintenanceInProgress || s == MaintenanceVerifying
}

// ComponentIDs lists the ids of the components the maintenance covers.
func (m *Maintenance) ComponentIDs() []int64 {
	ids := make([]int64, len(m.Components))
	for n, c := range m.Components {
		ids[n] = c.ID
	}
	return ids
}

// MaintenanceFilter narrows ListMaintenances.
type MaintenanceFilter struct {
	PublicOnly bool
	Limit      int // 200 when zero
}

// ListMaintenances lists maintenances with their components and updates, latest schedule first.
func (s *Store) ListMaintenances(ctx context.Context, f MaintenanceFilter) ([]Maintenance, error) {
	if f.Limit <= 0 {
		f.Limit = 200
	}
	q := s.read.WithContext(ctx).Preload("Components", func(db *gorm.DB) *gorm.DB { return db.Order("position, id") }).
		Preload("Updates", func(db *gorm.DB) *gorm.DB { return db.Order("at, id") })
	if f.PublicOnly {
		q = q.Where("public")
	}
	var out []Maintenance
	if err := q.Order("scheduled_for DESC, id DESC").Limit(f.Limit).Find(&out).Error; err != nil {
		return nil, fmt.Errorf("list maintenances: %w", err)
	}
	return out, nil
}

// Maintenance loads one maintenance with its components and updates.
func (s *Store) Maintenance(ctx context.Context, id int64) (*Maintenance, error) {
	var m Maintenance
	err := s.read.WithContext(ctx).Preload("Components", func(db *gorm.DB) *gorm.DB { return db.Order("position, id") }).
		Preload("Updates", func(db *gorm.DB) *gorm.DB { return db.Order("at, id") }).Where("id = ?", id).Take(&m).Error
	if err != nil {
		return nil, notFound(err, fmt.Sprintf("maintenance %d", id))
	}
	return &m, nil
}

// CreateMaintenance schedules maintenance with its first update; invalid input comes back as
// FieldErrors and nothing is written.
func (s *Store) CreateMaintenance(ctx context.Context, in MaintenanceInput, first MaintenanceUpdateInput) (*Maintenance, error) {
	errs := checkMaintenance(&in)
	errs = append(errs, Validate(first)...)
	if len(errs) > 0 {
		return nil, errs
	}
	var m Maintenance
	err := s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		// The status page shows components and maintenance: a shared change.
		c.shared()
		now := time.Now().UTC().Truncate(time.Millisecond)
		var err error
		m, err = insertMaintenance(tx, "", "", in, []MaintenanceUpdateInput{first}, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &m, nil
}

func insertMaintenance(tx *gorm.DB, source, externalID string, in MaintenanceInput, updates []MaintenanceUpdateInput, created time.Time) (Maintenance, error) {
	m := Maintenance{
		Title: in.Title, Status: MaintenanceScheduled, ScheduledFor: in.ScheduledFor.UTC(), ScheduledUntil: in.ScheduledUntil.UTC(),
		Public: in.Public, Source: source, ExternalID: externalID, CreatedAt: created, UpdatedAt: created,
	}
	if len(updates) > 0 {
		m.Status = updates[len(updates)-1].Status
	}
	if err := tx.Omit(clause.Associations).Create(&m).Error; err != nil {
		return m, fmt.Errorf("add maintenance: %w", err)
	}
	if err := setMaintenanceComponents(tx, m.ID, in.Components); err != nil {
		return m, err
	}
	for _, u := range updates {
		if _, err := insertMaintenanceUpdate(tx, m.ID, u, created); err != nil {
			return m, err
		}
	}
	return m, pageAudit(tx, ActionCreate, EntityMaintenance, m.ID, nil, maintenanceFields(&m, in.Components))
}

func insertMaintenanceUpdate(tx *gorm.DB, id int64, u MaintenanceUpdateInput, now time.Time) (MaintenanceUpdate, error) {
	// An update given its own time (imported, or back-filled) was posted then.
	at := u.At.UTC().Truncate(time.Millisecond)
	if u.At.IsZero() {
		at = now
	}
	row := MaintenanceUpdate{MaintenanceID: id, Status: u.Status, Body: strings.TrimSpace(u.Body), At: at, CreatedAt: at, UpdatedAt: at}
	if err := tx.Create(&row).Error; err != nil {
		return row, fmt.Errorf("add maintenance update: %w", err)
	}
	return row, nil
}

func setMaintenanceComponents(tx *gorm.DB, id int64, components []int64) error {
	if len(components) > 0 {
		var known int64
		if err := tx.Model(&Component{}).Where("id IN ?", components).Count(&known).Error; err != nil {
			return fmt.Errorf("check components: %w", err)
		}
		if int(known) != len(uniqueIDs(components)) {
			return FieldErrors{{Field: "components", Message: "Choose among the components listed."}}
		}
	}
	return replaceLinks(tx, "maintenance_components", "maintenance_id", "component_id", id, uniqueIDs(components))
}

func uniqueIDs(ids []int64) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// UpdateMaintenance changes a maintenance's title, schedule, components and public flag.
func (s *Store) UpdateMaintenance(ctx context.Context, id int64, in MaintenanceInput) error {
	if errs := checkMaintenance(&in); len(errs) > 0 {
		return errs
	}
	return s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		// The status page shows components and maintenance: a shared change.
		c.shared()
		var cur Maintenance
		if err := tx.Preload("Components").Where("id = ?", id).Take(&cur).Error; err != nil {
			return notFound(err, fmt.Sprintf("maintenance %d", id))
		}
		now := time.Now().UTC().Truncate(time.Millisecond)
		next := cur
		next.Title, next.ScheduledFor, next.ScheduledUntil, next.Public, next.UpdatedAt = in.Title, in.ScheduledFor.UTC(), in.ScheduledUntil.UTC(), in.Public, now
		if err := tx.Model(&Maintenance{}).Where("id = ?", id).Select("title", "scheduled_for", "scheduled_until", "public", "updated_at").Updates(&next).Error; err != nil {
			return fmt.Errorf("change maintenance: %w", err)
		}
		if err := setMaintenanceComponents(tx, id, in.Components); err != nil {
			return err
		}
		return pageAudit(tx, ActionUpdate, EntityMaintenance, id, maintenanceFields(&cur, cur.ComponentIDs()), maintenanceFields(&next, uniqueIDs(in.Components)))
	})
}

// PostMaintenanceUpdate posts an update on a maintenance; its status becomes the maintenance's.
func (s *Store) PostMaintenanceUpdate(ctx context.Context, id int64, u MaintenanceUpdateInput) error {
	if errs := Validate(u); len(errs) > 0 {
		return errs
	}
	return s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		// The status page shows components and maintenance: a shared change.
		c.shared()
		var cur Maintenance
		if err := tx.Preload("Components").Where("id = ?", id).Take(&cur).Error; err != nil {
			return notFound(err, fmt.Sprintf("maintenance %d", id))
		}
		now := time.Now().UTC().Truncate(time.Millisecond)
		if _, err := insertMaintenanceUpdate(tx, id, u, now); err != nil {
			return err
		}
		if err := tx.Model(&Maintenance{}).Where("id = ?", id).Updates(map[string]any{"status": u.Status, "updated_at": now}).Error; err != nil {
			return fmt.Errorf("change maintenance status: %w", err)
		}
		next := cur
		next.Status = u.Status
		return pageAudit(tx, ActionUpdate, EntityMaintenance, id, maintenanceFields(&cur, cur.ComponentIDs()), maintenanceFields(&next, cur.ComponentIDs()))
	})
}

// DeleteMaintenance removes a maintenance and its updates.
func (s *Store) DeleteMaintenance(ctx context.Context, id int64) error {
	return s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		// The status page shows components and maintenance: a shared change.
		c.shared()
		var cur Maintenance
		if err := tx.Preload("Components").Where("id = ?", id).Take(&cur).Error; err != nil {
			return notFound(err, fmt.Sprintf("maintenance %d", id))
		}
		if err := tx.Where("id = ?", id).Delete(&Maintenance{}).Error; err != nil {
			return fmt.Errorf("delete maintenance: %w", err)
		}
		return pageAudit(tx, ActionDelete, EntityMaintenance, id, maintenanceFields(&cur, cur.ComponentIDs()), nil)
	})
}

func maintenanceFields(m *Maintenance, components []int64) fields {
	if components == nil {
		components = []int64{}
	}
	return fields{
		"title": m.Title, "status": m.Status, "scheduled_for": m.ScheduledFor.UTC().Format(time.RFC3339),
		"scheduled_until": m.ScheduledUntil.UTC().Format(time.RFC3339), "public": m.Public, "components": components,
	}
}

// CheckMaintenanceImport validates an imported maintenance as the forms would.
func CheckMaintenanceImport(mi MaintenanceImport) FieldErrors {
	in := mi.Input
	errs := checkMaintenance(&in)
	for n, u := range mi.Updates {
		errs = append(errs, Validate(u).Prefixed(fmt.Sprintf("incident_updates[%d].", n))...)
	}
	return errs
}

// importMaintenances writes imported maintenances in the import's transaction: one found by its
// source and external id is replaced (schedule, components, updates), the others added.
func importMaintenances(tx *gorm.DB, list []MaintenanceImport) error {
	now := time.Now().UTC().Truncate(time.Millisecond)
	for _, mi := range list {
		ids, err := importComponentIDs(tx, mi.ComponentNames, now)
		if err != nil {
			return err
		}
		mi.Input.Components = ids
		created := mi.CreatedAt.UTC()
		if mi.CreatedAt.IsZero() {
			created = now
		}
		var cur Maintenance
		err = tx.Preload("Components").Where("source = ? AND external_id = ?", mi.Source, mi.ExternalID).Take(&cur).Error
		if err == gorm.ErrRecordNotFound {
			if _, err := insertMaintenance(tx, mi.Source, mi.ExternalID, mi.Input, mi.Updates, created); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("find maintenance %s: %w", mi.ExternalID, err)
		}
		if err := tx.Where("maintenance_id = ?", cur.ID).Delete(&MaintenanceUpdate{}).Error; err != nil {
			return fmt.Errorf("clear maintenance updates: %w", err)
		}
		next := cur
		next.Title, next.ScheduledFor, next.ScheduledUntil, next.UpdatedAt = mi.Input.Title, mi.Input.ScheduledFor.UTC(), mi.Input.ScheduledUntil.UTC(), now
		if len(mi.Updates) > 0 {
			next.Status = mi.Updates[len(mi.Updates)-1].Status
		}
		if err := tx.Model(&Maintenance{}).Where("id = ?", cur.ID).Select("title", "status", "scheduled_for", "scheduled_until", "updated_at").Updates(&next).Error; err != nil {
			return fmt.Errorf("change maintenance: %w", err)
		}
		if err := setMaintenanceComponents(tx, cur.ID, ids); err != nil {
			return err
		}
		for _, u := range mi.Updates {
			if _, err := insertMaintenanceUpdate(tx, cur.ID, u, now); err != nil {
				return err
			}
		}
		if err := pageAudit(tx, ActionUpdate, EntityMaintenance, cur.ID, maintenanceFields(&cur, cur.ComponentIDs()), maintenanceFields(&next, ids)); err != nil {
			return err
		}
	}
	return nil
}

// importComponentIDs finds the components named, adding those no component has yet, each
// covering the service of its name.
func importComponentIDs(tx *gorm.DB, names []string, now time.Time) ([]int64, error) {
	var ids []int64
	for _, name := range uniqueNames(names) {
		var c Component
		err := tx.Where("LOWER(name) = LOWER(?) AND NOT is_group", name).Order("id").Take(&c).Error
		if err == nil {
			ids = append(ids, c.ID)
			continue
		}
		if err != gorm.ErrRecordNotFound {
			return nil, fmt.Errorf("find component %q: %w", name, err)
		}
		var last int
		if err := tx.Model(&Component{}).Select("COALESCE(MAX(position), 0)").Scan(&last).Error; err != nil {
			return nil, fmt.Errorf("last component position: %w", err)
		}
		c = Component{Name: name, Position: last + 1, Showcase: true, CreatedAt: now, UpdatedAt: now}
		if err := tx.Omit("Services").Create(&c).Error; err != nil {
			return nil, fmt.Errorf("add component %q: %w", name, err)
		}
		services, err := namedIDs(tx, "services", []string{name})
		if err != nil {
			return nil, err
		}
		if err := replaceLinks(tx, "component_services", "component_id", "service_id", c.ID, services); err != nil {
			return nil, err
		}
		if err := pageAudit(tx, ActionCreate, EntityComponent, c.ID, nil, componentFields(&c, []string{name})); err != nil {
			return nil, err
		}
		ids = append(ids, c.ID)
	}
	return ids, nil
}
