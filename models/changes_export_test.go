package models

import (
	"fmt"
	"strings"
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
