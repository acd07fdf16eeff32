package models

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"time"

	"gorm.io/gorm"
)

// RecurrenceIncident is one incident tagged with a factor.
type RecurrenceIncident struct {
	ID        int64
	Title     string
	StartedAt *time.Time
	// CameBackAfter is the follow-up, from an earlier incident and addressing the same factor,
	// that was marked done before this incident started; 0 when none was.
	CameBackAfter int64
}

// RecurrenceFollowUp is a follow-up addressing a factor.
type RecurrenceFollowUp struct {
	ID         int64
	IncidentID int64
	Title      string
	Status     string
	DoneAt     *time.Time
}

// FactorRecurrence is one factor's line in the recurrence report.
type FactorRecurrence struct {
	Factor         Factor
	Incidents      []RecurrenceIncident // newest first
	FollowUps      []RecurrenceFollowUp
	LastOccurrence *time.Time
	// CameBack counts incidents that started after a fix for this factor was marked done.
	CameBack int
	// Recurs is true when two or more incidents carry the factor.
	Recurs bool
	// Unaddressed is true when the factor recurs and no follow-up addresses it.
	Unaddressed bool
}

// StatusCounts counts the factor's follow-ups by status.
func (r FactorRecurrence) StatusCounts() map[string]int {
	counts := map[string]int{}
	for _, f := range r.FollowUps {
		counts[f.Status]++
	}
	return counts
}

// Recurrence builds the report: for each factor its incidents, the follow-ups addressing it,
// and the flags. Three narrow queries, whatever the number of factors.
func (s *Store) Recurrence(ctx context.Context) ([]FactorRecurrence, error) {
	db := s.read.WithContext(ctx)
	factors, err := s.ListFactors(ctx)
	if err != nil {
		return nil, err
	}
	// Plain database/sql scanning: these queries return a row per tag, tens of thousands of them
	// on a big database, and reflection-based scanning was most of the report's time.
	type incidentRow struct {
		factorID, id int64
		title        string
		startedAt    *time.Time
	}
	var incidents []incidentRow
	err = scanRows(db, `SELECT fi.factor_id, i.id, i.title, i.started_at FROM incident_factors fi
		JOIN incidents i ON i.id = fi.incident_id AND i.deleted_at IS NULL`, func(scan func(...any) error) error {
		var r incidentRow
		var started sql.Null[time.Time]
		if err := scan(&r.factorID, &r.id, &r.title, &started); err != nil {
			return err
		}
		r.startedAt = nullTime(started)
		incidents = append(incidents, r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("recurrence incidents: %w", err)
	}
	type followUpRow struct {
		factorID, id, incidentID int64
		title, status            string
		doneAt, incidentStarted  *time.Time
	}
	var followUps []followUpRow
	err = scanRows(db, `SELECT ff.factor_id, u.id, u.incident_id, u.title, u.status, u.done_at, i.started_at FROM follow_up_factors ff
		JOIN follow_ups u ON u.id = ff.follow_up_id
		JOIN incidents i ON i.id = u.incident_id AND i.deleted_at IS NULL`, func(scan func(...any) error) error {
		var r followUpRow
		var done, started sql.Null[time.Time]
		if err := scan(&r.factorID, &r.id, &r.incidentID, &r.title, &r.status, &done, &started); err != nil {
			return err
		}
		r.doneAt, r.incidentStarted = nullTime(done), nullTime(started)
		followUps = append(followUps, r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("recurrence follow-ups: %w", err)
	}
	byFactor := map[int64]*FactorRecurrence{}
	out := make([]FactorRecurrence, len(factors))
	for n, f := range factors {
		out[n].Factor = f
		byFactor[f.ID] = &out[n]
	}
	started := map[int64]*time.Time{}
	for _, r := range incidents {
		if fr := byFactor[r.factorID]; fr != nil {
			fr.Incidents = append(fr.Incidents, RecurrenceIncident{ID: r.id, Title: r.title, StartedAt: r.startedAt})
		}
		started[r.id] = r.startedAt
	}
	for _, r := range followUps {
		started[r.incidentID] = r.incidentStarted
		if fr := byFactor[r.factorID]; fr != nil {
			fr.FollowUps = append(fr.FollowUps, RecurrenceFollowUp{ID: r.id, IncidentID: r.incidentID, Title: r.title, Status: r.status, DoneAt: r.doneAt})
		}
	}
	for n := range out {
		flagRecurrence(&out[n], started)
	}
	sort.SliceStable(out, func(a, b int) bool { return len(out[a].Incidents) > len(out[b].Incidents) })
	return out, nil
}

// flagRecurrence sorts a factor's incidents newest first and sets its flags. An incident came
// back after a fix when a follow-up addressing the factor, from another incident that started
// earlier, was marked done before it started.
func flagRecurrence(fr *FactorRecurrence, started map[int64]*time.Time) {
	sort.Slice(fr.Incidents, func(a, b int) bool { return later(fr.Incidents[a].StartedAt, fr.Incidents[b].StartedAt) })
	sort.Slice(fr.FollowUps, func(a, b int) bool { return fr.FollowUps[a].ID < fr.FollowUps[b].ID })
	var fixes []RecurrenceFollowUp
	for _, f := range fr.FollowUps {
		if f.Status == "done" && f.DoneAt != nil {
			fixes = append(fixes, f)
		}
	}
	sort.Slice(fixes, func(a, b int) bool { return fixes[a].DoneAt.Before(*fixes[b].DoneAt) })
	for n := range fr.Incidents {
		inc := &fr.Incidents[n]
		if inc.StartedAt == nil {
			continue
		}
		for _, fix := range fixes {
			if !fix.DoneAt.Before(*inc.StartedAt) {
				break // fixes are in completion order: the rest were done later still
			}
			fixStart := started[fix.IncidentID]
			if fix.IncidentID != inc.ID && fixStart != nil && fixStart.Before(*inc.StartedAt) {
				inc.CameBackAfter = fix.ID
				fr.CameBack++
				break
			}
		}
	}
	if len(fr.Incidents) > 0 {
		fr.LastOccurrence = fr.Incidents[0].StartedAt
	}
	fr.Recurs = len(fr.Incidents) >= 2
	fr.Unaddressed = fr.Recurs && len(fr.FollowUps) == 0
}

// later orders instants newest first, unknown last.
func later(a, b *time.Time) bool {
	switch {
	case a == nil:
		return false
	case b == nil:
		return true
	}
	return a.After(*b)
}

// scanRows runs a query and hands each row to fn, without gorm's reflection.
func scanRows(db *gorm.DB, query string, fn func(scan func(...any) error) error, args ...any) error {
	rows, err := db.Raw(query, args...).Rows()
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows.Scan); err != nil {
			return err
		}
	}
	return rows.Err()
}
