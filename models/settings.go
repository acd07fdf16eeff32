package models

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Setting is one site-wide setting.
type Setting struct {
	Key   string `gorm:"primaryKey"`
	Value string
}

// EntitySettings names site settings in history.
const EntitySettings = "settings"

// Keys of the status page settings.
const (
	settingStatusName     = "status_page_name"
	settingStatusTimeZone = "status_page_time_zone"
)

// StatusSettings are the status page's name and the time zone its times are shown in.
type StatusSettings struct {
	Name     string `json:"name" validate:"required,max=100"`
	TimeZone string `json:"time_zone" validate:"required,timezone"`
}

// DefaultStatusSettings are used until an admin saves others.
var DefaultStatusSettings = StatusSettings{Name: "Status", TimeZone: "UTC"}

// Location is the zone the status page shows times in.
func (s StatusSettings) Location() *time.Location { return LoadLocation(s.TimeZone) }

// StatusSettings reads the status page settings, with the defaults for what was never set.
func (s *Store) StatusSettings(ctx context.Context) (StatusSettings, error) {
	var rows []Setting
	err := s.read.WithContext(ctx).Where("key IN ?", []string{settingStatusName, settingStatusTimeZone}).Find(&rows).Error
	if err != nil {
		return StatusSettings{}, fmt.Errorf("read settings: %w", err)
	}
	out := DefaultStatusSettings
	for _, r := range rows {
		switch r.Key {
		case settingStatusName:
			out.Name = r.Value
		case settingStatusTimeZone:
			out.TimeZone = r.Value
		}
	}
	return out, nil
}

// SaveStatusSettings checks and stores the status page settings, and records the change in
// history. Invalid input comes back as FieldErrors.
func (s *Store) SaveStatusSettings(ctx context.Context, in StatusSettings) error {
	in.Name = strings.TrimSpace(in.Name)
	in.TimeZone = strings.TrimSpace(in.TimeZone)
	if errs := Validate(in); len(errs) > 0 {
		return errs
	}
	return s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		before, err := s.StatusSettings(ctx)
		if err != nil {
			return err
		}
		rows := []Setting{{settingStatusName, in.Name}, {settingStatusTimeZone, in.TimeZone}}
		err = tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "key"}}, DoUpdates: clause.AssignmentColumns([]string{"value"})}).Create(&rows).Error
		if err != nil {
			return fmt.Errorf("save settings: %w", err)
		}
		changes := diff(fields{"name": before.Name, "time_zone": before.TimeZone}, fields{"name": in.Name, "time_zone": in.TimeZone})
		if len(changes) == 0 {
			return nil
		}
		raw, err := json.Marshal(changes)
		if err != nil {
			return err
		}
		actor := actorFrom(ctx)
		entry := AuditEntry{At: time.Now().UTC(), Actor: actor.Label, Action: ActionUpdate, Entity: EntitySettings, Changes: string(raw)}
		if actor.UserID != 0 {
			entry.ActorID = &actor.UserID
		}
		if err := tx.Create(&entry).Error; err != nil {
			return fmt.Errorf("record history: %w", err)
		}
		return nil
	})
}
