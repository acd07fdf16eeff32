package models_test

import (
	"context"
	"strings"
	"testing"

	"hindsight/models"
	"hindsight/models/storetest"
)

// TestListTextFilterPlan proves the list's text filter, now the full-text search, finds its
// matches through the full-text indexes and still reads the page in index order, alone and with
// the list's other filters.
func TestListTextFilterPlan(t *testing.T) {
	s := storetest.SQLite(t)
	storetest.Fill(t, s, 200)
	cases := []struct {
		name   string
		filter models.IncidentFilter
		index  string // the index the page is read in order from, "" when the matches are sorted
	}{
		// Words alone: the incidents are fetched by id from the full-text matches, which are few
		// beside the table, and those matches are sorted.
		{"text", models.IncidentFilter{Text: "cache cold"}, ""},
		{"text and status", models.IncidentFilter{Text: "cache", Status: "resolved"}, "incidents_status_started_idx"},
		{"text and severity", models.IncidentFilter{Text: "cache", Severity: "sev1", Offset: 50}, "incidents_severity_started_idx"},
	}
	for _, tc := range cases {
		plan, err := s.ExplainListIncidents(context.Background(), tc.filter)
		if err != nil {
			t.Fatal(err)
		}
		for _, fts := range []string{"incidents_fts VIRTUAL TABLE INDEX", "timeline_events_fts VIRTUAL TABLE INDEX", "follow_ups_fts VIRTUAL TABLE INDEX"} {
			if !strings.Contains(plan, fts) {
				t.Errorf("%s: plan does not search %s:\n%s", tc.name, fts, plan)
			}
		}
		for _, line := range strings.Split(plan, "\n") {
			for _, table := range []string{"incidents", "timeline_events", "follow_ups"} {
				if line == "SCAN "+table || strings.HasPrefix(line, "SCAN "+table+" ") {
					t.Errorf("%s: plan reads all of %s:\n%s", tc.name, table, plan)
				}
			}
		}
		switch {
		case tc.index == "" && !strings.Contains(plan, "SEARCH incidents USING INTEGER PRIMARY KEY"):
			t.Errorf("%s: plan does not fetch the matches by id:\n%s", tc.name, plan)
		case tc.index != "" && (!strings.Contains(plan, "SEARCH incidents USING INDEX "+tc.index) || strings.Contains(plan, "TEMP B-TREE FOR ORDER BY")):
			t.Errorf("%s: plan does not read %s in order:\n%s", tc.name, tc.index, plan)
		}
	}
}

func TestListTextFilterPlanOnPostgres(t *testing.T) {
	s := storetest.Postgres(t)
	storetest.Fill(t, s, 2000)
	db, err := s.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("ANALYZE"); err != nil {
		t.Fatal(err)
	}
	// A rare word (each sample title carries its number): the GIN indexes find its few matches.
	plan, err := s.ExplainListIncidents(context.Background(), models.IncidentFilter{Text: "1234"})
	if err != nil {
		t.Fatal(err)
	}
	// The matches are found first and the incidents fetched by key: the list never reads every
	// incident to test its words. (At 2,000 short documents PostgreSQL reads the search documents
	// whole rather than through their GIN indexes, which is cheaper at that size; /search's own
	// plans are checked at scale in search_plan_test.go.)
	if strings.Contains(plan, "Seq Scan on incidents ") || !strings.Contains(plan, "incidents_pkey") {
		t.Errorf("plan reads every incident instead of fetching the matches by key:\n%s", plan)
	}
	for _, documents := range []string{"on incidents_fts", "on timeline_events_fts", "on follow_ups_fts"} {
		if !strings.Contains(plan, documents) {
			t.Errorf("plan does not search the documents %s:\n%s", documents, plan)
		}
	}
}
