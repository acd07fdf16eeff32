package importer_test

import (
	"context"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/importer"
	"hindsight/models/storetest"
)

// TestImportRecordsMilestoneSources: an imported incident's milestones name the file and format
// they came from, on create and on an update that moves one; a person's typed time is then
// replaced only by a re-import that changes it.
func TestImportRecordsMilestoneSources(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		started := time.Date(2024, 2, 7, 10, 0, 0, 0, time.UTC)
		resolved := started.Add(2 * time.Hour)
		rec := importer.Record{File: "history.json", Input: models.IncidentInput{
			Title: "CI down", Severity: "sev3", Status: "resolved", TimeZone: "UTC", PostmortemState: "none",
			Source: "statuspage", ExternalID: "ci-1", Milestones: models.Milestones{StartedAt: &started, ResolvedAt: &resolved},
		}}
		if _, err := importer.Run(ctx, s, []importer.Record{rec}, importer.Options{}); err != nil {
			t.Fatal(err)
		}
		found, err := s.IncidentsBySource(ctx, "statuspage", []string{"ci-1"})
		if err != nil || found["ci-1"] == nil {
			t.Fatalf("imported: %v, %v", found, err)
		}
		inc, err := s.GetIncident(ctx, found["ci-1"].ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"started_at", "resolved_at"} {
			if src := inc.MilestoneSources[name]; src.Kind != models.SourceImported || src.Detail != "history.json (statuspage)" {
				t.Errorf("%s source %+v", name, src)
			}
		}
		if len(inc.MilestoneSources) != 2 {
			t.Errorf("sources %+v, want the two recorded milestones only", inc.MilestoneSources)
		}
		later := resolved.Add(time.Hour)
		rec.Input.Milestones.ResolvedAt = &later
		rec.File = "history-2.json"
		if _, err := importer.Run(ctx, s, []importer.Record{rec}, importer.Options{}); err != nil {
			t.Fatal(err)
		}
		inc, _ = s.GetIncident(ctx, inc.ID)
		if src := inc.MilestoneSources["resolved_at"]; src.Detail != "history-2.json (statuspage)" {
			t.Errorf("moved milestone's source %+v", src)
		}
		if src := inc.MilestoneSources["started_at"]; src.Detail != "history.json (statuspage)" {
			t.Errorf("unmoved milestone's source %+v, want the first file still", src)
		}
	})
}
