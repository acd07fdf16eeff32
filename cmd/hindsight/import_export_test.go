package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestImportExportCommands(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "source.db")
	const github = "../../testdata/statuspage/github_incidents_excerpt.json"

	out, err := runCLI(t, "", "import", "statuspage", github, "--dry-run", "--database", db)
	if err != nil || !strings.Contains(out, "Dry run: nothing was written.") || !strings.Contains(out, "would create 16") {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	out, err = runCLI(t, "", "import", "--database", db, "statuspage", github)
	if err != nil || !strings.Contains(out, "created 16") || !strings.Contains(out, "resolved_at is before started_at") {
		t.Fatalf("import: %v\n%s", err, out)
	}
	out, err = runCLI(t, "", "import", "statuspage", github, "--database", db, "--verbose")
	if err != nil || !strings.Contains(out, "unchanged 16") || !strings.Contains(out, "unchanged github_incidents_excerpt.json, record 1 (id w554d74dv18j) → incident ") {
		t.Fatalf("re-import: %v\n%s", err, out)
	}
	out, err = runCLI(t, "", "import", "cstate", "../../testdata/cstate", "--database", db)
	if err != nil || !strings.Contains(out, "created 13") || !strings.Contains(out, "planned maintenance kept 6") ||
		!strings.Contains(out, "Kept as planned maintenance") {
		t.Fatalf("cstate: %v\n%s", err, out)
	}

	// A bad record names the file, the record and the field, and nothing is written.
	data, err := os.ReadFile(github)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, bytes.Replace(data, []byte(`"impact": "minor"`), []byte(`"impact": "apocalyptic"`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.db")
	out, err = runCLI(t, "", "import", "statuspage", bad, "--database", empty)
	if err == nil || !strings.Contains(out, "bad.json, record 1 (id w554d74dv18j)") || !strings.Contains(out, `impact: Unknown impact "apocalyptic"`) {
		t.Fatalf("bad record: %v\n%s", err, out)
	}
	out, err = runCLI(t, "", "import", "statuspage", bad, "--skip-invalid", "--database", empty)
	if err != nil || !strings.Contains(out, "created 15") || !strings.Contains(out, "invalid 1 (not imported)") {
		t.Fatalf("skip invalid: %v\n%s", err, out)
	}

	backup := filepath.Join(dir, "backup.json")
	if out, err := runCLI(t, "", "export", backup, "--database", db); err != nil || !strings.Contains(out, "wrote "+backup) {
		t.Fatalf("export: %v\n%s", err, out)
	}
	restored := filepath.Join(dir, "restored.db")
	if out, err := runCLI(t, "", "import", "native", backup, "--database", restored); err != nil || !strings.Contains(out, "restored 29 incident(s)") {
		t.Fatalf("native import: %v\n%s", err, out)
	}
	again, err := runCLI(t, "", "export", "-", "--database", restored)
	if err != nil {
		t.Fatal(err)
	}
	original, err := os.ReadFile(backup)
	if err != nil {
		t.Fatal(err)
	}
	if again != string(original) {
		t.Error("the restored database exports different bytes")
	}
	if _, err := runCLI(t, "", "import", "native", backup, "--database", restored); err == nil || !strings.Contains(err.Error(), "empty database") {
		t.Errorf("restore into a full database: %v", err)
	}
	if _, err := runCLI(t, "", "import", "yaml", backup); err == nil {
		t.Error("unknown format accepted")
	}
}
