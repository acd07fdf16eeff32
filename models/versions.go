package models

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// versionFeed is what this process has seen of incident_versions: which incidents changed, in
// any process, since it started, numbered by a generation local to the process. Every cached
// read calls sync first, one indexed statement that reads the rows written since the last look,
// and then compares the generations it kept beside its copy with those the feed holds now.
//
// Nothing here is a mark every writer must lock: on SQLite the rows' versions follow commit
// order (one writer at a time), so the rows above the highest version seen are exactly the new
// ones; on PostgreSQL a row's version is the transaction id that wrote it, and each look reads the
// rows at or above the oldest transaction still running at the previous look, in the same
// statement as the new horizon, so a transaction that began early and committed late is seen
// too. Rows seen again are recognised by their version and count once.
type versionFeed struct {
	mu      sync.Mutex
	started bool
	// since is, on SQLite, the highest version seen; on PostgreSQL the horizon: no transaction
	// older than it can still commit a row not yet seen.
	since int64
	// known holds, on PostgreSQL, the rows seen at or above the horizon.
	known map[int64]versionRow
	// gen counts the changes seen; it moves with every one.
	gen uint64
	// shared is the generation of the last change to names or settings, or of everything.
	shared uint64
	// everything is the generation at which every copy had to be read again.
	everything uint64
	// changed maps an incident to the generation of its last change seen.
	changed map[int64]uint64
	// insights maps an incident to the generation of its last change to what the insights read.
	insights map[int64]uint64
	// looks counts the statements sync ran, for tests.
	looks int64
}

// versionRow is one row of incident_versions.
type versionRow struct {
	id, version, insights int64
}

// generation is what a cached copy keeps beside itself to know whether it is still current.
type generation = uint64

