package models

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"gorm.io/gorm"
)

// Rows of incident_versions that stand for more than one incident.
const (
	// sharedRow moves when something many pages show changes: a service, region or factor is
	// added, renamed or removed, or a setting changes.
	sharedRow = int64(0)
	// everythingRow moves when every derived copy must be read again: a restore, a repair.
	everythingRow = int64(-1)
)

// changes is what one write transaction touched, recorded by the store's write path as it
// writes: which incidents changed, and for which of them what the insights read changed too.
// Before the transaction commits it is written to incident_versions in one statement, so the
// record of a change commits or rolls back with the change.
type changes struct {
	// incidents maps each incident touched to whether what the insights read of it changed.
	incidents map[int64]bool
	// rows holds the incidents whose own row changed, which other incidents' pages show.
	rows map[int64]bool
	// recur holds the incidents whose recurrence copies (recurrence_copies.go) must be written
	// again: their start or deletion, their factors, or their follow-ups or those's factors changed.
	recur map[int64]bool
	// publicBefore holds, for the incidents whose public state a write may change, that state as
	// it was before (watchPublic): before the transaction commits, what became public is queued
	// for the subscribers (notifyPublicChanges).
	publicBefore map[int64]publicState
	// offStatusPage holds the watched incidents this write leaves off the status page: nothing of
	// them to compare.
	offStatusPage map[int64]bool
}

func newChanges() *changes {
	return &changes{incidents: map[int64]bool{}, rows: map[int64]bool{}, recur: map[int64]bool{},
		publicBefore: map[int64]publicState{}, offStatusPage: map[int64]bool{}}
}

// recurrence records that what the recurrence copies of these incidents are made from changed:
// the incident's start or deletion, its factors, or its follow-ups (status, completion, factors).
func (c *changes) recurrence(ids ...int64) {
	for _, id := range ids {
		c.recur[id] = true
	}
	c.incident(ids...)
}

// incident records that something an incident's page shows changed.
func (c *changes) incident(ids ...int64) {
	for _, id := range ids {
		if _, ok := c.incidents[id]; !ok {
			c.incidents[id] = false
		}
	}
}

// insights records that what the insights read of these incidents changed (and so their pages).
func (c *changes) insights(ids ...int64) {
	for _, id := range ids {
		c.incidents[id] = true
	}
}

// row records that an incident's own row changed: its title, state or times, which the pages of
// the incidents linked to it or listing it as similar show too. insights says whether the
// columns the insights read changed.
func (c *changes) row(id int64, insights bool) {
	c.rows[id] = true
	if insights {
		c.insights(id)
	} else {
		c.incident(id)
	}
}

// shared records that names or settings that many pages show changed.
func (c *changes) shared() { c.incidents[sharedRow] = true }

// everything records that every derived copy must be read again.
func (c *changes) everything() { c.incidents[everythingRow] = true }

// inWrite runs fn in a write transaction and records what it touched in the same transaction.
// Every write to incidents, their nested records, tags, links, rankings, settings and the
// publishing record goes through it.
// What fn asks for with afterCommit (waking an outbox's worker) runs once the transaction has
// committed; inside another inWrite (a savepoint), once the outer one has.
func (s *Store) inWrite(ctx context.Context, fn func(tx *gorm.DB, c *changes) error) error {
	c := newChanges()
	hooks, nested := ctx.Value(commitHooksKey{}).(*commitHooks)
	if !nested {
		hooks = &commitHooks{}
		ctx = context.WithValue(ctx, commitHooksKey{}, hooks)
	}
	if !nested && s.dialect == "sqlite" {
		if err := s.writeTurn.wait(ctx); err != nil {
			return fmt.Errorf("wait for the writer: %w", err)
		}
		defer s.writeTurn.done()
	}
	err := s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := fn(tx, c); err != nil {
			return err
		}
		if err := s.notifyPublicChanges(tx, c); err != nil {
			return err
		}
		if c.mayMoveComponents() {
			afterCommit(tx, s.wakeComponents) // component_update webhooks: component_updates.go
		}
		return s.recordChanges(tx, c)
	})
	if err == nil && !nested {
		for _, f := range hooks.fns {
			f()
		}
	}
	return err
}

