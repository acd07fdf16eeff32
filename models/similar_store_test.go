package models_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// TestSimilarRankingsAreKept files incidents that resemble each other and checks that an
// incident's similar incidents are ranked once, then read back in one statement; that a rename
// or a deletion shows without ranking again; that an edit of what the ranking is made from ranks
// again; and that the background keeper ranks incidents never viewed and refreshes old rankings.
func TestSimilarRankingsAreKept(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		keeper := models.NewSimilarKeeper(s, slog.New(slog.NewTextHandler(io.Discard, nil)))
		create := func(n int, title string, services, factors []string) *models.Incident {
			t.Helper()
			return createOnDay(t, s, n, models.IncidentInput{
				Title: title, Summary: "Authorization requests were retried until the hosts fell over.",
				Services: services, Factors: factors,
			})
		}
		first := create(0, "Authorization retries overwhelmed hosts", []string{"Authorization"}, []string{"retry-amplification"})
		second := create(1, "Billing page slow", []string{"Billing"}, nil)
		latest := create(2, "Authorization retries overwhelmed hosts again", []string{"Authorization"}, []string{"retry-amplification"})

		show := func(list []models.Similar) string {
			out := ""
			for _, sim := range list {
				out += fmt.Sprintf("%d %q [%s]; ", sim.ID, sim.Title, sim.Reason())
			}
			return out
		}
		view := func(step string, inc *models.Incident, wantStatements int64) string {
			t.Helper()
			before := s.Statements()
			got, err := keeper.For(ctx, inc)
			if err != nil {
				t.Fatalf("%s: %v", step, err)
			}
			if n := s.Statements() - before; wantStatements > 0 && n != wantStatements {
				t.Errorf("%s: %d statements, want %d", step, n, wantStatements)
			}
			return show(got)
		}

		ranked := view("first view", latest, 0)
		fresh, err := s.SimilarIncidents(ctx, models.SimilarQuery{
			ExcludeID: latest.ID, Before: latest.StartedAt, Text: latest.Title + " " + latest.Summary,
			Services: latest.ServiceNames(), Factors: latest.FactorSlugs(),
		}, 5)
		if err != nil {
			t.Fatal(err)
		}
		if ranked != show(fresh) {
			t.Fatalf("first view gave %s, a fresh ranking %s", ranked, show(fresh))
		}
		want := fmt.Sprintf("%d %q [shares: retry amplification, Authorization; similar wording]; ", first.ID, first.Title)
		if ranked[:len(want)] != want {
			t.Fatalf("first view gave %s, want it to start with %s", ranked, want)
		}
		if kept := view("second view", latest, 1); kept != ranked {
			t.Errorf("second view gave %s, the first %s", kept, ranked)
		}

		// A rename shows at once, without ranking again.
		factors, err := s.ListFactors(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range factors {
			if f.Slug == "retry-amplification" {
				if _, err := s.SaveFactor(ctx, f.ID, models.FactorInput{Slug: f.Slug, Name: "Retry storm", Description: f.Description}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if latest, err = s.GetIncident(ctx, latest.ID); err != nil {
			t.Fatal(err)
		}
		renamed := view("after a rename", latest, 1)
		if want := "[shares: retry storm, Authorization; similar wording]"; !strings.Contains(renamed, want) {
			t.Errorf("after a rename: %s, want %s", renamed, want)
		}

		// A deleted suggestion is left out, without ranking again.
		if err := s.DeleteIncident(ctx, first.ID); err != nil {
			t.Fatal(err)
		}
		if gone := view("after a deletion", latest, 1); strings.Contains(gone, fmt.Sprintf("%d ", first.ID)) {
			t.Errorf("after a deletion the deleted incident is still suggested: %s", gone)
		}

		// Editing the title ranks again (several statements), and the new ranking is kept.
		if _, err := s.UpdateIncident(ctx, latest.ID, latest.Version, models.IncidentInput{
			Title: "Billing page slow again", Summary: latest.Summary, Severity: "sev2", Status: "resolved",
			TimeZone: "UTC", PostmortemState: "none", Services: []string{"Billing"},
			Milestones: models.Milestones{StartedAt: latest.StartedAt},
		}, models.Children{}); err != nil {
			t.Fatal(err)
		}
		if latest, err = s.GetIncident(ctx, latest.ID); err != nil {
			t.Fatal(err)
		}
		before := s.Statements()
		edited := view("after an edit", latest, 0)
		if s.Statements()-before < 3 {
			t.Errorf("after an edit the ranking was not redone")
		}
		if !strings.Contains(edited, fmt.Sprintf("%d %q [shares: Billing; similar wording]", second.ID, second.Title)) {
			t.Errorf("after an edit: %s, want the billing incident", edited)
		}
		if again := view("after an edit, again", latest, 1); again != edited {
			t.Errorf("after an edit the kept ranking reads %s, the new one %s", again, edited)
		}

		// The keeper ranks incidents nobody viewed, and refreshes a ranking older than the limit.
		db, err := s.SQLDB()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(fmt.Sprintf("UPDATE similar_sets SET computed_at = 1000 WHERE incident_id = %d", latest.ID)); err != nil {
			t.Fatal(err)
		}
		view("an old ranking", latest, 1) // served, and queued for a refresh
		runCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			keeper.Run(runCtx)
		}()
		deadline := time.Now().Add(20 * time.Second)
		for {
			var unranked, old int
			if err := db.QueryRow(`SELECT
				(SELECT count(*) FROM incidents i WHERE deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM similar_sets st WHERE st.incident_id = i.id)),
				(SELECT count(*) FROM similar_sets WHERE computed_at = 1000)`).Scan(&unranked, &old); err != nil {
				t.Fatal(err)
			}
			if unranked == 0 && old == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the keeper left %d incidents unranked and %d rankings old", unranked, old)
			}
			time.Sleep(20 * time.Millisecond)
		}
		// An incident filed while it runs and queued is ranked before anyone views it.
		filed := create(3, "Authorization retries overwhelmed hosts a third time", []string{"Authorization"}, []string{"retry-amplification"})
		keeper.Queue(filed.ID)
		for {
			var n int
			if err := db.QueryRow(fmt.Sprintf("SELECT count(*) FROM similar_sets WHERE incident_id = %d", filed.ID)).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("a queued incident was not ranked")
			}
			time.Sleep(20 * time.Millisecond)
		}
		stop()
		<-done
		if got := view("queued and ranked", filed, 1); !strings.Contains(got, "similar wording") {
			t.Errorf("the queued incident's kept ranking reads %s", got)
		}
		if got := view("ranked in the background", second, 1); got != "" {
			t.Errorf("the billing incident is the oldest live one, so nothing is suggested for it; got %s", got)
		}
	})
}

