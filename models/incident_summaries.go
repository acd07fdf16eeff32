package models

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// summaryColumns are the columns the incident list shows: no Markdown sections, which can be
// long and which the list never reads.
var summaryColumns = []string{"id", "title", "severity", "status", "postmortem_state", "time_zone",
	"triggered_at", "started_at", "detected_at", "acknowledged_at", "mitigated_at", "resolved_at"}

// ListIncidentSummaries returns one page of incidents for the list page, newest start first, and
// the total number that match: the same filter, order and index as ListIncidents, but only the
// columns the list shows and the names of each incident's services and regions, read without the
// ORM's reflection in four statements however long the page. The list page is the hottest page
// there is; ListIncidents still serves whoever needs whole records.
func (s *Store) ListIncidentSummaries(ctx context.Context, f IncidentFilter) ([]Incident, int64, error) {
	db := s.read.WithContext(ctx)
	var total int64
	if err := s.filterIncidents(db, f).Count(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("count incidents: %w", err)
	}
	rows, err := s.pageIncidents(s.filterIncidents(db, f).Select(summaryColumns), f).Rows()
	if err != nil {
		return nil, 0, fmt.Errorf("list incidents: %w", err)
	}
	defer rows.Close()
	var incidents []Incident
	index := map[int64]int{}
	for rows.Next() {
		var inc Incident
		var triggered, started, detected, acknowledged, mitigated, resolved sql.Null[time.Time]
		if err := rows.Scan(&inc.ID, &inc.Title, &inc.Severity, &inc.Status, &inc.PostmortemState, &inc.TimeZone,
			&triggered, &started, &detected, &acknowledged, &mitigated, &resolved); err != nil {
			return nil, 0, fmt.Errorf("read incident list: %w", err)
		}
		inc.TriggeredAt, inc.StartedAt, inc.DetectedAt = nullTime(triggered), nullTime(started), nullTime(detected)
		inc.AcknowledgedAt, inc.MitigatedAt, inc.ResolvedAt = nullTime(acknowledged), nullTime(mitigated), nullTime(resolved)
		index[inc.ID] = len(incidents)
		incidents = append(incidents, inc)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("read incident list: %w", err)
	}
	rows.Close()
	if len(incidents) == 0 {
		return incidents, total, nil
	}
	ids := make([]int64, len(incidents))
	for n := range incidents {
		ids[n] = incidents[n].ID
	}
	tags, err := db.Raw(`SELECT 's', incident_services.incident_id, services.id, services.name
		FROM incident_services JOIN services ON services.id = incident_services.service_id
		WHERE incident_services.incident_id IN ?
		UNION ALL
		SELECT 'r', incident_regions.incident_id, regions.id, regions.name
		FROM incident_regions JOIN regions ON regions.id = incident_regions.region_id
		WHERE incident_regions.incident_id IN ?
		ORDER BY 4`, ids, ids).Rows()
	if err != nil {
		return nil, 0, fmt.Errorf("list incident tags: %w", err)
	}
	defer tags.Close()
	for tags.Next() {
		var kind, name string
		var incidentID, tagID int64
		if err := tags.Scan(&kind, &incidentID, &tagID, &name); err != nil {
			return nil, 0, fmt.Errorf("read incident tags: %w", err)
		}
		inc := &incidents[index[incidentID]]
		if kind == "s" {
			inc.Services = append(inc.Services, Service{ID: tagID, Name: name})
		} else {
			inc.Regions = append(inc.Regions, Region{ID: tagID, Name: name})
		}
	}
	if err := tags.Err(); err != nil {
		return nil, 0, fmt.Errorf("read incident tags: %w", err)
	}
	return incidents, total, nil
}

func nullTime(t sql.Null[time.Time]) *time.Time {
	if !t.Valid {
		return nil
	}
	u := t.V.UTC()
	return &u
}
