package models

import (
	"fmt"

	"gorm.io/gorm"
)

// MaxTimelineEvents is the most timeline entries one incident holds. The longest real incidents
// have a few hundred; without a cap, one request of 13,000 entries made a 7 MB incident page.
const MaxTimelineEvents = 2000

// timelineFullMessage explains the cap beside the timeline.
var timelineFullMessage = fmt.Sprintf("An incident holds at most %d timeline entries; remove some, or file a new incident linked to this one.", MaxTimelineEvents)

// checkTimelineSize refuses a timeline list longer than the cap, before anything is written.
func checkTimelineSize(c Children) error {
	if c.Timeline != nil && len(*c.Timeline) > MaxTimelineEvents {
		return FieldErrors{{Field: "timeline", Message: timelineFullMessage}}
	}
	return nil
}

// checkTimelineRoom refuses one more entry on an incident whose timeline is full. It runs inside
// the write transaction, which holds the database's write lock on SQLite and the incident's row
// lock on PostgreSQL (withIncident), so two writers cannot both take the last place.
func checkTimelineRoom(tx *gorm.DB, incidentID int64) error {
	var n int64
	if err := tx.Model(&TimelineEvent{}).Where("incident_id = ?", incidentID).Count(&n).Error; err != nil {
		return fmt.Errorf("count timeline entries: %w", err)
	}
	if n >= MaxTimelineEvents {
		// Shown beside the entry's text on the form, which is kept as typed.
		return FieldErrors{{Field: "body", Message: timelineFullMessage}}
	}
	return nil
}
