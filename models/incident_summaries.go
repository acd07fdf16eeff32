package models

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// countIncidents counts the incidents matching a filter. When it filters by nothing but status,
// severity and postmortem state, it sums the totals the store keeps in memory (list_counts.go):
// counting ten thousand rows one by one costs more than all the rest of the list page.
func (s *Store) countIncidents(ctx context.Context, db *gorm.DB, f IncidentFilter) (int64, error) {
	if f.Service != "" || f.Region != "" || strings.TrimSpace(f.Text) != "" {
		var total int64
		if err := s.filterIncidents(db, f).Count(&total).Error; err != nil {
			return 0, fmt.Errorf("count incidents: %w", err)
		}
		return total, nil
	}
	return s.countIncidentsKept(ctx, f)
}

// summaryColumns are the columns the incident list shows (milestone_days says which of its
// figures are approximate): no Markdown sections, which can be
// long and which the list never reads; the three instants its figures need as Unix seconds, which
// scan without parsing dates (every stored instant is whole seconds); and the names of the
// services and regions joined in one string each, computed for the rows of the page only.
func (s *Store) summaryColumns() string {
	epoch := func(column string) string {
		if s.dialect == "postgres" {
			return "CAST(EXTRACT(EPOCH FROM " + column + ") AS BIGINT)"
		}
		return "unixepoch(" + column + ")"
	}
	names := func(link, table, column string) string {
		agg := "group_concat(" + table + ".name, char(31) ORDER BY " + table + ".name)"
		if s.dialect == "postgres" {
			agg = "string_agg(" + table + ".name, chr(31) ORDER BY " + table + ".name)"
		}
		return "(SELECT " + agg + " FROM " + link + " JOIN " + table + " ON " + table + ".id = " + link + "." + column +
			" WHERE " + link + ".incident_id = incidents.id)"
	}
	return "id, title, severity, status, postmortem_state, time_zone, milestone_days, " +
		epoch("started_at") + ", " + epoch("detected_at") + ", " + epoch("resolved_at") + ", " +
		names("incident_services", "services", "service_id") + ", " + names("incident_regions", "regions", "region_id")
}

// nameSeparator joins the names in one column: the ASCII unit separator, which no name contains.
const nameSeparator = "\x1f"

// ListIncidentSummaries returns one page of incidents for the list page, newest start first, and
// the total number that match: the same filter, order and index as ListIncidents, but only the
// columns the list shows and the names of each incident's services and regions, read without the
// ORM's reflection in two statements however long the page. The list page is the hottest page
// there is; ListIncidents still serves whoever needs whole records.
func (s *Store) ListIncidentSummaries(ctx context.Context, f IncidentFilter) ([]Incident, int64, error) {
	db := s.read.WithContext(ctx)
	total, err := s.countIncidents(ctx, db, f)
	if err != nil {
		return nil, 0, err
	}
	rows, err := s.pageIncidents(s.filterIncidents(db, f).Select(s.summaryColumns()), f).Rows()
	if err != nil {
		return nil, 0, fmt.Errorf("list incidents: %w", err)
	}
	defer rows.Close()
	var incidents []Incident
	for rows.Next() {
		var inc Incident
		var started, detected, resolved sql.NullInt64
		var services, regions sql.NullString
		if err := rows.Scan(&inc.ID, &inc.Title, &inc.Severity, &inc.Status, &inc.PostmortemState, &inc.TimeZone, &inc.MilestoneDays,
			&started, &detected, &resolved, &services, &regions); err != nil {
			return nil, 0, fmt.Errorf("read incident list: %w", err)
		}
		inc.StartedAt, inc.DetectedAt, inc.ResolvedAt = unixTime(started), unixTime(detected), unixTime(resolved)
		if services.Valid {
			for _, name := range strings.Split(services.String, nameSeparator) {
				inc.Services = append(inc.Services, Service{Name: name})
			}
		}
		if regions.Valid {
			for _, name := range strings.Split(regions.String, nameSeparator) {
				inc.Regions = append(inc.Regions, Region{Name: name})
			}
		}
		incidents = append(incidents, inc)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("read incident list: %w", err)
	}
	return incidents, total, nil
}

func unixTime(seconds sql.NullInt64) *time.Time {
	if !seconds.Valid {
		return nil
	}
	t := time.Unix(seconds.Int64, 0).UTC()
	return &t
}

func nullTime(t sql.Null[time.Time]) *time.Time {
	if !t.Valid {
		return nil
	}
	u := t.V.UTC()
	return &u
}

// IncidentsMark reads a number that moves, in the same transaction, with every change to an
// incident, its timeline, impact windows, services, regions or factors, and to the names of
// services, regions and factors, whichever process makes it (migration 00008's triggers; the
// insights read the same counter). A page rendered from those tables is still right while the
// mark read before its queries has not moved.
func (s *Store) IncidentsMark(ctx context.Context) (int64, error) { return s.insightsMark(ctx) }
