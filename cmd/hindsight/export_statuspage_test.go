package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"hindsight/models/storetest"
)

// statuspageDoc reads an exported incidents.json, with Hindsight's own ids and the components
// (another part's records) taken out, so two exports compare whatever ids the databases gave.
func statuspageDoc(t *testing.T, path string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, x := range doc["incidents"].([]any) {
		inc := x.(map[string]any)
		delete(inc, "id")
		delete(inc, "components")
		for _, y := range inc["incident_updates"].([]any) {
			u := y.(map[string]any)
			delete(u, "id")
			delete(u, "incident_id")
		}
	}
	return doc
}

// hindsight export statuspage writes the whole public history as an incidents.json that the
// Statuspage importer reads back without loss: importing the export and exporting again gives
// the same document, the source's times, shortlinks, updates and affected components included,
// on SQLite and on PostgreSQL.
func TestExportStatuspageRoundTrips(t *testing.T) {
	databases := map[string]func() string{"sqlite": func() string { return filepath.Join(t.TempDir(), "h.db") }}
	if storetest.PostgresURL(t) != "" {
		databases["postgres"] = func() string { return storetest.PostgresURL(t) }
	}
	for name, database := range databases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			source, copyDB := database(), database()
			if out, err := runCLI(t, "", "import", "statuspage", "../../testdata/statuspage/github_incidents_excerpt.json", "--database", source); err != nil {
				t.Fatalf("import: %v\n%s", err, out)
			}
			first := filepath.Join(dir, "first.json")
			out, err := runCLI(t, "", "export", "statuspage", first, "--database", source, "--base-url", "https://hindsight.example.com")
			if err != nil || !strings.Contains(out, "wrote 16 incident(s)") {
				t.Fatalf("export: %v\n%s", err, out)
			}
			if out, err := runCLI(t, "", "import", "statuspage", first, "--database", copyDB); err != nil || !strings.Contains(out, "created 16") {
				t.Fatalf("import the export: %v\n%s", err, out)
			}
			second := filepath.Join(dir, "second.json")
			if out, err := runCLI(t, "", "export", "statuspage", second, "--database", copyDB, "--base-url", "https://hindsight.example.com"); err != nil {
				t.Fatalf("export again: %v\n%s", err, out)
			}
			a, b := statuspageDoc(t, first), statuspageDoc(t, second)
			if page := a["page"].(map[string]any); page["url"] != "https://hindsight.example.com/status" {
				t.Errorf("page: %v", page)
			}
			ai, bi := a["incidents"].([]any), b["incidents"].([]any)
			if len(ai) != 16 || len(bi) != len(ai) {
				t.Fatalf("%d incidents, then %d", len(ai), len(bi))
			}
			for n := range ai {
				if !reflect.DeepEqual(ai[n], bi[n]) {
					x, _ := json.MarshalIndent(ai[n], "", " ")
					y, _ := json.MarshalIndent(bi[n], "", " ")
					t.Fatalf("incident %d differs after a round trip:\n%s\n--- again:\n%s", n, x, y)
				}
			}
			if !reflect.DeepEqual(a["page"], b["page"]) {
				t.Errorf("page %v, then %v", a["page"], b["page"])
			}
			joined, _ := json.Marshal(a)
			for _, want := range []string{`"shortlink":"https://stspg.io/`, `"old_status":"operational"`, `"deliver_notifications":true`, `"created_at":"2023-10-06T01:12:26.084Z"`} {
				if !strings.Contains(string(joined), want) {
					t.Errorf("the export lacks %s", want)
				}
			}
			// To stdout too.
			if out, err := runCLI(t, "", "export", "statuspage", "-", "--database", copyDB); err != nil || !strings.HasPrefix(out, "{") {
				t.Errorf("export to stdout: %v\n%.200s", err, out)
			}
		})
	}
}
