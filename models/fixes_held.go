package models

import (
	"context"
	"fmt"
	"slices"
)

// FixesHeld is the recurrence report's view of which kinds of fixes held: for each factor and
// each follow-up kind, the done follow-ups of that kind addressing the factor, and how many of
// them an incident with the factor came back after.
type FixesHeld struct {
	Rows []FixKindRecord
	// ByKind sums the rows per follow-up kind, in FollowUpKinds order: which kinds hold best.
	ByKind []FixKindRecord
	// NearMisses counts each factor's near misses, by factor id: they are counted apart from its
	// incidents, and a near miss coming back after a fix is counted apart from an incident.
	NearMisses map[int64]int
}

// FixKindRecord is one factor's (or, in ByKind, every factor's) done fixes of one kind.
type FixKindRecord struct {
	Factor Factor // zero in ByKind
	Kind   string
	// Fixes counts the done follow-ups; CameBack those after which an incident with the factor
	// started, NearMissAfter those after which only near misses did. A fix takes effect when it
	// is done or, if later, when its own incident started (as FactorRecurrence.FixedAt).
	Fixes, CameBack, NearMissAfter int
}

// Held counts the fixes no incident came back after.
func (r FixKindRecord) Held() int { return r.Fixes - r.CameBack }

// FixesHeldReport builds the report over every live incident and done follow-up, in two grouped
// statements on the scans' pool (they read every incident): each factor's near misses, and per
// factor and kind the done fixes, how many an incident came back after and how many only a near
// miss did. Grouped in SQL, not in Go: at 100,000 incidents the rows alone took 0.9 s to read.
func (s *Store) FixesHeldReport(ctx context.Context) (*FixesHeld, error) {
	db := s.scan.WithContext(ctx)
	var near []struct {
		FactorID int64
		N        int
	}
	err := db.Raw(nearMissesByFactorSQL).Scan(&near).Error
	if err != nil {
		return nil, fmt.Errorf("fixes held: count near misses: %w", err)
	}
	var grouped []struct {
		FactorID      int64
		Kind          string
		Fixes         int
		CameBack      int
		NearMissAfter int
	}
	err = db.Raw(s.fixesHeldSQL()).Scan(&grouped).Error
	if err != nil {
		return nil, fmt.Errorf("fixes held: count done follow-ups: %w", err)
	}
	factors, err := s.ListFactors(ctx)
	if err != nil {
		return nil, err
	}
	byID := map[int64]Factor{}
	for _, f := range factors {
		byID[f.ID] = f
	}
	out := &FixesHeld{NearMisses: map[int64]int{}}
	for _, n := range near {
		out.NearMisses[n.FactorID] = n.N
	}
	for _, g := range grouped {
		if f, ok := byID[g.FactorID]; ok {
			out.Rows = append(out.Rows, FixKindRecord{Factor: f, Kind: g.Kind, Fixes: g.Fixes, CameBack: g.CameBack, NearMissAfter: g.NearMissAfter})
		}
	}
	kinds := map[string]*FixKindRecord{}
	for _, r := range out.Rows {
		k := kinds[r.Kind]
		if k == nil {
			k = &FixKindRecord{Kind: r.Kind}
			kinds[r.Kind] = k
		}
		k.Fixes, k.CameBack, k.NearMissAfter = k.Fixes+r.Fixes, k.CameBack+r.CameBack, k.NearMissAfter+r.NearMissAfter
	}
	slices.SortFunc(out.Rows, func(a, b FixKindRecord) int {
		if a.Factor.Name != b.Factor.Name {
			return compareText(a.Factor.Name, b.Factor.Name)
		}
		return slices.Index(FollowUpKinds, a.Kind) - slices.Index(FollowUpKinds, b.Kind)
	})
	for _, kind := range FollowUpKinds {
		if k := kinds[kind]; k != nil {
			out.ByKind = append(out.ByKind, *k)
		}
	}
	return out, nil
}

