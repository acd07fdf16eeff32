package models

import (
	"fmt"
	"maps"
	"slices"
)

// The recurrence copies (migration 00014) are what the recurrence report reads instead of
// joining every factor's rows to their incidents and follow-ups: each incident_factors row
// carries its incident's start in Unix seconds and whether the incident is live, and each
// follow_up_factors row the moment its follow-up counted as a fix (done, at the later of its
// completion and the incident's start), the follow-up's kind (migration 00041, for the fixes-held
// report) and whether its incident is live. The write path writes
// them again, before commit, for the incidents whose start, deletion, factors or follow-ups a
// transaction changed (changes.recurrence); doctor recomputes and compares them.

// recurrenceStatements are the statements that write again the recurrence copies of the
// incidents c names for it, or of every incident when c says everything changed.
func (s *Store) recurrenceStatements(c *changes) []statement {
	factors, followUps := recurrenceCopySQL(s.dialect)
	if c.incidents[everythingRow] {
		return []statement{{fmt.Sprintf(factors, "true"), nil}, {fmt.Sprintf(followUps, "true"), nil}}
	}
	var out []statement
	for part := range chunks(slices.Sorted(maps.Keys(c.recur)), changesBatch) {
		out = append(out,
			statement{fmt.Sprintf(factors, "f.incident_id IN ?"), []any{part}},
			statement{fmt.Sprintf(followUps, "u.incident_id IN ?"), []any{part}})
	}
	return out
}

// recurrenceCopySQL returns the two statements that write the copies, each with a %s for a
// condition on f.incident_id (the incident of a factor row) or u.incident_id (the incident of a
// follow-up). On PostgreSQL rows already right are left alone, so that a copy that did not
// change costs no row version.
func recurrenceCopySQL(dialect string) (factors, followUps string) {
	if dialect == "postgres" {
		return `UPDATE incident_factors AS f SET started_unix = recurrence_unix(i.started_at), live = i.deleted_at IS NULL
			FROM incidents i WHERE i.id = f.incident_id AND %s
				AND (f.started_unix IS DISTINCT FROM recurrence_unix(i.started_at) OR f.live IS DISTINCT FROM (i.deleted_at IS NULL))`,
			`UPDATE follow_up_factors AS ff SET fixed_unix = recurrence_fixed(u.status, u.done_at, i.started_at), live = i.deleted_at IS NULL, kind = u.kind
			FROM follow_ups u JOIN incidents i ON i.id = u.incident_id WHERE u.id = ff.follow_up_id AND %s
				AND (ff.fixed_unix IS DISTINCT FROM recurrence_fixed(u.status, u.done_at, i.started_at) OR ff.live IS DISTINCT FROM (i.deleted_at IS NULL)
					OR ff.kind IS DISTINCT FROM u.kind)`
	}
	return `UPDATE incident_factors AS f SET (started_unix, live) = (SELECT unixepoch(i.started_at), i.deleted_at IS NULL
			FROM incidents i WHERE i.id = f.incident_id) WHERE %s`,
		`UPDATE follow_up_factors AS ff SET (fixed_unix, live, kind) = (SELECT CASE WHEN u.status = 'done' AND u.done_at IS NOT NULL
				AND i.started_at IS NOT NULL THEN max(unixepoch(u.done_at), unixepoch(i.started_at)) END, i.deleted_at IS NULL, u.kind
			FROM follow_ups u JOIN incidents i ON i.id = u.incident_id WHERE u.id = ff.follow_up_id)
			WHERE ff.follow_up_id IN (SELECT u.id FROM follow_ups u WHERE %s)`
}
