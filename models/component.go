package models

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Component is a part of the service the status page reports on, as an admin set it up: it
// covers some services, and its state comes from the impact windows that name them. A group
// (IsGroup) is a component with children, as in Statuspage; it covers no services itself and
// its state is its worst child's.
type Component struct {
	ID                 int64
	Name               string
	Description        string
	IsGroup            bool
	GroupID            *int64
	Position           int
	OnlyShowIfDegraded bool
	Showcase           bool
	StartDate          *string   // YYYY-MM-DD: when the component began, for the uptime bars
	Services           []Service `gorm:"many2many:component_services"`
	CreatedAt          time.Time
	UpdatedAt          time.Time
}

// ServiceNames lists the services the component covers, by name.
func (c *Component) ServiceNames() []string { return serviceNames(c.Services) }

// ComponentInput is a new or changed component.
type ComponentInput struct {
	Name               string   `json:"name" validate:"required,max=100"`
	Description        string   `json:"description" validate:"max=2000"`
	IsGroup            bool     `json:"group"`
	GroupID            int64    `json:"group_id" validate:"min=0"`
	Position           int      `json:"position" validate:"min=0,max=100000"`
	OnlyShowIfDegraded bool     `json:"only_show_if_degraded"`
	Showcase           bool     `json:"showcase"`
	StartDate          string   `json:"start_date" validate:"omitempty,datetime=2006-01-02"`
	Services           []string `json:"services" validate:"max=50,dive,required,max=100"`
}

// EntityComponent and EntityMaintenance name the status page's records in history.
const (
	EntityComponent   = "component"
	EntityMaintenance = "maintenance"
)

// Component statuses, in Statuspage's words.
const (
	ComponentOperational = "operational"
	ComponentDegraded    = "degraded_performance"
	ComponentPartial     = "partial_outage"
	ComponentMajor       = "major_outage"
	ComponentMaintenance = "under_maintenance"
)

// componentRank orders component statuses from best to worst, for a group's worst child.
var componentRank = map[string]int{ComponentOperational: 0, ComponentMaintenance: 1, ComponentDegraded: 2, ComponentPartial: 3, ComponentMajor: 4}

// LevelComponentStatus maps an impact window's level to the component status it implies;
// "" (no open window) is operational.
func LevelComponentStatus(level string) string {
	switch level {
	case "degraded":
		return ComponentDegraded
	case "partial_outage":
		return ComponentPartial
	case "major_outage":
		return ComponentMajor
	}
	return ComponentOperational
}

// ListComponents lists every component with its services, in page order.
func (s *Store) ListComponents(ctx context.Context) ([]Component, error) {
	var out []Component
	if err := s.read.WithContext(ctx).Preload("Services", orderByName).Order("position, id").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("list components: %w", err)
	}
	return out, nil
}

// Component loads one component; a missing one is ErrNotFound.
func (s *Store) Component(ctx context.Context, id int64) (*Component, error) {
	var c Component
	if err := s.read.WithContext(ctx).Preload("Services", orderByName).Where("id = ?", id).Take(&c).Error; err != nil {
		return nil, notFound(err, fmt.Sprintf("component %d", id))
	}
	return &c, nil
}

