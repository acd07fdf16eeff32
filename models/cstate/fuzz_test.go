package cstate_test

import (
	"os"
	"path/filepath"
	"testing"

	"hindsight/models/cstate"
	"hindsight/models/importer"
)

// FuzzParse feeds the reader arbitrary files, seeded with the real Jenkins status files and the
// date forms cState allows. It must not panic, and a record it calls valid must pass the
// store's rules.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(testdata, "*.md"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed files: %v", err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("---\ntitle: \"Quoted \\\"title\\\"\"\ndate: 2019-10-04 18:05:00 UTC\nresolved: false\nseverity: notice\naffected: [a, 'b']\n---\n[Update]\nStill slow.\n[Initial Message]\nSlow.\n"))
	f.Add([]byte("---\ntitle: Info\ndate: 2023-03-09 9:00\ninformational: true\nsection: maintenance\n---\n"))
	f.Add([]byte("---\ntitle: Backwards\ndate: 2023-03-09T09:00:00+01:00\nresolved: true\nresolvedWhen: 2023-03-08\nseverity: down\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, include := range []bool{false, true} {
			r := cstate.Parse(data, "fuzz.md", cstate.ParseOptions{IncludeMaintenance: include})
			_ = r.Name()
			if errs := importer.Check(r); r.Skip != "" || len(errs) > 0 {
				continue
			}
			if m := r.Maintenance; m != nil {
				// A valid maintenance has a schedule that ends no earlier than it starts.
				if m.Input.ScheduledFor.IsZero() || m.Input.ScheduledUntil.Before(m.Input.ScheduledFor) || len(m.Updates) == 0 {
					t.Fatalf("%s: a valid maintenance with a bad schedule or no update: %+v", r.Name(), m)
				}
				continue
			}
			if r.Input.Milestones.StartedAt == nil {
				t.Fatalf("a valid record without a start: %+v", r.Input)
			}
		}
	})
}
