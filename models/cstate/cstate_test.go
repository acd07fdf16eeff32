package cstate_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/cstate"
	"hindsight/models/importer"
	"hindsight/models/storetest"
)

const testdata = "../../testdata/cstate"

// dirs are the folders of cState files to test: the project's copies, and the shared data folder
// beside the clone (or HINDSIGHT_DATA_DIR) when it is there.
func dirs(t *testing.T) []string {
	out := []string{testdata}
	for _, dir := range []string{os.Getenv("HINDSIGHT_DATA_DIR"), "../../../shared/data"} {
		if dir == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "cstate")); err == nil {
			return append(out, filepath.Join(dir, "cstate"))
		}
	}
	t.Logf("shared data not found; testing the copies only")
	return out
}

func utc(t *testing.T, value string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, value)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestEveryFileParses(t *testing.T) {
	for _, dir := range dirs(t) {
		records, err := cstate.ParseDir(dir, cstate.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(records) != 19 {
			t.Errorf("%s: %d records, want 19", dir, len(records))
		}
		kept := 0
		for _, r := range records {
			if r.Skip != "" {
				t.Errorf("%s skipped for %q", r.Name(), r.Skip)
				continue
			}
			if r.Maintenance != nil {
				kept++
				if !strings.Contains(r.MaintenanceReason, "maintenance") {
					t.Errorf("%s kept as maintenance for %q", r.Name(), r.MaintenanceReason)
				}
			}
			if errs := importer.Check(r); len(errs) > 0 {
				t.Errorf("%s: %v", r.Name(), errs)
			}
		}
		if kept != 6 {
			t.Errorf("%s: %d maintenance files kept as maintenance, want 6", dir, kept)
		}
		// With maintenance included, every file is a valid incident.
		all, err := cstate.ParseDir(dir, cstate.ParseOptions{IncludeMaintenance: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range all {
			if errs := importer.Check(r); len(errs) > 0 || r.Skip != "" {
				t.Errorf("%s with maintenance: %v %q", r.Name(), errs, r.Skip)
			}
		}
	}
}

func record(t *testing.T, name string) importer.Record {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testdata, name))
	if err != nil {
		t.Fatal(err)
	}
	return cstate.Parse(data, name, cstate.ParseOptions{})
}

func TestMapping(t *testing.T) {
	bots := record(t, "2023-03-09-bots-migrations.md")
	in := bots.Input
	if in.ExternalID != "2023-03-09-bots-migrations" || in.Source != "cstate" || in.Title != "Bots migration" ||
		in.Severity != "sev1" || in.Status != "resolved" || !in.Public {
		t.Errorf("incident = %+v", in)
	}
	if !in.Milestones.StartedAt.Equal(utc(t, "2023-03-09T09:00:00Z")) || !in.Milestones.ResolvedAt.Equal(utc(t, "2023-03-09T10:55:00Z")) {
		t.Errorf("milestones = %v – %v", in.Milestones.StartedAt, in.Milestones.ResolvedAt)
	}
	if want := []string{"jenkins-admin IRC bot (jenkins-hosting channel on IRC)", "github-comment-ops on GitHub", "rss2twitter bot (Twitter)"}; !slices.Equal(in.Services, want) {
		t.Errorf("services = %q", in.Services)
	}
	ws := *bots.Children.ImpactWindows
	if len(ws) != 1 || ws[0].Level != "major_outage" || !ws[0].EndedAt.Equal(utc(t, "2023-03-09T10:55:00Z")) {
		t.Errorf("windows = %+v", ws)
	}
	tl := *bots.Children.Timeline
	if len(tl) != 2 || tl[0].Status != "investigating" || !strings.HasPrefix(tl[0].Body, "A migration of the bots") ||
		tl[1].Status != "resolved" || !tl[1].At.Equal(utc(t, "2023-03-09T10:55:00Z")) || !strings.HasPrefix(tl[1].Body, "The 3 services are back online") {
		t.Errorf("timeline = %+v", tl)
	}

	// Quoted title, four blocks, updates without a time.
	azure := record(t, "2025-09-25-azure-publick8s-1-32-adn-migration.md")
	if azure.Input.Title != "Azure cluster publick8s migrated to a new location and upgraded to Kubernetes 1.32" || azure.Input.Severity != "sev2" ||
		len(azure.Input.Services) != 26 || !azure.Input.Milestones.ResolvedAt.Equal(utc(t, "2025-09-26T09:30:00Z")) {
		t.Errorf("azure = %+v", azure.Input)
	}
	tl = *azure.Children.Timeline
	if len(tl) != 4 || !strings.HasPrefix(tl[1].Body, "Migration was finished") || !strings.HasPrefix(tl[2].Body, "Friday 26 September") || tl[3].Status != "resolved" {
		t.Errorf("azure timeline = %+v", tl)
	}
	if (*azure.Children.ImpactWindows)[0].Level != "partial_outage" || len(azure.Warnings) != 1 {
		t.Errorf("azure windows %+v warnings %v", *azure.Children.ImpactWindows, azure.Warnings)
	}

	// Single-quoted title, notice severity, plain body.
	plugins := record(t, "2026-05-23-plugin-site-search-unavailable.md")
	if plugins.Input.Title != "Problems on plugins.jenkins.io: search and changelogs" {
		t.Errorf("title = %q", plugins.Input.Title)
	}
	notice := record(t, "2024-09-09-UC-1hour-brownout-2.md")
	if notice.Input.Severity != "sev4" || (*notice.Children.ImpactWindows)[0].Level != "degraded" || len(*notice.Children.Timeline) != 1 {
		t.Errorf("notice = %+v", notice)
	}
	r := record(t, "2023-05-16-ci-maintenance.md")
	m := r.Maintenance
	if m == nil || r.Skip != "" {
		t.Fatalf("maintenance not kept as maintenance: %+v", r)
	}
	if m.Input.Title != "Maintenance on ci.jenkins.io" || !m.Input.ScheduledFor.Equal(time.Date(2023, 5, 16, 11, 0, 0, 0, time.UTC)) ||
		!m.Input.ScheduledUntil.Equal(time.Date(2023, 5, 16, 13, 0, 0, 0, time.UTC)) || !slices.Equal(m.ComponentNames, []string{"ci.jenkins.io"}) || !m.Input.Public {
		t.Errorf("maintenance = %+v", m)
	}
	if n := len(m.Updates); n != 2 || m.Updates[0].Status != models.MaintenanceScheduled || m.Updates[n-1].Status != models.MaintenanceCompleted ||
		!strings.Contains(m.Updates[0].Body, "security advisory") || !m.Updates[n-1].At.Equal(m.Input.ScheduledUntil) {
		t.Errorf("maintenance updates = %+v", m.Updates)
	}
}

func TestDates(t *testing.T) {
	cases := []struct{ in, want string }{
		{"2023-03-09T09:00:00-00:00", "2023-03-09T09:00:00Z"},
		{"2023-03-09T09:00:00+01:00", "2023-03-09T08:00:00Z"},
		{"2023-03-09T09:00:00Z", "2023-03-09T09:00:00Z"},
		{"2023-03-09T09:00:00", "2023-03-09T09:00:00Z"},
		{"2023-03-09 09:00:00", "2023-03-09T09:00:00Z"},
		{"2023-03-09 9:00:00", "2023-03-09T09:00:00Z"},
		{"2023-03-09T9:05", "2023-03-09T09:05:00Z"},
		{"2019-10-04 18:05:00 UTC", "2019-10-04T18:05:00Z"},
		{"2023-03-09 18:05:00 +0200", "2023-03-09T16:05:00Z"},
		{"2023-03-09T09:00:00.250-05:00", "2023-03-09T14:00:00.25Z"},
		{"2023-03-09", "2023-03-09T00:00:00Z"},
	}
	for _, tc := range cases {
		got, ok := cstate.ParseDate(tc.in)
		if !ok || !got.Equal(utc(t, tc.want)) {
			t.Errorf("ParseDate(%q) = %v, %v; want %s", tc.in, got, ok, tc.want)
		}
	}
	for _, bad := range []string{"", "yesterday", "2023-02-30 10:00", "2023-03-09 25:00", "09/03/2023", "2023-03-09T09:00:00+99:00"} {
		if got, ok := cstate.ParseDate(bad); ok {
			t.Errorf("ParseDate(%q) = %v, want an error", bad, got)
		}
	}
}

func TestFrontMatterProblems(t *testing.T) {
	cases := []struct {
		name, file, field string
	}{
		{"no front matter", "Just text.", "front matter"},
		{"unclosed", "---\ntitle: x\n", "front matter"},
		{"bad date", "---\ntitle: x\ndate: soon\nseverity: down\n---\nbody", "date"},
		{"no date", "---\ntitle: x\nseverity: down\n---\nbody", "date"},
		{"bad severity", "---\ntitle: x\ndate: 2024-01-01 10:00\nseverity: meh\n---\nbody", "severity"},
		{"no title", "---\ndate: 2024-01-01 10:00\nseverity: down\n---\nbody", "title"},
		{"long title", "---\ntitle: " + strings.Repeat("t", 201) + "\ndate: 2024-01-01 10:00\nseverity: down\n---\nbody", "title"},
	}
	for _, tc := range cases {
		r := cstate.Parse([]byte(tc.file), "x.md", cstate.ParseOptions{})
		errs := importer.Check(r)
		if errs.For(tc.field) == "" {
			t.Errorf("%s: problems %v, want one on %s", tc.name, errs, tc.field)
		}
	}
	// Unresolved, with an inline list, informational skipped, a negative duration kept.
	r := cstate.Parse([]byte("---\ntitle: \"Slow \\\"builds\\\"\"\ndate: 2024-01-01 10:00\nresolved: false\nseverity: disrupted # comment\naffected: [ci, 'repo']\n---\n"), "open.md", cstate.ParseOptions{})
	if r.Input.Title != `Slow "builds"` || r.Input.Status != "investigating" || !slices.Equal(r.Input.Services, []string{"ci", "repo"}) ||
		(*r.Children.ImpactWindows)[0].EndedAt != nil || len(importer.Check(r)) > 0 {
		t.Errorf("open incident = %+v %v", r.Input, importer.Check(r))
	}
	r = cstate.Parse([]byte("---\ntitle: Note\ndate: 2024-01-01 10:00\ninformational: true\nsection: issue\n---\nHello"), "info.md", cstate.ParseOptions{})
	if !strings.Contains(r.Skip, "informational") {
		t.Errorf("informational post not skipped: %q", r.Skip)
	}
	r = cstate.Parse([]byte("---\ntitle: Back to front\ndate: 2024-01-02 10:00\nresolved: true\nresolvedWhen: 2024-01-01 10:00\nseverity: down\n---\n"), "neg.md", cstate.ParseOptions{})
	if len(importer.Check(r)) > 0 || r.Input.Milestones.ResolvedAt == nil || len(*r.Children.ImpactWindows) != 0 || len(r.Warnings) != 2 {
		t.Errorf("negative duration: %+v warnings %v", r.Input.Milestones, r.Warnings)
	}
}

func TestImport(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		records, err := cstate.ParseDir(testdata, cstate.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		summary, err := importer.Run(ctx, s, records, importer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if summary.Created != 13 || summary.Skipped != 0 || summary.Maintenances != 6 {
			t.Fatalf("summary = %+v", summary)
		}
		// The six planned maintenance files are kept as maintenance records, with their
		// components, and a re-import replaces them rather than adding them again.
		list, err := s.ListMaintenances(ctx, models.MaintenanceFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 6 {
			t.Fatalf("%d maintenances stored, want 6", len(list))
		}
		byID := map[string]models.Maintenance{}
		for _, m := range list {
			byID[m.ExternalID] = m
		}
		ci := byID["2023-05-16-ci-maintenance"]
		if ci.Source != cstate.Source || ci.Status != models.MaintenanceCompleted || len(ci.Components) != 1 || ci.Components[0].Name != "ci.jenkins.io" ||
			len(ci.Updates) != 2 || !ci.Public || !ci.ScheduledUntil.Equal(time.Date(2023, 5, 16, 13, 0, 0, 0, time.UTC)) {
			t.Errorf("stored maintenance = %+v", ci)
		}
		again, err := importer.Run(ctx, s, records, importer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if again.Created != 0 || again.Unchanged != 13 {
			t.Errorf("re-import = %+v", again)
		}
		if list, err := s.ListMaintenances(ctx, models.MaintenanceFilter{}); err != nil || len(list) != 6 {
			t.Errorf("after re-import %d maintenances (%v), want 6", len(list), err)
		}
		id, err := s.FindBySource(ctx, cstate.Source, "2024-07-02-publicheathscore-outage")
		if err != nil {
			t.Fatal(err)
		}
		inc, err := s.GetIncident(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got := models.FormatFigure(models.ComputeMetrics(inc).TimeToResolve); got != "2435 h" {
			t.Errorf("time to resolve = %s", got)
		}
	})
}
