package statuspage

import (
	"strconv"
	"time"

	"hindsight/models"
)

// Maintenance is a scheduled maintenance as Statuspage's scheduled-maintenances endpoints and
// summary.json write it: an incident's keys, impact "maintenance", and its schedule. It never
// carries an incident's reminder intervals or postmortem, so those keys stay out.
type Maintenance struct {
	Incident
	ScheduledFor   Time `json:"scheduled_for"`
	ScheduledUntil Time `json:"scheduled_until"`
}

// MaintenancesDocument is the shape of scheduled-maintenances.json, upcoming.json and
// active.json.
type MaintenancesDocument struct {
	Page                  Page          `json:"page"`
	ScheduledMaintenances []Maintenance `json:"scheduled_maintenances"`
}

func ms(t time.Time) Time { return At(t.Truncate(time.Millisecond)) }

func msp(t time.Time) *Time {
	at := ms(t)
	return &at
}

// ExportMaintenance writes a maintenance in Statuspage's shape at now: its status is the one
// in effect (models.Maintenance.EffectiveStatus), its updates newest first, its components in
// the given statuses and the page's component fields.
func ExportMaintenance(m *models.Maintenance, statuses map[int64]string, page Page, now time.Time) Maintenance {
	id := strconv.FormatInt(m.ID, 10)
	out := Maintenance{
		Incident: Incident{
			ID: id, Name: m.Title, Status: m.EffectiveStatus(now), CreatedAt: ms(m.CreatedAt), UpdatedAt: ms(m.UpdatedAt),
			Impact: "maintenance", Shortlink: page.URL + "#maintenance-" + id, PageID: page.ID,
			IncidentUpdates: []IncidentUpdate{}, Components: ExportComponents(m.Components, statuses, page, m.UpdatedAt),
		},
		ScheduledFor: ms(m.ScheduledFor), ScheduledUntil: ms(m.ScheduledUntil),
	}
	for _, u := range m.Updates {
		switch {
		case u.Status == models.MaintenanceInProgress && out.StartedAt == nil:
			out.StartedAt = msp(u.At)
		case u.Status == models.MaintenanceVerifying && out.MonitoringAt == nil:
			out.MonitoringAt = msp(u.At)
		case u.Status == models.MaintenanceCompleted && out.ResolvedAt == nil:
			out.ResolvedAt = msp(u.At)
		}
	}
	// Work that started or ended on its schedule, without anyone posting it, started and ended
	// at the scheduled times.
	if out.StartedAt == nil && out.Status != models.MaintenanceScheduled {
		out.StartedAt = msp(m.ScheduledFor)
	}
	if out.ResolvedAt == nil && out.Status == models.MaintenanceCompleted {
		out.ResolvedAt = msp(m.ScheduledUntil)
	}
	for n := len(m.Updates) - 1; n >= 0; n-- {
		u := m.Updates[n]
		out.IncidentUpdates = append(out.IncidentUpdates, IncidentUpdate{
			ID: strconv.FormatInt(u.ID, 10), Status: u.Status, Body: u.Body, IncidentID: id,
			CreatedAt: ms(u.CreatedAt), UpdatedAt: ms(u.UpdatedAt), DisplayAt: ms(u.At), AffectedComponents: []AffectedComponent{},
		})
	}
	return out
}
