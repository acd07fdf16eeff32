package models

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"time"

	"gorm.io/gorm"
)

// RecurrenceListed is how many incidents and follow-ups the report lists per factor unless asked
// for another number; RecurrenceMaxListed is the most it lists. The counts and flags always cover
// every incident and follow-up.
const (
	RecurrenceListed    = 100
	RecurrenceMaxListed = 1000
)

// recurrenceBuckets is how many equal spans a busy factor's time line is cut into: about five
// units of the strip's thousand each, finer than a tick. Tests lower it to try both time lines on
// few incidents.
var recurrenceBuckets = 200

// RecurrenceIncident is one incident tagged with a factor.
type RecurrenceIncident struct {
	ID        int64
	Title     string
	StartedAt *time.Time
	// CameBackAfter is the factor's fix (FactorRecurrence.Fix) when this incident came back after
	// it; 0 when it did not, and for a near miss, which is counted apart.
	CameBackAfter int64
	// NearMiss marks a near miss: listed, but counted apart from the incidents.
	NearMiss bool
}

// RecurrenceFollowUp is a follow-up addressing a factor.
type RecurrenceFollowUp struct {
	ID         int64
	IncidentID int64
	Title      string
	Status     string
	DoneAt     *time.Time
}

// RecurrenceBucket is one span of a factor's time line, [From, To), with the incidents that
// started in it. A factor with few incidents has a span per distinct start, one second long.
type RecurrenceBucket struct {
	From, To  time.Time
	Incidents int
	// CameBack counts those that came back after the factor's fix.
	CameBack int
}

// FactorRecurrence is one factor's line in the recurrence report.
type FactorRecurrence struct {
	Factor Factor
	// Incidents are the most recent of the factor's incidents, newest first and those without a
	// start last, as many as the report was asked to list; IncidentCount counts them all.
	Incidents     []RecurrenceIncident
	IncidentCount int
	// FollowUps are the first follow-ups filed addressing the factor, as many as the report was
	// asked to list; FollowUpCount counts them all and FollowUpsByStatus by status.
	FollowUps         []RecurrenceFollowUp
	FollowUpCount     int
	FollowUpsByStatus map[string]int
	// FirstOccurrence and LastOccurrence are the earliest and latest known starts.
	FirstOccurrence, LastOccurrence *time.Time
	// Timeline is when the incidents with a known start happened, oldest first: a span per
	// distinct start when they are fewer than 200, else FirstOccurrence to LastOccurrence in 200
	// equal spans, leaving out those without incidents.
	Timeline []RecurrenceBucket
	// Fix is the done follow-up addressing the factor that took effect first: a fix takes effect
	// when it is marked done or, if later, when its own incident started. FixedAt is that
	// instant. An incident came back after its fix exactly when it started after FixedAt, for then
	// a follow-up from an earlier incident had been done before it started. Fix is 0 and FixedAt
	// nil when no follow-up addressing the factor is done.
	Fix     int64
	FixedAt *time.Time
	// CameBack counts incidents that started after a fix for this factor was marked done.
	CameBack int
	// NearMisses counts the factor's near misses (no customer impact), which IncidentCount, the
	// time line, CameBack, Recurs and Unaddressed leave out; Incidents lists them, marked.
	NearMisses int
	// Recurs is true when two or more incidents carry the factor.
	Recurs bool
	// Unaddressed is true when the factor recurs and no follow-up addresses it.
	Unaddressed bool
}

// Recurrence builds the report listing RecurrenceListed incidents and follow-ups per factor.
func (s *Store) Recurrence(ctx context.Context) ([]FactorRecurrence, error) {
	return s.RecurrenceListing(ctx, RecurrenceListed)
}

