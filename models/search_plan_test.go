package models_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// TestSearchPlans reads the plans of a search's statements: on SQLite FTS5 finds the matches and
// no table is read whole (the index of deleted incidents aside); on PostgreSQL the stored
// documents of migration 00015 are searched, no document is computed again from its text, and
// no parallel workers are started for a read of a few thousand rows.
func TestSearchPlans(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		storetest.Fill(t, s, 500)
		storetest.FillFollowUps(t, s, 1)
		if s.Dialect() == "postgres" {
			db, err := s.SQLDB()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("ANALYZE"); err != nil {
				t.Fatal(err)
			}
		}
		plans, err := s.ExplainSearch(ctx, "latency alert")
		if err != nil {
			t.Fatal(err)
		}
		if len(plans) != 3 {
			t.Fatalf("%d plans, want 3", len(plans))
		}
		tableScan := regexp.MustCompile(`(?m)^SCAN (?:incidents|follow_ups|timeline_events)(?: USING (?:COVERING )?INDEX (\w+))?$`)
		for n, plan := range plans {
			if s.Dialect() == "postgres" {
				if !strings.Contains(plan, "_fts") || strings.Contains(plan, "to_tsvector") || strings.Contains(plan, "Gather") {
					t.Errorf("statement %d:\n%s", n, plan)
				}
				continue
			}
			if !strings.Contains(plan, "VIRTUAL TABLE INDEX") {
				t.Errorf("statement %d does not ask FTS5:\n%s", n, plan)
			}
			for _, scan := range tableScan.FindAllStringSubmatch(plan, -1) {
				if scan[1] != "incidents_deleted_idx" {
					t.Errorf("statement %d reads a table whole (%s):\n%s", n, scan[0], plan)
				}
			}
		}
	})
}

// TestSearchFollowsEdits proves search sees every change to the text it searches, on both
// dialects: SQLite's FTS5 tables and PostgreSQL's stored documents are kept by triggers.
func TestSearchFollowsEdits(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		inc := searchRecord(t, s, "Walrus outage", "walrus seen at the gate", 1, nil, nil)
		count := func(q string) map[string]int {
			t.Helper()
			hits, err := s.Search(ctx, q, 10)
			if err != nil {
				t.Fatal(err)
			}
			kinds := map[string]int{}
			for _, h := range hits {
				kinds[h.Kind]++
			}
			return kinds
		}
		if got := count("walrus"); got["incident"] != 1 || got["follow_up"] != 1 || got["timeline_event"] != 1 {
			t.Fatalf("walrus before any edit: %v", got)
		}
		full, err := s.GetIncident(ctx, inc.ID)
		if err != nil {
			t.Fatal(err)
		}
		in := models.IncidentInput{Title: "Narwhal outage", Summary: "narwhal seen at the gate", Severity: "sev2", Status: "resolved",
			PostmortemState: "draft", TimeZone: "UTC", Milestones: models.Milestones{StartedAt: full.StartedAt}}
		if _, err := s.UpdateIncident(ctx, inc.ID, full.Version, in, models.Children{}); err != nil {
			t.Fatal(err)
		}
		if got := count("walrus"); got["incident"] != 0 || got["follow_up"] != 1 {
			t.Errorf("walrus after the incident's edit: %v", got)
		}
		if got := count("narwhal"); got["incident"] != 1 {
			t.Errorf("narwhal after the incident's edit: %v", got)
		}
		full, err = s.GetIncident(ctx, inc.ID)
		if err != nil {
			t.Fatal(err)
		}
		fu, event := full.FollowUps[0], full.Timeline[0]
		if err := s.UpdateFollowUp(ctx, inc.ID, fu.ID, fu.Version, models.FollowUpInput{Title: "Fence the narwhal",
			Kind: "prevent", Priority: "p2", Status: "open"}); err != nil {
			t.Fatal(err)
		}
		if err := s.UpdateEvent(ctx, inc.ID, event.ID, models.EventInput{At: time.Now().UTC(), Kind: "note", Body: "narwhal gone"}); err != nil {
			t.Fatal(err)
		}
		if got := count("walrus"); len(got) != 0 {
			t.Errorf("walrus after every edit: %v", got)
		}
		if got := count("narwhal"); got["incident"] != 1 || got["follow_up"] != 1 || got["timeline_event"] != 1 {
			t.Errorf("narwhal after every edit: %v", got)
		}
		if err := s.DeleteFollowUp(ctx, inc.ID, fu.ID); err != nil {
			t.Fatal(err)
		}
		if got := count("narwhal"); got["follow_up"] != 0 {
			t.Errorf("narwhal after the follow-up's deletion: %v", got)
		}
		db, err := s.SQLDB()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `DELETE FROM incidents WHERE id = $1`, inc.ID); err != nil {
			t.Fatal(err)
		}
		if got := count("narwhal"); len(got) != 0 {
			t.Errorf("narwhal after the incident was erased: %v", got)
		}
	})
}
