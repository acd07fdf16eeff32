package models

import (
	"context"
	"fmt"
	"time"
)

// The live operational numbers the Prometheus endpoint exposes.

// OperationalCounts are the live numbers the Prometheus endpoint exposes.
type OperationalCounts struct {
	OpenIncidents    map[string]int64 // by severity, every severity present
	OverdueFollowUps map[string]int64 // by priority, every priority present
}

// Operational counts the incidents not yet resolved and the follow-ups still open past their due
// date (as FollowUp.Overdue decides it), leaving out those of deleted incidents.
func (s *Store) Operational(ctx context.Context, now time.Time) (OperationalCounts, error) {
	out := OperationalCounts{OpenIncidents: map[string]int64{}, OverdueFollowUps: map[string]int64{}}
	for _, sev := range Severities {
		out.OpenIncidents[sev] = 0
	}
	for _, p := range FollowUpPriorities {
		out.OverdueFollowUps[p] = 0
	}
	count := func(into map[string]int64, query string, args ...any) error {
		rows, err := s.read.WithContext(ctx).Raw(query, args...).Rows()
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var key string
			var n int64
			if err := rows.Scan(&key, &n); err != nil {
				return err
			}
			into[key] = n
		}
		return rows.Err()
	}
	if err := count(out.OpenIncidents, `SELECT severity, COUNT(*) FROM incidents
		WHERE deleted_at IS NULL AND status <> 'resolved' GROUP BY severity`); err != nil {
		return out, fmt.Errorf("count open incidents: %w", err)
	}
	today := time.Date(now.UTC().Year(), now.UTC().Month(), now.UTC().Day(), 0, 0, 0, 0, time.UTC)
	if err := count(out.OverdueFollowUps, `SELECT f.priority, COUNT(*) FROM follow_ups f
		JOIN incidents i ON i.id = f.incident_id
		WHERE i.deleted_at IS NULL AND f.status IN ('open', 'in_progress') AND f.due_on < ?
		GROUP BY f.priority`, today); err != nil {
		return out, fmt.Errorf("count overdue follow-ups: %w", err)
	}
	return out, nil
}