func compareText(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// nearMissesByFactorSQL counts each factor's near misses and finds the latest one's start.
const nearMissesByFactorSQL = `SELECT factor_id, COUNT(*) AS n, MAX(started_unix) AS near
	FROM (` + recurrenceNearMissesSQL + `) nm GROUP BY factor_id`

// fixesHeldSQL groups the done fixes by factor and kind. A fix takes effect when it is done or,
// if later, when its own incident started (as FactorRecurrence.FixedAt); it came back when a
// live incident with the factor started after that, else a near miss after it is counted.
//
// Every figure is read from the recurrence copies' indexes (the tags' started_unix, fixed_unix and
// kind, kept by the write path): each factor's latest start is the first entry of its range of
// incident_factors_recurrence_idx that is not a near miss, and per factor and kind the done fixes,
// those before that start and those between it and the latest near miss are counts of ranges of
// follow_up_factors_kind_idx, so no follow-up or incident is looked up but the near misses (few,
// through their partial index, as recurrenceNearMissesSQL does) and the fixes of incidents with no
// start. Those take effect when they were done; they are read from the incidents with no start
// (through the started index), each one's follow-ups by incident. Comparing each fix with its
// factor's bounds row by row took 0.24 s at 100,000 incidents and 75,000 done fixes; looking every
// fix's follow-up up for its kind, 0.1 s of it.
func (s *Store) fixesHeldSQL() string {
	kept := `SELECT COUNT(*) FROM follow_up_factors y` + s.indexedBy("follow_up_factors_kind_idx") + `
				WHERE y.factor_id = k.factor_id AND y.kind = k.kind AND y.live AND y.fixed_unix IS NOT NULL`
	return `WITH bounds AS (
			SELECT f.id AS factor_id,
				(SELECT y.started_unix FROM incident_factors y WHERE y.factor_id = f.id AND y.live AND y.started_unix IS NOT NULL
					AND y.incident_id NOT IN (SELECT id FROM incidents WHERE near_miss)
					ORDER BY y.started_unix DESC LIMIT 1) AS came,
				n.near AS near
			FROM factors f LEFT JOIN (` + nearMissesByFactorSQL + `) n ON n.factor_id = f.id),
		kinds AS (
			SELECT factor_id, kind, COUNT(*) AS fixes FROM follow_up_factors` + s.indexedBy("follow_up_factors_kind_idx") + `
			WHERE live AND fixed_unix IS NOT NULL GROUP BY factor_id, kind),
		counted AS (
			SELECT k.factor_id AS factor_id, k.kind AS kind, k.fixes AS fixes,
				(` + kept + ` AND y.fixed_unix < b.came) AS came_back,
				(` + kept + ` AND (b.came IS NULL OR y.fixed_unix >= b.came) AND y.fixed_unix < b.near) AS near_miss_after
			FROM kinds k JOIN bounds b ON b.factor_id = k.factor_id
			UNION ALL
			SELECT x.factor_id, x.kind, 1,
				CASE WHEN b.came > x.effective THEN 1 ELSE 0 END,
				CASE WHEN (b.came IS NULL OR b.came <= x.effective) AND b.near > x.effective THEN 1 ELSE 0 END
			FROM (SELECT ff.factor_id AS factor_id, f.kind AS kind, ` + s.epoch("f.done_at") + ` AS effective
				FROM incidents i CROSS JOIN follow_ups f` + s.indexedBy("follow_ups_incident_idx") + ` CROSS JOIN follow_up_factors ff
				WHERE f.incident_id = i.id AND ff.follow_up_id = f.id
					AND i.started_at IS NULL AND i.deleted_at IS NULL AND f.status = 'done' AND f.done_at IS NOT NULL) x
			JOIN bounds b ON b.factor_id = x.factor_id)
		SELECT factor_id, kind, SUM(fixes) AS fixes, SUM(came_back) AS came_back, SUM(near_miss_after) AS near_miss_after
		FROM counted GROUP BY factor_id, kind`
}