// syncVersions reads what changed since the last look and returns the generation that now
// covers every change committed before it was called.
func (s *Store) syncVersions(ctx context.Context) (generation, error) {
	f := &s.versions
	f.mu.Lock()
	started, since := f.started, f.since
	f.mu.Unlock()
	db := s.read.WithContext(ctx)
	if !started {
		return s.startVersions(ctx)
	}
	var (
		rows    *sql.Rows
		err     error
		horizon = since
	)
	if s.dialect == "postgres" {
		rows, err = db.Raw(`SELECT h.x, v.incident_id, v.version, v.insights_version
			FROM (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS x) AS h
			LEFT JOIN incident_versions v ON v.version >= ?`, since).Rows()
	} else {
		rows, err = db.Raw(`SELECT 0, incident_id, version, insights_version FROM incident_versions
			WHERE version > ?`, since).Rows()
	}
	if err != nil {
		return 0, fmt.Errorf("read what changed: %w", err)
	}
	defer rows.Close()
	var seen []versionRow
	for rows.Next() {
		var (
			x                 int64
			id, ver, insights sql.NullInt64
		)
		if err := rows.Scan(&x, &id, &ver, &insights); err != nil {
			return 0, fmt.Errorf("read what changed: %w", err)
		}
		if s.dialect == "postgres" {
			horizon = max(horizon, x)
		}
		if id.Valid {
			seen = append(seen, versionRow{id.Int64, ver.Int64, insights.Int64})
		}
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("read what changed: %w", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.looks++
	if s.dialect == "postgres" {
		f.applyPostgres(seen, horizon)
	} else {
		f.applySQLite(seen)
	}
	return f.gen, nil
}

// startVersions is the first look: it takes what is there as seen. On PostgreSQL it also reads
// the rows at or above the horizon, in the same statement, so that the next look knows them.
func (s *Store) startVersions(ctx context.Context) (generation, error) {
	f := &s.versions
	db := s.read.WithContext(ctx)
	var (
		start int64
		known = map[int64]versionRow{}
	)
	if s.dialect == "postgres" {
		rows, err := db.Raw(`SELECT h.x, v.incident_id, v.version, v.insights_version
			FROM (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS x) AS h
			LEFT JOIN incident_versions v ON v.version >= h.x`).Rows()
		if err != nil {
			return 0, fmt.Errorf("read the change horizon: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var id, ver, insights sql.NullInt64
			if err := rows.Scan(&start, &id, &ver, &insights); err != nil {
				return 0, fmt.Errorf("read the change horizon: %w", err)
			}
			if id.Valid {
				known[id.Int64] = versionRow{id.Int64, ver.Int64, insights.Int64}
			}
		}
		if err := rows.Err(); err != nil {
			return 0, fmt.Errorf("read the change horizon: %w", err)
		}
	} else if err := db.Raw("SELECT COALESCE(MAX(version), 0) FROM incident_versions").Row().Scan(&start); err != nil {
		return 0, fmt.Errorf("read the change horizon: %w", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.looks++
	if !f.started {
		f.started, f.since, f.known = true, start, known
		f.changed, f.insights = map[int64]uint64{}, map[int64]uint64{}
	}
	return f.gen, nil
}

// applySQLite takes the rows above the highest version seen: a concurrent look that saw more
// has already taken those it saw.
func (f *versionFeed) applySQLite(seen []versionRow) {
	for _, r := range seen {
		if r.version <= f.since {
			continue
		}
		f.take(r.id, r.insights > f.since)
	}
	for _, r := range seen {
		f.since = max(f.since, r.version)
	}
}

// applyPostgres takes the rows whose version differs from the one seen, and forgets the rows
// below the new horizon, which no later look returns.
func (f *versionFeed) applyPostgres(seen []versionRow, horizon int64) {
	for _, r := range seen {
		was, ok := f.known[r.id]
		if ok && was == r {
			continue
		}
		// A row not seen before changed what the insights read if a transaction that may not
		// have been seen yet wrote that part.
		f.take(r.id, (ok && was.insights != r.insights) || (!ok && r.insights >= f.since))
		f.known[r.id] = r
	}
	if horizon > f.since {
		f.since = horizon
		for id, r := range f.known {
			if r.version < horizon {
				delete(f.known, id)
			}
		}
	}
}

// take records one change seen.
func (f *versionFeed) take(id int64, insights bool) {
	f.gen++
	switch id {
	case everythingRow:
		f.everything, f.shared = f.gen, f.gen
	case sharedRow:
		f.shared = f.gen
	default:
		f.changed[id] = f.gen
		if insights {
			f.insights[id] = f.gen
		}
	}
}

// incidentMark is what a copy of an incident's page or nested records keeps: it moves with every
// change to the incident and with every shared change.
type incidentMark struct{ incident, shared generation }

// markOf returns an incident's mark as the feed holds it now.
func (s *Store) markOf(id int64) incidentMark {
	f := &s.versions
	f.mu.Lock()
	defer f.mu.Unlock()
	return incidentMark{f.changed[id], f.shared}
}

// insightsChangedSince returns the feed's generation now, the incidents whose insight rows
// changed after generation since, and whether everything must be read again.
func (s *Store) insightsChangedSince(since generation) (now generation, ids []int64, all bool) {
	return s.versions.changedAfter(since, func(f *versionFeed) map[int64]uint64 { return f.insights })
}

// VersionLooks is how many statements the store ran to learn what changed, for tests.
func (s *Store) VersionLooks() int64 {
	f := &s.versions
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.looks
}

// changedSince returns the feed's generation now, the incidents that changed after generation
// since, and whether everything must be read again.
func (s *Store) changedSince(since generation) (now generation, ids []int64, all bool) {
	return s.versions.changedAfter(since, func(f *versionFeed) map[int64]uint64 { return f.changed })
}

// changedAfter returns the generation now, the incidents of one of the feed's maps (changed or
// insights) moved after generation since, and whether everything must be read again.
func (f *versionFeed) changedAfter(since generation, which func(*versionFeed) map[int64]uint64) (now generation, ids []int64, all bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.everything > since {
		return f.gen, nil, true
	}
	for id, g := range which(f) {
		if g > since {
			ids = append(ids, id)
		}
	}
	return f.gen, ids, false
}
