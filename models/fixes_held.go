package models

import (
	"context"
	"fmt"
	"slices"
	"time"
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

// FixesHeldReport builds the report over every live incident and done follow-up, in two
// statements on the scans' pool (they read every incident).
func (s *Store) FixesHeldReport(ctx context.Context) (*FixesHeld, error) {
	db := s.scan.WithContext(ctx)
	var fixes []struct {
		FactorID  int64
		Kind      string
		DoneAt    time.Time
		StartedAt *time.Time
	}
	err := db.Raw(`SELECT ff.factor_id, f.kind, f.done_at, i.started_at
		FROM follow_up_factors ff JOIN follow_ups f ON f.id = ff.follow_up_id JOIN incidents i ON i.id = f.incident_id
		WHERE f.status = 'done' AND f.done_at IS NOT NULL AND i.deleted_at IS NULL`).Scan(&fixes).Error
	if err != nil {
		return nil, fmt.Errorf("fixes held: read done follow-ups: %w", err)
	}
	var incidents []struct {
		FactorID  int64
		StartedAt *time.Time
		NearMiss  bool
	}
	err = db.Raw(`SELECT fi.factor_id, i.started_at, i.near_miss
		FROM incident_factors fi JOIN incidents i ON i.id = fi.incident_id WHERE i.deleted_at IS NULL`).Scan(&incidents).Error
	if err != nil {
		return nil, fmt.Errorf("fixes held: read incidents: %w", err)
	}
	factors, err := s.ListFactors(ctx)
	if err != nil {
		return nil, err
	}
	byID := map[int64]Factor{}
	for _, f := range factors {
		byID[f.ID] = f
	}
	// The latest start per factor, of incidents and of near misses.
	latest, latestNear := map[int64]time.Time{}, map[int64]time.Time{}
	out := &FixesHeld{NearMisses: map[int64]int{}}
	for _, inc := range incidents {
		if inc.NearMiss {
			out.NearMisses[inc.FactorID]++
		}
		if inc.StartedAt == nil {
			continue
		}
		m := latest
		if inc.NearMiss {
			m = latestNear
		}
		if inc.StartedAt.After(m[inc.FactorID]) {
			m[inc.FactorID] = *inc.StartedAt
		}
	}
	type key struct {
		factor int64
		kind   string
	}
	rows := map[key]*FixKindRecord{}
	for _, fx := range fixes {
		f, ok := byID[fx.FactorID]
		if !ok {
			continue
		}
		effective := fx.DoneAt
		if fx.StartedAt != nil && fx.StartedAt.After(effective) {
			effective = *fx.StartedAt
		}
		k := key{fx.FactorID, fx.Kind}
		r := rows[k]
		if r == nil {
			r = &FixKindRecord{Factor: f, Kind: fx.Kind}
			rows[k] = r
		}
		r.Fixes++
		switch {
		case latest[fx.FactorID].After(effective):
			r.CameBack++
		case latestNear[fx.FactorID].After(effective):
			r.NearMissAfter++
		}
	}
	kinds := map[string]*FixKindRecord{}
	for _, r := range rows {
		out.Rows = append(out.Rows, *r)
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
