package models_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// TestIncidentReadsSeeEveryChange reads an incident through one store, which keeps its nested
// records in memory, while another store on the same database (another server process) and plain
// SQL change them every way there is. After each change the first store's incident must equal
// what a store that has never read it loads, and reading an unchanged incident again must take
// one statement.
func TestIncidentReadsSeeEveryChange(t *testing.T) {
	storetest.EachShared(t, func(t *testing.T, open func() *models.Store) {
		ctx := context.Background()
		reader, writer := open(), open()
		start := time.Date(2026, 3, 9, 16, 0, 0, 0, time.UTC)
		inc, err := writer.CreateIncident(ctx, models.IncidentInput{
			Title: "Orchestrator degraded", Severity: "sev2", Status: "resolved", TimeZone: "UTC",
			Services: []string{"Orchestrator", "Router"}, Regions: []string{"Canada"}, Factors: []string{"cold-caches"},
			Milestones: models.Milestones{StartedAt: &start},
		}, models.Children{})
		if err != nil {
			t.Fatal(err)
		}
		snapshot := func(s *models.Store) string {
			t.Helper()
			got, err := s.GetIncident(ctx, inc.ID)
			if err != nil {
				t.Fatal(err)
			}
			out, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			return string(out)
		}
		check := func(step string) {
			t.Helper()
			got, want := snapshot(reader), snapshot(open())
			if got != want {
				t.Fatalf("after %s the kept incident differs:\n got %s\nwant %s", step, got, want)
			}
			before := reader.Statements()
			if again := snapshot(reader); again != got {
				t.Fatalf("after %s a second read differs", step)
			}
			// The incident's row, with the versions its nested records were kept at.
			if n := reader.Statements() - before; n != 1 {
				t.Errorf("after %s reading an unchanged incident took %d statements, want 1", step, n)
			}
			// The list reads each incident as GetIncident does, from the same kept records.
			listed := func() string {
				t.Helper()
				page, _, err := reader.ListIncidents(ctx, models.IncidentFilter{})
				if err != nil {
					t.Fatal(err)
				}
				for n := range page {
					if page[n].ID == inc.ID {
						out, err := json.Marshal(&page[n])
						if err != nil {
							t.Fatal(err)
						}
						return string(out)
					}
				}
				t.Fatalf("after %s incident %d is not listed", step, inc.ID)
				return ""
			}
			if l := listed(); l != got {
				t.Fatalf("after %s the listed incident differs from the one read:\n got %s\nwant %s", step, l, got)
			}
			before = reader.Statements()
			listed()
			// The page's rows with their versions, and the list's total from the kept counts.
			if n := reader.Statements() - before; n != 2 {
				t.Errorf("after %s listing unchanged incidents took %d statements, want 2", step, n)
			}
		}
		check("create")

		ev, err := writer.CreateEvent(ctx, inc.ID, models.EventInput{At: start.Add(time.Hour), Kind: "note", Body: "Cache warmed."})
		if err != nil {
			t.Fatal(err)
		}
		check("event added")
		if err := writer.UpdateEvent(ctx, inc.ID, ev.ID, models.EventInput{At: start.Add(time.Hour), Kind: "note", Body: "Cache warmed again."}); err != nil {
			t.Fatal(err)
		}
		check("event edited")
		end := start.Add(3 * time.Hour)
		if _, err := writer.CreateWindow(ctx, inc.ID, models.WindowInput{StartedAt: start, EndedAt: &end, Level: "degraded", Services: []string{"Router", "Action Center"}}); err != nil {
			t.Fatal(err)
		}
		check("window added")
		fu, err := writer.CreateFollowUp(ctx, inc.ID, models.FollowUpInput{Title: "Warm caches before traffic", Kind: "prevent", Priority: "p1", Status: "open", Factors: []string{"cold-caches"}})
		if err != nil {
			t.Fatal(err)
		}
		check("follow-up added")
		if err := writer.UpdateFollowUp(ctx, inc.ID, fu.ID, fu.Version, models.FollowUpInput{Title: "Warm caches before traffic", Kind: "prevent", Priority: "p1", Status: "in_progress", Factors: []string{"retry-amplification"}}); err != nil {
			t.Fatal(err)
		}
		check("follow-up edited")
		if _, err := writer.SetFollowUpStatus(ctx, []int64{fu.ID}, "done"); err != nil {
			t.Fatal(err)
		}
		check("follow-up status set in bulk")
		current, err := writer.GetIncident(ctx, inc.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := writer.UpdateIncident(ctx, inc.ID, current.Version, models.IncidentInput{
			Title: "Orchestrator degraded in Canada", Severity: "sev1", Status: "resolved", TimeZone: "UTC",
			Services: []string{"Orchestrator"}, Regions: []string{"Canada", "US"}, Factors: []string{"retry-amplification", "cold-caches"},
			Milestones: models.Milestones{StartedAt: &start},
		}, models.Children{}); err != nil {
			t.Fatal(err)
		}
		check("incident edited")
		factors, err := writer.ListFactors(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range factors {
			if f.Slug == "cold-caches" {
				if _, err := writer.SaveFactor(ctx, f.ID, models.FactorInput{Slug: f.Slug, Name: "Caches empty after a restart", Description: f.Description}); err != nil {
					t.Fatal(err)
				}
			}
		}
		check("factor renamed")
		if err := writer.DeleteEvent(ctx, inc.ID, ev.ID); err != nil {
			t.Fatal(err)
		}
		check("event deleted")
		if err := writer.DeleteFollowUp(ctx, inc.ID, fu.ID); err != nil {
			t.Fatal(err)
		}
		check("follow-up deleted")
		if err := writer.DeleteIncident(ctx, inc.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := reader.GetIncident(ctx, inc.ID); err == nil {
			t.Error("a deleted incident was still found")
		}
	})
}
