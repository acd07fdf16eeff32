package models_test

import (
	"context"
	"strings"
	"testing"

	"hindsight/models"
	"hindsight/models/storetest"
)

// FuzzSearch types anything into search and similar incidents: search syntax of either database
// never makes them fail, and a snippet never carries markup from the records.
func FuzzSearch(f *testing.F) {
	s := storetest.SQLite(f)
	ctx := context.Background()
	for _, text := range []string{"Cache <script>alert(1)</script> stampede", `Quotes " and 'apostrophes' & ampersands`, "NEAR(cache gateway) OR retry*"} {
		_, err := s.CreateIncident(ctx, models.IncidentInput{Title: text, Summary: text, Severity: "sev3", Status: "resolved",
			PostmortemState: "draft", TimeZone: "UTC"}, models.Children{})
		if err != nil {
			f.Fatal(err)
		}
	}
	for _, seed := range []string{"cache", `"unbalanced`, `cache*`, `NEAR(a b)`, `(((`, `AND OR NOT`, `-`, `'; DROP TABLE incidents; --`,
		`title:x`, `^cache`, `{title summary}: cache`, `cache & !gateway | <->`, `script alert`, "apostrophes", "\x00\xff", "ß ǅ 42"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, q string) {
		hits, err := s.Search(ctx, q, 10)
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		for _, h := range hits {
			if strings.Contains(h.SnippetHTML, "<script") {
				t.Errorf("search %q: snippet not escaped: %s", q, h.SnippetHTML)
			}
		}
		if _, err := s.SimilarIncidents(ctx, models.SimilarQuery{Text: q, Factors: []string{q}, Services: []string{q}}, 5); err != nil {
			t.Fatalf("similar to %q: %v", q, err)
		}
	})
}