// SaveComponent checks and stores a component (id 0 adds one) and records it in history.
// Invalid input, a group that is not a group, or a group given services come back as
// FieldErrors, and nothing is written.
func (s *Store) SaveComponent(ctx context.Context, id int64, in ComponentInput) (*Component, error) {
	in.Name, in.Description, in.StartDate = strings.TrimSpace(in.Name), strings.TrimSpace(in.Description), strings.TrimSpace(in.StartDate)
	in.Services = uniqueNames(in.Services)
	errs := Validate(in)
	if in.IsGroup && len(in.Services) > 0 {
		errs.Add("services", "A group covers no services itself; its components do.")
	}
	if in.IsGroup && in.GroupID != 0 {
		errs.Add("group_id", "A group cannot sit in another group.")
	}
	if in.GroupID != 0 && in.GroupID == id {
		errs.Add("group_id", "A component cannot be its own group.")
	}
	if len(errs) > 0 {
		return nil, errs
	}
	var out Component
	err := s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		// The status page shows components and maintenance: a shared change.
		c.shared()
		var before *Component
		if id != 0 {
			var cur Component
			if err := tx.Preload("Services", orderByName).Where("id = ?", id).Take(&cur).Error; err != nil {
				return notFound(err, fmt.Sprintf("component %d", id))
			}
			before = &cur
			if cur.IsGroup && !in.IsGroup {
				var children int64
				if err := tx.Model(&Component{}).Where("group_id = ?", id).Count(&children).Error; err != nil {
					return fmt.Errorf("count group members: %w", err)
				}
				if children > 0 {
					return FieldErrors{{Field: "group", Message: "This group still has components; move them out first."}}
				}
			}
		}
		if in.GroupID != 0 {
			var group Component
			if err := tx.Select("id", "is_group").Where("id = ?", in.GroupID).Take(&group).Error; err != nil || !group.IsGroup {
				return FieldErrors{{Field: "group_id", Message: "Choose one of the groups listed."}}
			}
		}
		now := time.Now().UTC().Truncate(time.Millisecond)
		row := Component{
			ID: id, Name: in.Name, Description: in.Description, IsGroup: in.IsGroup, Position: in.Position,
			OnlyShowIfDegraded: in.OnlyShowIfDegraded, Showcase: in.Showcase, UpdatedAt: now,
		}
		if in.GroupID != 0 {
			row.GroupID = &in.GroupID
		}
		if in.StartDate != "" {
			row.StartDate = &in.StartDate
		}
		if before == nil {
			row.CreatedAt = now
			if err := tx.Omit("Services").Create(&row).Error; err != nil {
				return fmt.Errorf("add component: %w", err)
			}
		} else {
			row.CreatedAt = before.CreatedAt
			if err := tx.Model(&Component{}).Where("id = ?", id).Select("name", "description", "is_group", "group_id", "position", "only_show_if_degraded", "showcase", "start_date", "updated_at").Updates(&row).Error; err != nil {
				return fmt.Errorf("change component: %w", err)
			}
		}
		ids, err := namedIDs(tx, "services", in.Services)
		if err != nil {
			return err
		}
		if err := replaceLinks(tx, "component_services", "component_id", "service_id", row.ID, ids); err != nil {
			return err
		}
		action := ActionCreate
		var beforeFields fields
		if before != nil {
			action, beforeFields = ActionUpdate, componentFields(before, before.ServiceNames())
		}
		out = row
		return pageAudit(tx, action, EntityComponent, row.ID, beforeFields, componentFields(&row, in.Services))
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteComponent removes a component; a group's components move to the top level, and the
// services it covered stay.
func (s *Store) DeleteComponent(ctx context.Context, id int64) error {
	return s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		// The status page shows components and maintenance: a shared change.
		c.shared()
		var cur Component
		if err := tx.Preload("Services").Where("id = ?", id).Take(&cur).Error; err != nil {
			return notFound(err, fmt.Sprintf("component %d", id))
		}
		// SQLite and PostgreSQL both honour ON DELETE SET NULL, but say it here too: the page
		// must not lose the group's members with it.
		if err := tx.Model(&Component{}).Where("group_id = ?", id).Update("group_id", nil).Error; err != nil {
			return fmt.Errorf("ungroup components: %w", err)
		}
		if err := tx.Where("id = ?", id).Delete(&Component{}).Error; err != nil {
			return fmt.Errorf("delete component: %w", err)
		}
		return pageAudit(tx, ActionDelete, EntityComponent, id, componentFields(&cur, cur.ServiceNames()), nil)
	})
}

func componentFields(c *Component, services []string) fields {
	group := int64(0)
	if c.GroupID != nil {
		group = *c.GroupID
	}
	start := ""
	if c.StartDate != nil {
		start = *c.StartDate
	}
	return fields{
		"name": c.Name, "description": c.Description, "group": c.IsGroup, "group_id": group, "position": c.Position,
		"only_show_if_degraded": c.OnlyShowIfDegraded, "showcase": c.Showcase, "start_date": start, "services": nonNilNames(services),
	}
}

// pageAudit records a change to one of the status page's own records (not an incident's) in
// history, in the transaction of the change: the change mark moves with it, so the status
// page's cache does too.
func pageAudit(tx *gorm.DB, action, entity string, id int64, before, after fields) error {
	changes := diff(before, after)
	if action == ActionUpdate && len(changes) == 0 {
		return nil
	}
	raw, err := json.Marshal(changes)
	if err != nil {
		return fmt.Errorf("encode history: %w", err)
	}
	actor := actorFrom(tx.Statement.Context)
	entry := AuditEntry{At: time.Now().UTC(), Actor: actor.Label, Action: action, Entity: entity, EntityID: id, Changes: string(raw)}
	if actor.UserID != 0 {
		entry.ActorID = &actor.UserID
	}
	if err := tx.Create(&entry).Error; err != nil {
		return fmt.Errorf("record history: %w", err)
	}
	return nil
}
