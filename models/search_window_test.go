package models_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// searchRecord files an incident that started start hours after 2025-01-01, with a follow-up and
// a timeline entry carrying the same words as its summary.
func searchRecord(t *testing.T, s *models.Store, title, summary string, start int, services, factors []string) *models.Incident {
	t.Helper()
	started := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(start) * time.Hour)
	events := []models.EventInput{{At: started, Kind: "note", Body: summary}}
	followUps := []models.FollowUpInput{{Title: "Follow up: " + summary, Kind: "prevent", Priority: "p2", Status: "open"}}
	inc, err := s.CreateIncident(context.Background(), models.IncidentInput{
		Title: title, Summary: summary, Severity: "sev2", Status: "resolved", PostmortemState: "draft",
		TimeZone: "UTC", Services: services, Factors: factors, Milestones: models.Milestones{StartedAt: &started},
	}, models.Children{Timeline: &events, FollowUps: &followUps})
	if err != nil {
		t.Fatal(err)
	}
	return inc
}

// hitsOf lists the incident ids of the hits of one kind, in the order given.
func hitsOf(hits []models.SearchHit, kind string) []int64 {
	var ids []int64
	for _, h := range hits {
		if h.Kind == kind {
			ids = append(ids, h.IncidentID)
		}
	}
	return ids
}

// TestSearchRanksAndWindow proves search ranks best first within each kind, never shows a
// deleted incident's records even when they would rank first, and ranks only the newest window
// of live matches: deleted incidents' rows do not use the window up.
func TestSearchRanksAndWindow(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		storetest.Fill(t, s, 30)
		// The more often the word, the better the match; the summaries have the same length.
		three := searchRecord(t, s, "Gateway outage", "quasar quasar quasar drift", 1, nil, nil)
		two := searchRecord(t, s, "Gateway outage", "quasar quasar calm drift", 2, nil, nil)
		one := searchRecord(t, s, "Gateway outage", "quasar still calm drift", 3, nil, nil)
		var deleted []int64
		for n := range 3 {
			inc := searchRecord(t, s, "Gateway outage", "quasar quasar quasar quasar", 4+n, nil, nil)
			if err := s.DeleteIncident(ctx, inc.ID); err != nil {
				t.Fatal(err)
			}
			deleted = append(deleted, inc.ID)
		}
		before := s.Statements()
		hits, err := s.Search(ctx, "Quasar!", 3)
		if err != nil {
			t.Fatal(err)
		}
		if n := s.Statements() - before; n != 3 {
			t.Errorf("search ran %d statements, want 3: one per kind", n)
		}
		want := []int64{three.ID, two.ID, one.ID}
		for _, kind := range []string{"incident", "follow_up", "timeline_event"} {
			if got := hitsOf(hits, kind); !slices.Equal(got, want) {
				t.Errorf("%s hits: incidents %v, want %v best first (deleted: %v)", kind, got, want, deleted)
			}
		}
		for n := 1; n < len(hits); n++ {
			if hits[n].Kind == hits[n-1].Kind && hits[n].Rank > hits[n-1].Rank {
				t.Errorf("hit %d ranks %v after %v", n, hits[n].Rank, hits[n-1].Rank)
			}
		}
		for _, h := range hits {
			if !strings.Contains(h.SnippetHTML, "<mark>") {
				t.Errorf("%s %d: snippet without a highlighted match: %q", h.Kind, h.ID, h.SnippetHTML)
			}
		}

		// A window of two holds the two newest live matches, however many deleted ones are newer:
		// the best match, older, is left out.
		hits, err = s.SearchWithin(ctx, "quasar", 10, 2)
		if err != nil {
			t.Fatal(err)
		}
		want = []int64{two.ID, one.ID}
		for _, kind := range []string{"incident", "follow_up", "timeline_event"} {
			if got := hitsOf(hits, kind); !slices.Equal(got, want) {
				t.Errorf("window of 2, %s hits: incidents %v, want %v", kind, got, want)
			}
		}

		// Words matching nothing, and search syntax, find nothing without an error.
		for _, q := range []string{"quasar nebula", `"quasar`, `quasar*`, `NEAR(quasar drift)`, `quasar OR`, `-quasar`, `{title}: quasar`, "the", "@@ quasar", "ünïcödé 42"} {
			hits, err := s.SearchWithin(ctx, q, 10, 2)
			if err != nil {
				t.Errorf("search %q: %v", q, err)
			}
			for _, h := range hits {
				if slices.Contains(deleted, h.IncidentID) {
					t.Errorf("search %q shows deleted incident %d", q, h.IncidentID)
				}
			}
		}
	})
}