// commitHooks are what the writes of one inWrite transaction asked to run once it commits.
type commitHooks struct{ fns []func() }

type commitHooksKey struct{}

// afterCommit runs fn once the inWrite transaction tx belongs to has committed, and not at all if
// it rolls back: a worker woken before the commit would find nothing. Outside inWrite it runs at
// once.
func afterCommit(tx *gorm.DB, fn func()) {
	if hooks, ok := tx.Statement.Context.Value(commitHooksKey{}).(*commitHooks); ok {
		hooks.fns = append(hooks.fns, fn)
		return
	}
	fn()
}

// changesBatch bounds how many incidents one statement of recordChanges names: SQLite takes a
// VALUES list of at most 500 rows.
const changesBatch = 400

// recordChanges writes what c touched to incident_versions, one statement per 400
// incidents. The incidents whose own row changed move, in the same statement, the incidents whose
// pages show them: those linked to or from them and those that list them as similar. Rows are
// written in ascending id order so that two PostgreSQL transactions touching the same incidents
// lock them in the same order.
func (s *Store) recordChanges(tx *gorm.DB, c *changes) error {
	for _, st := range s.changesStatements(c) {
		if err := tx.Exec(st.sql, st.args...).Error; err != nil {
			return fmt.Errorf("record what changed: %w", err)
		}
	}
	return nil
}

// statement is one SQL statement with its arguments.
type statement struct {
	sql  string
	args []any
}

// changesStatements are the statements that record c.
func (s *Store) changesStatements(c *changes) []statement {
	out := s.recurrenceStatements(c)
	ids := slices.Sorted(maps.Keys(c.incidents))
	for part := range chunks(ids, changesBatch) {
		values := make([]string, len(part))
		args := make([]any, 0, 2*len(part)+4)
		var rows []int64
		for n, id := range part {
			values[n] = "(?, ?)"
			if s.dialect == "postgres" {
				values[n] = "(?::bigint, ?::int)"
			}
			ins := 0
			if c.incidents[id] {
				ins = 1
			}
			args = append(args, id, ins)
			if c.rows[id] {
				rows = append(rows, id)
			}
		}
		touched := "VALUES " + strings.Join(values, ", ")
		if len(rows) > 0 {
			touched += ` UNION ALL SELECT from_id, 0 FROM incident_links WHERE to_id IN ?
				UNION ALL SELECT to_id, 0 FROM incident_links WHERE from_id IN ?
				UNION ALL SELECT incident_id, 0 FROM similar_suggestions WHERE similar_id IN ?`
			args = append(args, rows, rows, rows)
		}
		version := "(SELECT COALESCE(MAX(version), 0) + 1 FROM incident_versions)"
		if s.dialect == "postgres" {
			version = "(SELECT pg_current_xact_id()::text::bigint)"
		}
		sql := `WITH u (id, ins) AS (` + touched + `)
			INSERT INTO incident_versions (incident_id, version, insights_version)
			SELECT t.id, x.n, CASE WHEN t.ins > 0 THEN x.n ELSE 0 END
			FROM (SELECT id, MAX(ins) AS ins FROM u GROUP BY id) AS t,
				(SELECT ` + version + ` AS n) AS x
			WHERE true
			ON CONFLICT (incident_id) DO UPDATE SET version = excluded.version,
				insights_version = CASE WHEN excluded.insights_version > 0 THEN excluded.insights_version
					ELSE incident_versions.insights_version END`
		out = append(out, statement{sql, args})
	}
	return out
}

// RecordSharedChange records that names or settings many pages show changed, as a rename does:
// every process renders its kept pages again. Benchmarks use it to measure a rendering.
func (s *Store) RecordSharedChange(ctx context.Context) error {
	return s.inWrite(ctx, func(_ *gorm.DB, c *changes) error {
		c.shared()
		return nil
	})
}

// RecordEverything records that every derived copy must be read again, and writes the recurrence
// copies again: what a fill or another program writing plain SQL calls after it commits, since
// the store did not see what it wrote.
func (s *Store) RecordEverything(ctx context.Context) error {
	return s.inWrite(ctx, func(_ *gorm.DB, c *changes) error {
		c.everything()
		return nil
	})
}