// RecurrenceListing builds the report: for each factor, busiest first, its counts, flags and time
// line over every live incident and follow-up, and the first listed (at most RecurrenceMaxListed)
// of its incidents and follow-ups, near misses counted apart. Five statements (three when listed is 0) whatever the number
// of factors, incidents and follow-ups, each reading indexes of the factor tags, which migration
// 00014 gives a copy of the incident's start and deletion and of when a follow-up took effect as
// a fix, or the follow-up totals kept in memory: no statement reads a wide table per tag, and
// none returns more rows than the factors times listed or times the spans of the time line.
func (s *Store) RecurrenceListing(ctx context.Context, listed int) ([]FactorRecurrence, error) {
	listed = min(max(listed, 0), RecurrenceMaxListed)
	db := s.read.WithContext(ctx)
	out, err := s.recurrenceSummary(db)
	if err != nil || len(out) == 0 {
		return out, err
	}
	byID := make(map[int64]*FactorRecurrence, len(out))
	for n := range out {
		byID[out[n].Factor.ID] = &out[n]
	}
	if err := s.recurrenceTimeline(db, byID); err != nil {
		return nil, err
	}
	if err := s.recurrenceStatuses(ctx, byID); err != nil {
		return nil, err
	}
	nearMisses, err := s.recurrenceNearMisses(db, byID)
	if err != nil {
		return nil, err
	}
	if listed > 0 {
		if err := s.recurrenceIncidents(db, out, byID, listed); err != nil {
			return nil, err
		}
		if err := s.recurrenceFollowUps(db, out, byID, listed); err != nil {
			return nil, err
		}
	}
	for n := range out {
		r := &out[n]
		for m := range r.Incidents {
			if nearMisses[r.Incidents[m].ID] {
				r.Incidents[m].NearMiss, r.Incidents[m].CameBackAfter = true, 0
			}
		}
		r.Recurs = r.IncidentCount >= 2
		r.Unaddressed = r.Recurs && r.FollowUpCount == 0
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].IncidentCount > out[b].IncidentCount })
	return out, nil
}

// recurrenceSpan is, per factor, the earliest and latest start of its live incidents and the
// instant after which they came back: each read at one end of an index.
const recurrenceSpan = `SELECT f.id AS factor_id,
	(SELECT MIN(x.started_unix) FROM incident_factors x WHERE x.factor_id = f.id AND x.live) AS lo,
	(SELECT MAX(x.started_unix) FROM incident_factors x WHERE x.factor_id = f.id AND x.live) AS hi,
	(SELECT MIN(y.fixed_unix) FROM follow_up_factors y WHERE y.factor_id = f.id AND y.live AND y.fixed_unix IS NOT NULL) AS fixed
	FROM factors f`

// recurrenceSummarySQL reads the factors by name with their span, the fix, and how many of their
// incidents have no start.
const recurrenceSummarySQL = `SELECT f.id, f.slug, f.name, f.description, f.created_at, f.updated_at, s.lo, s.hi, s.fixed,
	(SELECT y.follow_up_id FROM follow_up_factors y WHERE y.factor_id = f.id AND y.live AND y.fixed_unix IS NOT NULL
		ORDER BY y.fixed_unix, y.follow_up_id LIMIT 1),
	(SELECT COUNT(*) FROM incident_factors x WHERE x.factor_id = f.id AND x.live AND x.started_unix IS NULL)
	FROM factors f JOIN (` + recurrenceSpan + `) s ON s.factor_id = f.id
	ORDER BY f.name`

