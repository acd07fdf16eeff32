package native_test

import (
	"bytes"
	"context"
	"os"
	"testing"

	"hindsight/models/native"
)

// TestGoldenExport pins the native format to the byte: a document holding one rich incident
// (every milestone, a day-only one, sections, factors, events, open and ended windows, follow-ups
// due and done, a link, a published version, a near miss imported from elsewhere and a deleted
// incident) restores and exports as exactly the same bytes, on both databases. Backups written by
// earlier releases must keep reading, and an export must not change shape unnoticed.
func TestGoldenExport(t *testing.T) {
	golden, err := os.ReadFile("testdata/golden_export.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, dialect := range []string{"sqlite", "postgres"} {
		t.Run(dialect, func(t *testing.T) {
			s := empty(t, dialect)
			if _, err := native.Import(context.Background(), s, bytes.NewReader(golden), "golden_export.json"); err != nil {
				t.Fatal(err)
			}
			got := export(t, s)
			if !bytes.Equal(got, golden) {
				n := firstDifference(got, golden)
				t.Errorf("the export differs from testdata/golden_export.json at byte %d:\ngot:  %s\nwant: %s", n, around(got, n), around(golden, n))
			}
		})
	}
}
