package importer_test

import (
	"context"
	"slices"
	"testing"
	"time"
	_ "time/tzdata" // the samples use Europe/London

	"hindsight/models"
	"hindsight/models/demo"
	"hindsight/models/importer"
	"hindsight/models/storetest"
)

func TestRecordName(t *testing.T) {
	cases := []struct {
		rec  importer.Record
		want string
	}{
		{importer.Record{File: "all.json", Index: 3, Input: models.IncidentInput{ExternalID: "abc"}}, "all.json, record 3 (id abc)"},
		{importer.Record{File: "one.json", Input: models.IncidentInput{ExternalID: "abc"}}, "one.json, id abc"},
		{importer.Record{File: "2024-02-07-ci-down.md", Input: models.IncidentInput{ExternalID: "2024-02-07-ci-down"}}, "2024-02-07-ci-down.md"},
		{importer.Record{Input: models.IncidentInput{ExternalID: "abc"}}, "id abc"},
	}
	for _, tc := range cases {
		if got := tc.rec.Name(); got != tc.want {
			t.Errorf("Name() = %q, want %q", got, tc.want)
		}
	}
}

// TestMergeKeepsHindsightWork re-imports the samples as if a format carried only some of their
// fields: what the record leaves out stays, follow-ups included with their completion times.
func TestMergeKeepsHindsightWork(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		if _, err := demo.Load(ctx, s); err != nil {
			t.Fatal(err)
		}
		var records []importer.Record
		for n, sample := range demo.Incidents() {
			in := sample.Incident
			in.Source, in.ExternalID = demo.Source, sample.Key
			// A status page knows none of the narrative, detection or regions.
			in.Summary, in.RootCause, in.Lessons, in.DetectionMethod, in.Regions = "", "", "", "", nil
			in.Milestones.DetectedAt = nil
			timeline := slices.Clone(*sample.Children.Timeline)
			records = append(records, importer.Record{File: "samples", Index: n + 1, Input: in,
				Children: models.Children{Timeline: &timeline, ImpactWindows: sample.Children.ImpactWindows, FollowUps: sample.Children.FollowUps}})
		}
		before, err := s.IncidentsBySource(ctx, demo.Source, []string{"seed-000"})
		if err != nil {
			t.Fatal(err)
		}
		summary, err := importer.Run(ctx, s, records, importer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if summary.Unchanged != 5 || summary.Updated != 0 {
			t.Fatalf("summary = %+v", summary)
		}

		// A changed status and a changed follow-up list are updates, and nothing else moves.
		records[0].Input.Status = "monitoring"
		followUps := slices.Clone(*records[0].Children.FollowUps)
		followUps = followUps[:len(followUps)-1]
		records[0].Children.FollowUps = &followUps
		summary, err = importer.Run(ctx, s, records, importer.Options{DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		if summary.Updated != 1 || !slices.Equal(summary.Results[0].Changes, []string{"status", "follow_ups"}) {
			t.Fatalf("dry run: %+v", summary.Results[0])
		}
		if _, err := importer.Run(ctx, s, records, importer.Options{}); err != nil {
			t.Fatal(err)
		}
		after, err := s.IncidentsBySource(ctx, demo.Source, []string{"seed-000"})
		if err != nil {
			t.Fatal(err)
		}
		old, inc := before["seed-000"], after["seed-000"]
		if inc.Status != "monitoring" || inc.Version != old.Version+1 || len(inc.FollowUps) != 4 {
			t.Errorf("update: status %s version %d follow-ups %d", inc.Status, inc.Version, len(inc.FollowUps))
		}
		if inc.RootCause != old.RootCause || inc.Summary != old.Summary || inc.DetectionMethod != "customer_report" ||
			inc.DetectedAt == nil || !slices.Equal(inc.RegionNames(), []string{"Canada"}) || len(inc.Timeline) != len(old.Timeline) {
			t.Errorf("the update lost what the record did not carry: %+v", inc)
		}
		history, err := s.History(ctx, inc.ID)
		if err != nil {
			t.Fatal(err)
		}
		count := map[string]int{}
		for _, e := range history {
			count[e.Action+" "+e.Entity]++
		}
		// Loading made the incident and its lists; the update replaced the follow-ups.
		if count["update incident"] != 1 || count["delete follow_up"] != 5 || count["create follow_up"] != 5+4 || count["create timeline_event"] != 7 {
			t.Errorf("history = %v", count)
		}
		if inc.PublishedAt == nil || !inc.PublishedAt.Equal(*old.PublishedAt) {
			t.Errorf("published_at moved: %v → %v", old.PublishedAt, inc.PublishedAt)
		}
	})
}

// TestServiceSpellings imports two incidents that spell a service differently, and one that
// repeats a name in another case, in one run: each links the names it gave, as a form would.
func TestServiceSpellings(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		record := func(id string, services ...string) importer.Record {
			timeline := []models.EventInput{}
			windows := []models.WindowInput{{StartedAt: time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC), Level: "degraded", Services: services}}
			return importer.Record{File: "x.json", Input: models.IncidentInput{
				Title: "Incident " + id, Severity: "sev3", Status: "investigating", TimeZone: "UTC", PostmortemState: "none",
				Services: services, Source: "test", ExternalID: id,
			}, Children: models.Children{Timeline: &timeline, ImpactWindows: &windows}}
		}
		records := []importer.Record{record("a", "Git Operations"), record("b", "Git operations"), record("c", "API", "api", "Git Operations")}
		if _, err := importer.Run(ctx, s, records, importer.Options{}); err != nil {
			t.Fatal(err)
		}
		found, err := s.IncidentsBySource(ctx, "test", []string{"a", "b", "c"})
		if err != nil {
			t.Fatal(err)
		}
		for id, want := range map[string][]string{"a": {"Git Operations"}, "b": {"Git operations"}, "c": {"API", "Git Operations"}} {
			inc := found[id]
			if got := inc.ServiceNames(); !slices.Equal(got, want) {
				t.Errorf("%s: services %v, want %v", id, got, want)
			}
			if got := inc.ImpactWindows[0].ServiceNames(); !slices.Equal(got, want) {
				t.Errorf("%s: window services %v, want %v", id, got, want)
			}
		}
		if names, _ := s.ServiceNames(ctx); len(names) != 3 {
			t.Errorf("services = %v, want three rows", names)
		}
	})
}