// recurrenceSummary reads the factors by name with their span, the fix, and how many of their
// incidents have no start.
func (s *Store) recurrenceSummary(db *gorm.DB) ([]FactorRecurrence, error) {
	var out []FactorRecurrence
	err := scanRows(db, recurrenceSummarySQL, func(scan func(...any) error) error {
		var r FactorRecurrence
		var lo, hi, fixed, fix sql.NullInt64
		if err := scan(&r.Factor.ID, &r.Factor.Slug, &r.Factor.Name, &r.Factor.Description, &r.Factor.CreatedAt, &r.Factor.UpdatedAt,
			&lo, &hi, &fixed, &fix, &r.IncidentCount); err != nil {
			return err
		}
		r.FirstOccurrence, r.LastOccurrence, r.FixedAt, r.Fix = unixTime(lo), unixTime(hi), unixTime(fixed), fix.Int64
		r.FollowUpsByStatus = map[string]int{}
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("recurrence summary: %w", err)
	}
	return out, nil
}

// recurrenceTimelineSQL reads each factor's time line. A factor with fewer dated incidents than
// recurrenceBuckets gets a span per distinct start, read from its range of the index. A busier
// one gets recurrenceBuckets equal spans, each counting its own range of the index: grouping by an
// expression of the start would make SQLite sort every tag, while this visits each index entry
// once, in order. A span entirely after the fix came back whole, one entirely before not at all;
// only the span holding the fix's instant counts its range after it. CROSS JOIN keeps SQLite
// reading the factors first, so that only the quiet factors' ranges are read.
func recurrenceTimelineSQL() string {
	return fmt.Sprintf(`WITH RECURSIVE span AS MATERIALIZED (
			SELECT s.*, (SELECT COUNT(*) FROM (SELECT 1 FROM incident_factors x WHERE x.factor_id = s.factor_id AND x.live
				AND x.started_unix IS NOT NULL LIMIT %[2]d) AS dated) AS dated
			FROM (%[1]s) AS s),
		bucket (factor_id, k, lo, width, fixed) AS (
			SELECT factor_id, 0, lo, (hi - lo) / %[2]d + 1, fixed FROM span WHERE dated = %[2]d
			UNION ALL SELECT factor_id, k + 1, lo, width, fixed FROM bucket WHERE k + 1 < %[2]d),
		counted AS MATERIALIZED (
			SELECT b.factor_id, b.lo + b.k * b.width AS from_unix, b.lo + (b.k + 1) * b.width AS to_unix, b.fixed,
				(SELECT COUNT(*) FROM incident_factors x WHERE x.factor_id = b.factor_id AND x.live
					AND x.started_unix >= b.lo + b.k * b.width AND x.started_unix < b.lo + (b.k + 1) * b.width) AS n
			FROM bucket b)
		SELECT c.factor_id, c.from_unix, c.to_unix, c.n,
			CASE WHEN c.fixed IS NULL OR c.to_unix <= c.fixed + 1 THEN 0
				WHEN c.from_unix > c.fixed THEN c.n
				ELSE (SELECT COUNT(*) FROM incident_factors x WHERE x.factor_id = c.factor_id AND x.live
					AND x.started_unix > c.fixed AND x.started_unix < c.to_unix) END
		FROM counted c WHERE c.n > 0
		UNION ALL
		SELECT x.factor_id, x.started_unix, x.started_unix + 1, COUNT(*),
			SUM(CASE WHEN x.started_unix > s.fixed THEN 1 ELSE 0 END)
		FROM span s CROSS JOIN incident_factors x
		WHERE s.dated < %[2]d AND x.factor_id = s.factor_id AND x.live AND x.started_unix IS NOT NULL
		GROUP BY x.factor_id, x.started_unix
		ORDER BY 1, 2`, recurrenceSpan, recurrenceBuckets)
}

// recurrenceTimeline reads the time lines and adds their counts to the factors'.
func (s *Store) recurrenceTimeline(db *gorm.DB, byID map[int64]*FactorRecurrence) error {
	err := scanRows(db, recurrenceTimelineSQL(), func(scan func(...any) error) error {
		var factorID, from, to int64
		var b RecurrenceBucket
		if err := scan(&factorID, &from, &to, &b.Incidents, &b.CameBack); err != nil {
			return err
		}
		b.From, b.To = time.Unix(from, 0).UTC(), time.Unix(to, 0).UTC()
		if r := byID[factorID]; r != nil {
			r.Timeline = append(r.Timeline, b)
			r.IncidentCount += b.Incidents
			r.CameBack += b.CameBack
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("recurrence time line: %w", err)
	}
	return nil
}

// recurrenceNearMissesSQL reads the factor tags of near misses, through the partial index of
// near misses (migration 00033), which are few.
//
// CROSS JOIN keeps the near misses as the outer loop on SQLite, read from their partial index:
// joined plainly, SQLite walked every factor tag and looked each incident up (150 ms at 100,000
// incidents with no near miss at all). PostgreSQL plans it as the inner join it is.
const recurrenceNearMissesSQL = `SELECT x.factor_id, x.incident_id, x.started_unix
	FROM incidents nm CROSS JOIN incident_factors x
	WHERE x.incident_id = nm.id AND nm.near_miss AND x.live`

// recurrenceNearMisses takes the factors' near misses out of their counts and time lines and
// counts them apart (issue 18): a near miss had no customer impact, so it neither makes a factor
// recur nor comes back after its fix. It returns the near misses' ids.
func (s *Store) recurrenceNearMisses(db *gorm.DB, byID map[int64]*FactorRecurrence) (map[int64]bool, error) {
	ids := map[int64]bool{}
	err := scanRows(db, recurrenceNearMissesSQL, func(scan func(...any) error) error {
		var factorID, incidentID int64
		var started sql.NullInt64
		if err := scan(&factorID, &incidentID, &started); err != nil {
			return err
		}
		ids[incidentID] = true
		r := byID[factorID]
		if r == nil {
			return nil
		}
		r.IncidentCount--
		r.NearMisses++
		if !started.Valid {
			return nil
		}
		cameBack := r.FixedAt != nil && started.Int64 > r.FixedAt.Unix()
		if cameBack {
			r.CameBack--
		}
		for n := range r.Timeline {
			b := &r.Timeline[n]
			if started.Int64 >= b.From.Unix() && started.Int64 < b.To.Unix() {
				b.Incidents--
				if cameBack {
					b.CameBack--
				}
				if b.Incidents == 0 {
					r.Timeline = append(r.Timeline[:n], r.Timeline[n+1:]...)
				}
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("recurrence near misses: %w", err)
	}
	return ids, nil
}

// recurrenceStatuses counts each factor's follow-ups by status, from the totals the store keeps
// in memory (list_counts.go).
func (s *Store) recurrenceStatuses(ctx context.Context, byID map[int64]*FactorRecurrence) error {
	byFactor, err := s.followUpStatusesByFactor(ctx)
	if err != nil {
		return fmt.Errorf("recurrence follow-up counts: %w", err)
	}
	for factorID, statuses := range byFactor {
		if r := byID[factorID]; r != nil {
			for status, n := range statuses {
				r.FollowUpsByStatus[status] = n
				r.FollowUpCount += n
			}
		}
	}
	return nil
}

// perFactor joins each factor to the first rows of its own index range: the n most recent
// incidents, say, of every factor in one statement, reading no more than those. PostgreSQL says it
// with LATERAL; SQLite, which lacks it, with a list of rowids from a correlated subquery, which
// its planner runs once per factor and then looks up. first selects from the table aliased y,
// filtered on y.factor_id = f.id, ordered and limited; columns are what the outer query reads from
// the rows found, aliased x.
func (s *Store) perFactor(table, columns, first string) string {
	if s.dialect == "postgres" {
		return "factors f CROSS JOIN LATERAL (SELECT " + columns + " FROM " + table + " y " + first + ") AS x"
	}
	return "factors f JOIN " + table + " x ON x.rowid IN (SELECT y.rowid FROM " + table + " y " + first + ")"
}

// recurrenceIncidentsSQL reads each factor's most recent incidents, newest first, unknown starts
// last, from the end of its index range.
func (s *Store) recurrenceIncidentsSQL() string {
	return `SELECT x.factor_id, i.id, i.title, x.started_unix FROM ` +
		s.perFactor("incident_factors", "y.factor_id, y.incident_id, y.started_unix",
			"WHERE y.factor_id = f.id AND y.live ORDER BY y.started_unix DESC NULLS LAST, y.incident_id DESC LIMIT ?") +
		` JOIN incidents i ON i.id = x.incident_id`
}

// recurrenceIncidents lists each factor's most recent incidents and marks those that came back.
func (s *Store) recurrenceIncidents(db *gorm.DB, out []FactorRecurrence, byID map[int64]*FactorRecurrence, listed int) error {
	err := scanRows(db, s.recurrenceIncidentsSQL(), func(scan func(...any) error) error {
		var factorID int64
		var inc RecurrenceIncident
		var started sql.NullInt64
		if err := scan(&factorID, &inc.ID, &inc.Title, &started); err != nil {
			return err
		}
		inc.StartedAt = unixTime(started)
		if r := byID[factorID]; r != nil {
			if inc.StartedAt != nil && r.FixedAt != nil && inc.StartedAt.After(*r.FixedAt) {
				inc.CameBackAfter = r.Fix
			}
			r.Incidents = append(r.Incidents, inc)
		}
		return nil
	}, listed)
	if err != nil {
		return fmt.Errorf("recurrence incidents: %w", err)
	}
	for n := range out {
		list := out[n].Incidents
		sort.Slice(list, func(a, b int) bool { return newestFirst(list[a], list[b]) })
	}
	return nil
}

// recurrenceFollowUpsSQL reads the first follow-ups filed addressing each factor.
func (s *Store) recurrenceFollowUpsSQL() string {
	return `SELECT x.factor_id, u.id, u.incident_id, u.title, u.status, ` + s.epoch("u.done_at") + ` FROM ` +
		s.perFactor("follow_up_factors", "y.factor_id, y.follow_up_id",
			"WHERE y.factor_id = f.id AND y.live ORDER BY y.follow_up_id LIMIT ?") +
		` JOIN follow_ups u ON u.id = x.follow_up_id`
}

// recurrenceFollowUps lists the first follow-ups filed addressing each factor.
func (s *Store) recurrenceFollowUps(db *gorm.DB, out []FactorRecurrence, byID map[int64]*FactorRecurrence, listed int) error {
	err := scanRows(db, s.recurrenceFollowUpsSQL(), func(scan func(...any) error) error {
		var factorID int64
		var f RecurrenceFollowUp
		var done sql.NullInt64
		if err := scan(&factorID, &f.ID, &f.IncidentID, &f.Title, &f.Status, &done); err != nil {
			return err
		}
		f.DoneAt = unixTime(done)
		if r := byID[factorID]; r != nil {
			r.FollowUps = append(r.FollowUps, f)
		}
		return nil
	}, listed)
	if err != nil {
		return fmt.Errorf("recurrence follow-ups: %w", err)
	}
	for n := range out {
		list := out[n].FollowUps
		sort.Slice(list, func(a, b int) bool { return list[a].ID < list[b].ID })
	}
	return nil
}

// ExplainRecurrence returns the database's plan for each of the report's statements, by name,
// so tests can prove that they read the indexes of migration 00014 and nothing per tag besides.
func (s *Store) ExplainRecurrence(ctx context.Context, listed int) (map[string]string, error) {
	db := s.read.WithContext(ctx)
	statements := []struct {
		name, query string
		args        []any
	}{
		{"summary", recurrenceSummarySQL, nil}, {"timeline", recurrenceTimelineSQL(), nil},
		{"incidents", s.recurrenceIncidentsSQL(), []any{listed}}, {"follow-ups", s.recurrenceFollowUpsSQL(), []any{listed}},
		{"near misses", recurrenceNearMissesSQL, nil},
	}
	prefix := "EXPLAIN QUERY PLAN "
	if s.dialect == "postgres" {
		prefix = "EXPLAIN "
	}
	plans := map[string]string{}
	for _, st := range statements {
		var plan strings.Builder
		err := scanRows(db, prefix+st.query, func(scan func(...any) error) error {
			// SQLite answers id, parent, notused, detail; PostgreSQL one line of text.
			values := make([]any, 4)
			if s.dialect == "postgres" {
				values = values[:1]
			}
			ptrs := make([]any, len(values))
			for n := range values {
				ptrs[n] = &values[n]
			}
			if err := scan(ptrs...); err != nil {
				return err
			}
			fmt.Fprintln(&plan, values[len(values)-1])
			return nil
		}, st.args...)
		if err != nil {
			return nil, fmt.Errorf("explain recurrence %s: %w", st.name, err)
		}
		plans[st.name] = plan.String()
	}
	return plans, nil
}

// newestFirst orders incidents by start, newest first and unknown last, then by id, the way the
// index lists them.
func newestFirst(a, b RecurrenceIncident) bool {
	switch {
	case a.StartedAt == nil && b.StartedAt == nil:
		return a.ID > b.ID
	case a.StartedAt == nil:
		return false
	case b.StartedAt == nil:
		return true
	case !a.StartedAt.Equal(*b.StartedAt):
		return a.StartedAt.After(*b.StartedAt)
	}
	return a.ID > b.ID
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
