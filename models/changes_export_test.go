package models

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// ChangesSQL returns the statements the write path runs before a commit to record that these
// incidents changed (insights: what the insights read of them too), with their values written
// in, so that a test writing plain SQL, as another program might through the store, records its
// writes in its own transaction as the store does. shared and everything choose the rows that
// stand for names and settings, and for every copy.
func (s *Store) ChangesSQL(insights, shared, everything bool, ids ...int64) []string {
	c := newChanges()
	if insights {
		c.insights(ids...)
	} else {
		c.incident(ids...)
	}
	if shared {
		c.shared()
	}
	if everything {
		c.everything()
	}
	var out []string
	for _, st := range s.changesStatements(c) {
		q := st.sql
		for _, a := range st.args {
			q = strings.Replace(q, "?", fmt.Sprint(a), 1)
		}
		out = append(out, q)
	}
	return out
}

// KeptFollowUpCounts returns the follow-up totals the store keeps in memory (list_counts.go), up
// to date with every recorded change, each keyed "status|kind|priority|"owner"|due|fF|sS" with an
// unknown due date as 9999-12-31.
func (s *Store) KeptFollowUpCounts(ctx context.Context) (map[string]int64, error) {
	out := map[string]int64{}
	err := s.withCounts(ctx, func(lc *listCounts) {
		for k, n := range lc.byFollowUp {
			due := "9999-12-31"
			if !k.due.IsZero() {
				due = k.due.Format(time.DateOnly)
			}
			out[fmt.Sprintf("%s|%s|%s|%q|%s|f%d|s%d", k.status, k.kind, k.priority, k.owner, due, k.factorID, k.serviceID)] = n
		}
	})
	return out, err
}

// ForgetCounts drops the kept list totals, so that the next read of a total reads every
// incident's contribution again, as the first read after a start does.
func (s *Store) ForgetCounts() {
	s.counts.mu.Lock()
	defer s.counts.mu.Unlock()
	s.counts.ready = false
}
