package models_test

import (
	"context"
	"strings"
	"testing"

	"hindsight/models/storetest"
)

// TestHistoryPageUsesIndex proves a page of an incident's history is read along the
// (incident_id, at, id) index, newest first, not sorted in a temporary B-tree.
func TestHistoryPageUsesIndex(t *testing.T) {
	s := storetest.SQLite(t)
	storetest.Fill(t, s, 50)
	plan, err := s.ExplainHistoryPage(context.Background(), 7, 101, 100)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "audit_entries_incident_idx") || strings.Contains(plan, "TEMP B-TREE") {
		t.Errorf("plan does not read audit_entries_incident_idx in order:\n%s", plan)
	}
	entries, err := s.HistoryPage(context.Background(), 7, 100, 100_000_000)
	if err != nil || len(entries) != 0 {
		t.Errorf("a page past the end: %d entries, err %v", len(entries), err)
	}
}