// TestIncidentPageMarkMovesWithEveryChange checks, on both databases, that an incident page's
// mark moves when anything its page shows changes, including other incidents' rows it shows
// (links and similar incidents) and the factor taxonomy, and stands still when an incident it
// does not show changes.
func TestIncidentPageMarkMovesWithEveryChange(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		create := func(n int, title string) *models.Incident {
			t.Helper()
			return createOnDay(t, s, n, models.IncidentInput{Title: title, Services: []string{"Authorization"}})
		}
		suggested := create(0, "Authorization retries overwhelmed hosts")
		linked := create(1, "Billing page slow")
		viewed := create(2, "Authorization retries overwhelmed hosts again")
		unrelated := create(3, "Status page certificate expired")
		if _, err := s.AddLink(ctx, viewed.ID, models.LinkInput{Kind: "related", IncidentID: linked.ID}); err != nil {
			t.Fatal(err)
		}
		keeper := models.NewSimilarKeeper(s, slog.New(slog.NewTextHandler(io.Discard, nil)))
		similar, err := keeper.For(ctx, viewed)
		if err != nil || len(similar) == 0 || similar[0].ID != suggested.ID {
			t.Fatalf("similar incidents of the viewed one: %v, %v", similar, err)
		}
		ids := []int64{suggested.ID, linked.ID, viewed.ID, unrelated.ID}
		marks := func() map[int64]string {
			t.Helper()
			out := map[int64]string{}
			for _, id := range ids {
				m, err := s.IncidentPageMark(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				out[id] = m
			}
			return out
		}
		step := func(name string, write func() error, moved ...int64) {
			t.Helper()
			before := marks()
			if err := write(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			after := marks()
			for _, id := range ids {
				if want := slices.Contains(moved, id); (before[id] != after[id]) != want {
					t.Errorf("%s: incident %d's mark moved=%v, want %v", name, id, before[id] != after[id], want)
				}
			}
		}
		edit := func(inc *models.Incident, change func(*models.IncidentInput)) func() error {
			return func() error {
				current, err := s.GetIncident(ctx, inc.ID)
				if err != nil {
					return err
				}
				in := models.IncidentInput{Title: current.Title, Severity: current.Severity, Status: current.Status,
					TimeZone: current.TimeZone, PostmortemState: current.PostmortemState,
					Services: current.ServiceNames(), Milestones: current.Milestones()}
				change(&in)
				_, err = s.UpdateIncident(ctx, inc.ID, current.Version, in, models.Children{})
				return err
			}
		}
		step("linked incident renamed", edit(linked, func(in *models.IncidentInput) { in.Title = "Billing slow" }), linked.ID, viewed.ID)
		step("suggested incident deleted", func() error { return s.DeleteIncident(ctx, suggested.ID) }, suggested.ID, viewed.ID)
		step("unrelated incident edited", edit(unrelated, func(in *models.IncidentInput) { in.Severity = "sev1" }), unrelated.ID)
		step("follow-up added", func() error {
			_, err := s.CreateFollowUp(ctx, viewed.ID, models.FollowUpInput{Title: "Alert on retries", Kind: "detect", Priority: "p1", Status: "open"})
			return err
		}, viewed.ID)
		step("factor added", func() error {
			_, err := s.SaveFactor(ctx, 0, models.FactorInput{Slug: "dns-ttl", Name: "DNS TTL too long"})
			return err
		}, ids...)
		step("link removed", func() error {
			links, err := s.Links(ctx, viewed.ID)
			if err != nil || len(links) != 1 {
				return fmt.Errorf("links of the viewed incident: %v, %v", links, err)
			}
			return s.DeleteLink(ctx, viewed.ID, links[0].LinkID)
		}, linked.ID, viewed.ID)
		step("similar incidents ranked again", func() error {
			current, err := s.GetIncident(ctx, viewed.ID)
			if err != nil {
				return err
			}
			current.Title += " twice"
			_, err = keeper.For(ctx, current)
			return err
		}, viewed.ID)
		// A write that fails leaves every mark where it was.
		step("a refused edit", func() error {
			if _, err := s.UpdateIncident(ctx, unrelated.ID, 1, models.IncidentInput{Title: "Stale"}, models.Children{}); err == nil {
				return fmt.Errorf("an edit at an old version was accepted")
			}
			return nil
		})
	})
}

// createOnDay files a resolved SEV2 incident in UTC from in, started n days after 9 March 2026,
// and reads it back as a page would.
func createOnDay(t *testing.T, s *models.Store, n int, in models.IncidentInput) *models.Incident {
	t.Helper()
	ctx := context.Background()
	start := time.Date(2026, 3, 9, 16, 0, 0, 0, time.UTC).Add(time.Duration(n) * 24 * time.Hour)
	in.Severity, in.Status, in.TimeZone, in.PostmortemState = "sev2", "resolved", "UTC", "none"
	in.Milestones = models.Milestones{StartedAt: &start}
	inc, err := s.CreateIncident(ctx, in, models.Children{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.GetIncident(ctx, inc.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}
