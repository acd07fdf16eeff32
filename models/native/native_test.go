package native_test

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the samples use Europe/London

	"hindsight/models"
	"hindsight/models/cstate"
	"hindsight/models/demo"
	"hindsight/models/importer"
	"hindsight/models/native"
	"hindsight/models/statuspage"
	"hindsight/models/storetest"
)

// fill gives a database some of everything: the samples, imported status pages, a deleted
// incident, a finished follow-up, factors of its own and links.
func fill(t *testing.T, s *models.Store) {
	t.Helper()
	ctx := context.Background()
	if _, err := demo.Load(ctx, s); err != nil {
		t.Fatal(err)
	}
	records, err := statuspage.ParseFile("../../testdata/statuspage/github_incidents_excerpt.json", statuspage.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	more, err := cstate.ParseDir("../../testdata/cstate", cstate.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := importer.Run(ctx, s, append(records, more...), importer.Options{}); err != nil {
		t.Fatal(err)
	}
	id, _ := s.FindBySource(ctx, demo.Source, "seed-003")
	if err := s.DeleteIncident(ctx, id); err != nil {
		t.Fatal(err)
	}
	id, _ = s.FindBySource(ctx, demo.Source, "seed-000")
	inc, err := s.GetIncident(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveFactor(ctx, 0, models.FactorInput{Slug: "stale-runbook", Name: "Stale runbook", Description: "The runbook described a system that had changed."}); err != nil {
		t.Fatal(err)
	}
	in, _ := importer.FromIncident(inc)
	in.Factors = []string{"cold-caches", "stale-runbook"}
	if inc, err = s.UpdateIncident(ctx, id, 0, in, models.Children{}); err != nil {
		t.Fatal(err)
	}
	f := inc.FollowUps[0]
	due := time.Date(2026, 4, 30, 0, 0, 0, 0, time.UTC)
	if err := s.UpdateFollowUp(ctx, id, f.ID, f.Version, models.FollowUpInput{Title: f.Title, Kind: f.Kind, Priority: f.Priority, Status: "done", DueOn: &due, Factors: []string{"cold-caches"}}); err != nil {
		t.Fatal(err)
	}
	later, _ := s.FindBySource(ctx, demo.Source, "seed-001")
	if _, err := s.AddLink(ctx, later, models.LinkInput{Kind: "related", IncidentID: id}); err != nil {
		t.Fatal(err)
	}
	// The finished follow-up changed the public postmortem: publishing again records version 2.
	if inc, err = s.GetIncident(ctx, id); err != nil {
		t.Fatal(err)
	}
	byAda := models.WithActor(ctx, models.Actor{UserID: 7, Label: "Ada Lovelace"})
	if _, err := s.SetPostmortemState(byAda, id, inc.Version, models.PostmortemPublished); err != nil {
		t.Fatal(err)
	}
	if versions, err := s.PostmortemVersions(ctx, id); err != nil || len(versions) != 2 || versions[0].PublishedBy != "Ada Lovelace" {
		t.Fatalf("versions after publishing again: %+v %v", versions, err)
	}
	if err := s.SaveStatusSettings(byAda, models.StatusSettings{Name: "Acme status", TimeZone: "Europe/London"}); err != nil {
		t.Fatal(err)
	}
}

// publishedState is what the status page shows: every published version of every incident
// and the status page settings.
func publishedState(t *testing.T, s *models.Store) (map[string][]models.PostmortemVersion, models.StatusSettings) {
	t.Helper()
	ctx := context.Background()
	out := map[string][]models.PostmortemVersion{}
	for _, key := range []string{"seed-000", "seed-001", "seed-002", "seed-003", "seed-004"} {
		id, err := s.FindBySource(ctx, demo.Source, key)
		if err != nil {
			t.Fatal(err)
		}
		versions, err := s.PostmortemVersions(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		for n := range versions {
			versions[n].PublishedAt = versions[n].PublishedAt.UTC()
		}
		out[key] = versions
	}
	settings, err := s.StatusSettings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return out, settings
}

func export(t *testing.T, s *models.Store) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := native.Export(context.Background(), s, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func empty(t *testing.T, dialect string) *models.Store {
	if dialect == "postgres" {
		return storetest.Postgres(t)
	}
	return storetest.SQLite(t)
}

func TestRoundTrip(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		fill(t, s)
		first := export(t, s)
		for _, want := range []string{`"format": "hindsight"`, `"deleted_at": "`, `"done_at": "`, `"due_on": "2026-04-30"`, `"external_id": "w554d74dv18j"`, `"published_at": "`,
			`"audit_entries": [`, `"action": "delete"`, `"actor": "system"`, `"slug": "stale-runbook"`, `"kind": "related"`,
			`"postmortem_versions": [`, `"version": 2,`, `"published_by_id": 7,`, `"published_by": "Ada Lovelace"`,
			`"key": "status_page_name",
      "value": "Acme status"`, `"value": "Europe/London"`,
			`"factors": [
        "cold-caches",
        "stale-runbook"
      ]`} {
			if !bytes.Contains(first, []byte(want)) {
				t.Errorf("export lacks %s", want)
			}
		}

		target := empty(t, s.Dialect())
		summary, err := native.Import(ctx, target, bytes.NewReader(first), "backup.json")
		if err != nil {
			t.Fatal(err)
		}
		if summary.Incidents != 5+16+13 || summary.Events == 0 || summary.FollowUps != 21 || summary.History == 0 || summary.Versions == 0 || summary.Settings != 3 {
			t.Errorf("summary = %+v", summary)
		}
		second := export(t, target)
		if !bytes.Equal(first, second) {
			t.Fatalf("round trip differs at byte %d:\n%s", firstDifference(first, second), around(second, firstDifference(first, second)))
		}
		wantVersions, wantSettings := publishedState(t, s)
		gotVersions, gotSettings := publishedState(t, target)
		if !reflect.DeepEqual(gotVersions, wantVersions) || gotSettings != wantSettings {
			t.Errorf("published state after restore:\n%+v %+v\nwant\n%+v %+v", gotVersions, gotSettings, wantVersions, wantSettings)
		}
		if len(gotVersions["seed-000"]) != 2 || gotSettings.Name != "Acme status" {
			t.Errorf("restored versions of seed-000 = %d, settings = %+v", len(gotVersions["seed-000"]), gotSettings)
		}
		// Starting the server on the restored database records no version of its own: every
		// published postmortem came with its versions.
		if _, err := target.MigrateUp(ctx); err != nil {
			t.Fatal(err)
		}
		if third := export(t, target); !bytes.Equal(first, third) {
			t.Fatalf("after startup the export differs at byte %d:\n%s", firstDifference(first, third), around(third, firstDifference(first, third)))
		}

		// The restored database takes new records after the restored ids.
		created, err := target.CreateIncident(ctx, models.IncidentInput{Title: "New", Severity: "sev3", Status: "investigating", TimeZone: "UTC", PostmortemState: "none"}, models.Children{})
		if err != nil {
			t.Fatal(err)
		}
		if created.ID <= int64(summary.Incidents) {
			t.Errorf("new incident got id %d, inside the restored range", created.ID)
		}

		// A second restore into the same database is refused, and changes nothing.
		if _, err := native.Import(ctx, target, bytes.NewReader(first), "backup.json"); !errors.Is(err, models.ErrNotEmpty) {
			t.Errorf("restore into a full database: %v", err)
		}
	})
}

// TestAcrossDatabases moves a SQLite database to PostgreSQL and back, byte for byte.
func TestAcrossDatabases(t *testing.T) {
	sqlite := storetest.SQLite(t)
	fill(t, sqlite)
	first := export(t, sqlite)
	pg := storetest.Postgres(t)
	if _, err := native.Import(context.Background(), pg, bytes.NewReader(first), "backup.json"); err != nil {
		t.Fatal(err)
	}
	if second := export(t, pg); !bytes.Equal(first, second) {
		n := firstDifference(first, second)
		t.Fatalf("SQLite → PostgreSQL differs at byte %d:\n%s\nwant\n%s", n, around(second, n), around(first, n))
	}
}

func TestBadExportWritesNothing(t *testing.T) {
	source := storetest.SQLite(t)
	fill(t, source)
	good := string(export(t, source))
	// The columns and values of the tables carried row for row are checked against the schema as
	// they are written: Check, which has no database, passes them (onWrite).
	onWrite := map[string]bool{"unknown column": true, "bad column value": true}
	cases := []struct{ name, doc, want string }{
		{"bad title", strings.Replace(good, `"title": "Europe: several services unreachable`, `"title": "`+strings.Repeat("x", 201)+`" , "x": "`, 1), "incident 2 (id 2): title: Must be at most 200 characters."},
		{"unknown status", strings.Replace(good, `"status": "resolved"`, `"status": "gone"`, 1), "incident 1 (id 1): status: Must be one of"},
		{"unknown service", strings.Replace(good, `"name": "Orchestrator"`, `"name": "Orchestra"`, 1), `services: "Orchestrator" is not in the document's list.`},
		{"link to nowhere", strings.Replace(good, `"to_id": 1,`, `"to_id": 999,`, 1), "there is no incident 999 in the document"},
		{"unknown factor", strings.Replace(good, `"stale-runbook"
      ]`, `"stale-runbooks"
      ]`, 1), `factors: "stale-runbooks" is not in the document's list.`},
		{"bad version body", strings.Replace(good, `"body": "{`, `"body": "{{`, 1), "postmortem_versions[0].body: Not a public postmortem in JSON."},
		{"duplicate setting", strings.Replace(good, `"key": "status_page_time_zone"`, `"key": "status_page_name"`, 1), `setting "status_page_name" appears twice`},
		{"table not carried", strings.Replace(good, `"tables": {`, `"tables": {"users": [], `, 1), "users is not a table this Hindsight restores row for row"},
		{"unknown column", strings.Replace(good, `"shortlink": `, `"shortlinks": `, 1), "statuspage_incidents: there is no column shortlinks"},
		{"bad column value", strings.Replace(good, `"deliver_notifications": true`, `"deliver_notifications": "yes"`, 1), "statuspage_updates row 1, deliver_notifications"},
		{"truncated", good[:len(good)/2], "backup.json"},
		{"trailing junk", good + "{}", "unexpected data after the document"},
		{"not ours", `{"format": "other", "incidents": []}`, "not a Hindsight export"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			target := storetest.SQLite(t)
			_, err := native.Import(context.Background(), target, strings.NewReader(tc.doc), "backup.json")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if _, total, _ := target.ListIncidents(context.Background(), models.IncidentFilter{}); total != 0 {
				t.Errorf("%d incidents written", total)
			}
			if names, _ := target.ServiceNames(context.Background()); len(names) != 0 {
				t.Errorf("services written: %v", names)
			}
			if _, err := native.Check(strings.NewReader(tc.doc), "backup.json"); err == nil && !onWrite[tc.name] {
				t.Errorf("Check passed a bad document")
			}
		})
	}
	summary, err := native.Check(strings.NewReader(good), "backup.json")
	if err != nil || summary.Incidents != 34 {
		t.Errorf("check: %+v %v", summary, err)
	}
}

func firstDifference(a, b []byte) int {
	for n := range min(len(a), len(b)) {
		if a[n] != b[n] {
			return n
		}
	}
	return min(len(a), len(b))
}

func around(data []byte, n int) string {
	return string(data[max(0, n-300):min(len(data), n+300)])
}