// TestSimilarIncidentsAreEarlierAndLive proves the candidates are chosen among earlier, live
// incidents: an incident with fifty later ones sharing its factor and service still gets the
// earlier ones, which the forty most recent sharing a tag would all have crowded out.
func TestSimilarIncidentsAreEarlierAndLive(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		services, factors := []string{"Ledger"}, []string{"cold-caches", "timeout-mismatch"}
		var incidents []*models.Incident
		for n := range 60 {
			title := fmt.Sprintf("Ledger slow %d", n)
			incidents = append(incidents, searchRecord(t, s, title, "Requests queued behind a slow ledger", n, services, factors[n%2:n%2+1]))
		}
		if err := s.DeleteIncident(ctx, incidents[7].ID); err != nil {
			t.Fatal(err)
		}
		middle := incidents[9]
		// By tags alone, and by tags and words: eight earlier live incidents share the service, a
		// factor and the words; the newest first among equal scores.
		want := []int64{incidents[8].ID, incidents[6].ID, incidents[5].ID, incidents[4].ID, incidents[3].ID}
		for _, text := range []string{"", middle.Title + " " + middle.Summary} {
			query := models.SimilarQuery{ExcludeID: middle.ID, Before: middle.StartedAt, Text: text, Services: services, Factors: factors}
			before := s.Statements()
			similar, err := s.SimilarIncidents(ctx, query, 5)
			if err != nil {
				t.Fatal(err)
			}
			// Words, tags, then the candidates with their services and factors (two each); on
			// SQLite one more tells which words are common among the newest incidents.
			statements := map[bool]int64{true: 6, false: 7}[text == ""]
			if text != "" && s.Dialect() != "postgres" {
				statements++
			}
			if n := s.Statements() - before; n != statements {
				t.Errorf("similar incidents with text %q ran %d statements, want %d", text, n, statements)
			}
			var got []int64
			for _, sim := range similar {
				got = append(got, sim.ID)
				if !strings.Contains(sim.Reason(), "Ledger") || sim.TextMatch != (text != "") {
					t.Errorf("incident %d: reason %q", sim.ID, sim.Reason())
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("similar to the tenth incident with text %q: %v, want %v", text, got, want)
			}
		}

		// A draft with neither tags nor a start: the text alone, among all live incidents.
		similar, err := s.SimilarIncidents(ctx, models.SimilarQuery{Text: "ledger requests queued"}, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(similar) != 3 || !similar[0].TextMatch || similar[0].ID != incidents[59].ID {
			t.Errorf("similar to a draft: %+v", similar)
		}

		// The first incident has no earlier one.
		first := incidents[0]
		similar, err = s.SimilarIncidents(ctx, models.SimilarQuery{ExcludeID: first.ID, Before: first.StartedAt,
			Text: first.Title + " " + first.Summary, Services: services, Factors: factors}, 5)
		if err != nil || len(similar) != 0 {
			t.Errorf("similar to the first incident: %+v, %v", similar, err)
		}

		// A text window of three ranks the three most recent earlier incidents sharing a word.
		similar, err = s.SimilarWithin(ctx, models.SimilarQuery{ExcludeID: middle.ID, Before: middle.StartedAt, Text: "ledger"}, 5, 3)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, sim := range similar {
			got = append(got, sim.ID)
		}
		if want := []int64{incidents[8].ID, incidents[6].ID, incidents[5].ID}; !slices.Equal(got, want) {
			t.Errorf("text window of 3: %v, want %v", got, want)
		}
	})
}
