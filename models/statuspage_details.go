package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// StatuspageIncident is what an imported Statuspage incident carries beyond Hindsight's own
// fields, kept so that the status page's API and an export write it back as the source had it.
type StatuspageIncident struct {
	IncidentID int64 `gorm:"primaryKey;autoIncrement:false"`
	Shortlink  string
	// ReminderIntervals is the source's JSON value ("null" included), nil when the source had
	// no such key.
	ReminderIntervals *string
}

// TableName is the table the details are kept in.
func (StatuspageIncident) TableName() string { return "statuspage_incidents" }

// StatuspageUpdate is what an imported Statuspage update carries beyond a timeline entry.
type StatuspageUpdate struct {
	EventID              int64 `gorm:"primaryKey;autoIncrement:false"`
	DeliverNotifications bool
	// AffectedComponents is the source's list as JSON, every component it named with its old
	// and new status; nil when the source had null.
	AffectedComponents *string
	// DisplayAt is the source's display_at to the millisecond; the entry's At keeps whole seconds.
	DisplayAt *time.Time
}

// TableName is the table the details are kept in.
func (StatuspageUpdate) TableName() string { return "statuspage_updates" }

// StatuspageDetails are the Statuspage details of some incidents, by incident id and by
// timeline entry id. The zero value has none.
type StatuspageDetails struct {
	Incidents map[int64]StatuspageIncident
	Updates   map[int64]StatuspageUpdate
}

// StatuspageDetails loads the details kept for these incidents and their timeline entries, two
// IN queries a batch.
func (s *Store) StatuspageDetails(ctx context.Context, incidents []Incident) (StatuspageDetails, error) {
	out := StatuspageDetails{Incidents: map[int64]StatuspageIncident{}, Updates: map[int64]StatuspageUpdate{}}
	var ids, events []int64
	for n := range incidents {
		ids = append(ids, incidents[n].ID)
		for _, ev := range incidents[n].Timeline {
			events = append(events, ev.ID)
		}
	}
	db := s.read.WithContext(ctx)
	for chunk := range chunks(ids, importINBatch) {
		var rows []StatuspageIncident
		if err := db.Where("incident_id IN ?", chunk).Find(&rows).Error; err != nil {
			return out, fmt.Errorf("read statuspage details: %w", err)
		}
		for _, r := range rows {
			out.Incidents[r.IncidentID] = r
		}
	}
	for chunk := range chunks(events, importINBatch) {
		var rows []StatuspageUpdate
		if err := db.Where("event_id IN ?", chunk).Find(&rows).Error; err != nil {
			return out, fmt.Errorf("read statuspage update details: %w", err)
		}
		for _, r := range rows {
			out.Updates[r.EventID] = r
		}
	}
	return out, nil
}

// saveStatuspageIncidents replaces the details of the imported incidents that carry them.
func saveStatuspageIncidents(tx *gorm.DB, items []ImportItem, ids []int64) error {
	var rows []StatuspageIncident
	var replaced []int64
	for n, item := range items {
		if d := item.Input.Statuspage; d != nil {
			row := *d
			row.IncidentID = ids[n]
			rows = append(rows, row)
			replaced = append(replaced, ids[n])
		}
	}
	for chunk := range chunks(replaced, importINBatch) {
		if err := tx.Where("incident_id IN ?", chunk).Delete(&StatuspageIncident{}).Error; err != nil {
			return fmt.Errorf("clear statuspage details: %w", err)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	if err := tx.CreateInBatches(&rows, importRowBatch).Error; err != nil {
		return fmt.Errorf("insert statuspage details: %w", err)
	}
	return nil
}
