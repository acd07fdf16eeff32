package demo_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"hindsight/models"
	"hindsight/models/demo"
	"hindsight/models/storetest"
)

// loaded returns the demo incidents' ids by seed key.
func loaded(t *testing.T, s *models.Store) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	if _, err := demo.Load(ctx, s); err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{}
	for _, sample := range demo.Incidents() {
		id, err := s.FindBySource(ctx, demo.Source, sample.Key)
		if err != nil || id == 0 {
			t.Fatalf("find %s: %d, %v", sample.Key, id, err)
		}
		ids[sample.Key] = id
	}
	return ids
}

func TestRecurrenceOfTheSeeds(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ids := loaded(t, s)
		report, err := s.Recurrence(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		bySlug := map[string]models.FactorRecurrence{}
		for _, r := range report {
			bySlug[r.Factor.Slug] = r
		}
		incidentIDs := func(slug string) []int64 {
			var out []int64
			for _, inc := range bySlug[slug].Incidents {
				out = append(out, inc.ID)
			}
			slices.Sort(out)
			return out
		}
		want := func(keys ...string) []int64 {
			var out []int64
			for _, k := range keys {
				out = append(out, ids[k])
			}
			slices.Sort(out)
			return out
		}
		if got := incidentIDs("health-checks-removed-capacity"); !slices.Equal(got, want("seed-000", "seed-003", "seed-004")) {
			t.Errorf("health checks removed capacity: %v", got)
		}
		if got := incidentIDs("retry-amplification"); !slices.Equal(got, want("seed-000", "seed-001", "seed-002")) {
			t.Errorf("retry amplification: %v", got)
		}
		hc := bySlug["health-checks-removed-capacity"]
		// Seed 004's health-check fix was done in June 2022; seeds 003 (Aug 2022) and 000 (2026) came after it.
		if hc.CameBack != 2 || hc.LastOccurrence == nil || hc.LastOccurrence.Year() != 2026 {
			t.Errorf("health checks: came back %d, last %v", hc.CameBack, hc.LastOccurrence)
		}
		for _, inc := range hc.Incidents {
			if (inc.ID == ids["seed-004"]) != (inc.CameBackAfter == 0) {
				t.Errorf("incident %d came back after %d", inc.ID, inc.CameBackAfter)
			}
		}
		// The retry fix was done when seed 001 ended (Nov 2025); seeds 000 and 002 started later.
		if r := bySlug["retry-amplification"]; r.CameBack != 2 || r.Unaddressed {
			t.Errorf("retry amplification: came back %d, unaddressed %v", r.CameBack, r.Unaddressed)
		}
		if r := bySlug["change-error"]; !r.Unaddressed || !r.Recurs {
			t.Errorf("change error recurs with no follow-up: %+v", r)
		}
		if r := bySlug["failover-disabled"]; r.Recurs || r.Unaddressed {
			t.Errorf("failover disabled is seen once: %+v", r)
		}
	})
}

func TestSearchAndSimilar(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		ids := loaded(t, s)
		hits, err := s.Search(ctx, "cache", 20)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, h := range hits {
			if h.IncidentID == ids["seed-000"] && strings.Contains(h.SnippetHTML, "<mark>") {
				found = true
			}
			if strings.Contains(h.SnippetHTML, "<script") {
				t.Errorf("snippet not escaped: %s", h.SnippetHTML)
			}
		}
		if !found {
			t.Errorf("searching cache did not find seed 000 with a highlighted snippet: %+v", hits)
		}
		for _, q := range []string{`"unbalanced`, `cache*`, `NEAR(a b)`, `(((`, `AND OR NOT`, `-`, `'; DROP TABLE incidents; --`, `title:x`, `^cache`} {
			if _, err := s.Search(ctx, q, 10); err != nil {
				t.Errorf("search %q: %v", q, err)
			}
		}
		inc, err := s.GetIncident(ctx, ids["seed-002"])
		if err != nil {
			t.Fatal(err)
		}
		similar, err := s.SimilarIncidents(ctx, models.SimilarQuery{
			ExcludeID: inc.ID, Before: inc.StartedAt, Text: inc.Title + " " + inc.Summary + " " + inc.RootCause,
			Services: inc.ServiceNames(), Factors: inc.FactorSlugs(),
		}, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(similar) == 0 || len(similar) > 5 {
			t.Fatalf("similar to seed 002: %+v", similar)
		}
		reasons := map[int64]string{}
		for _, sim := range similar {
			reasons[sim.ID] = sim.Reason()
			if sim.ID == inc.ID || (sim.StartedAt != nil && !sim.StartedAt.Before(*inc.StartedAt)) {
				t.Errorf("similar incident %d is not earlier", sim.ID)
			}
		}
		if r := reasons[ids["seed-001"]]; !strings.Contains(r, "retry amplification") || !strings.Contains(r, "Authorization Service") {
			t.Errorf("seed 001's reason = %q", r)
		}
	})
}
