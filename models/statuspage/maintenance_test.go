package statuspage_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/importer"
	"hindsight/models/statuspage"
	"hindsight/models/storetest"
)

// TestImportKeepsMaintenance: a summary.json's scheduled maintenances become maintenance
// records, with their schedule, components and updates, beside the incidents of the same file,
// in one run; a re-import replaces them rather than adding them again; and the export writes them
// back in Statuspage's shape.
func TestImportKeepsMaintenance(t *testing.T) {
	// Real incidents from GitHub's page, with a maintenance in Statuspage's documented shape.
	raw, err := os.ReadFile("../../testdata/statuspage/github_incidents_excerpt.json")
	if err != nil {
		t.Skip("no excerpt of GitHub's incidents: ", err)
	}
	var doc struct {
		Page      json.RawMessage   `json:"page"`
		Incidents []json.RawMessage `json:"incidents"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	maintenance := json.RawMessage(`{"id":"mnt1","name":"Database failover drill","status":"in_progress","impact":"maintenance",
		"created_at":"2026-02-01T09:00:00.000Z","updated_at":"2026-02-03T10:05:00.000Z","monitoring_at":null,"resolved_at":null,
		"started_at":"2026-02-03T10:00:00.000Z","scheduled_for":"2026-02-03T10:00:00.000Z","scheduled_until":"2026-02-03T12:00:00.000Z",
		"shortlink":"https://stspg.io/x","page_id":"kctbh9vrtdwd",
		"incident_updates":[
			{"id":"u2","status":"in_progress","body":"The drill has begun.","created_at":"2026-02-03T10:00:00.000Z","display_at":"2026-02-03T10:00:00.000Z","affected_components":[{"name":"Git Operations","old_status":"operational","new_status":"under_maintenance"}]},
			{"id":"u1","status":"scheduled","body":"We will fail the database over.","created_at":"2026-02-01T09:00:00.000Z","display_at":"2026-02-01T09:00:00.000Z"}],
		"components":[{"name":"Git Operations"},{"name":"API Requests"}]}`)
	summary, _ := json.Marshal(map[string]any{"page": doc.Page, "incidents": doc.Incidents[:3], "scheduled_maintenances": []json.RawMessage{maintenance}})
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		records, err := statuspage.Parse(summary, "summary.json", statuspage.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		run, err := importer.Run(ctx, s, records, importer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if run.Created != 3 || run.Maintenances != 1 || run.Skipped != 0 {
			t.Fatalf("summary = %+v", run)
		}
		list, err := s.ListMaintenances(ctx, models.MaintenanceFilter{})
		if err != nil || len(list) != 1 {
			t.Fatalf("%d maintenances (%v)", len(list), err)
		}
		m := list[0]
		if m.Title != "Database failover drill" || m.Status != "in_progress" || m.Source != statuspage.Source || m.ExternalID != "mnt1" || !m.Public ||
			!m.ScheduledFor.Equal(mustTime(t, "2026-02-03T10:00:00Z")) || !m.ScheduledUntil.Equal(mustTime(t, "2026-02-03T12:00:00Z")) ||
			!m.CreatedAt.Equal(mustTime(t, "2026-02-01T09:00:00Z")) || len(m.Components) != 2 || len(m.Updates) != 2 ||
			m.Updates[0].Status != "scheduled" || m.Updates[1].Body != "The drill has begun." {
			t.Errorf("maintenance = %+v", m)
		}
		again, err := importer.Run(ctx, s, records, importer.Options{})
		if err != nil || again.Maintenances != 1 {
			t.Fatalf("re-import: %+v %v", again, err)
		}
		if list, _ := s.ListMaintenances(ctx, models.MaintenanceFilter{}); len(list) != 1 || len(list[0].Updates) != 2 {
			t.Errorf("after re-import: %+v", list)
		}
		comps, _ := s.ListComponents(ctx)
		if len(comps) != 2 {
			t.Errorf("components added by the import: %+v", comps)
		}
		page := statuspage.Page{ID: "hindsight", URL: "https://status.example.com/status"}
		during := mustTime(t, "2026-02-03T11:00:00Z")
		out := statuspage.ExportMaintenance(&list[0], nil, page, during)
		if out.Status != "in_progress" || out.Impact != "maintenance" || out.StartedAt == nil || !out.StartedAt.Equal(mustTime(t, "2026-02-03T10:00:00Z")) ||
			len(out.IncidentUpdates) != 2 || out.IncidentUpdates[0].Status != "in_progress" || len(out.Components) != 2 {
			t.Errorf("export = %+v", out)
		}
		if after := statuspage.ExportMaintenance(&list[0], nil, page, during.Add(2*time.Hour)); after.Status != "completed" || after.ResolvedAt == nil {
			t.Errorf("export past its end = %+v", after)
		}
	})
}
