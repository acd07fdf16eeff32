package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// hindsight export cstate writes every public incident as a cState file that the cState
// importer reads back to the same incidents: exporting what was imported gives the same files
// again, and nothing internal goes out.
func TestExportCStateRoundTrips(t *testing.T) {
	dir := t.TempDir()
	source := filepath.Join(dir, "source.db")
	for _, args := range [][]string{
		{"import", "statuspage", "../../testdata/statuspage/github_incidents_excerpt.json", "--database", source},
		{"import", "cstate", "../../testdata/cstate", "--database", source},
	} {
		if out, err := runCLI(t, "", args...); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	first := filepath.Join(dir, "first")
	out, err := runCLI(t, "", "export", "cstate", first, "--database", source)
	if err != nil || !strings.Contains(out, "wrote 29 cState file(s)") {
		t.Fatalf("export: %v\n%s", err, out)
	}
	copyDB := filepath.Join(dir, "copy.db")
	if out, err := runCLI(t, "", "import", "cstate", first, "--database", copyDB); err != nil || !strings.Contains(out, "created 29") {
		t.Fatalf("import the export: %v\n%s", err, out)
	}
	second := filepath.Join(dir, "second")
	if out, err := runCLI(t, "", "export", "cstate", second, "--database", copyDB); err != nil {
		t.Fatalf("export again: %v\n%s", err, out)
	}
	a, b := contents(t, first), contents(t, second)
	if len(a) != 29 || !slices.Equal(a, b) {
		for n := range min(len(a), len(b)) {
			if a[n] != b[n] {
				t.Fatalf("file %d differs after a round trip:\n%s\n--- again:\n%s", n, a[n], b[n])
			}
		}
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	joined := strings.Join(a, "\n")
	for _, want := range []string{"severity: down", "resolved: true", "resolvedWhen: ", "[Resolved]", "affected:\n  - "} {
		if !strings.Contains(joined, want) {
			t.Errorf("no exported file holds %q", want)
		}
	}
}

// contents reads every file of a folder, sorted, so two exports compare whatever the ids.
func contents(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(data))
	}
	slices.Sort(out)
	return out
}
