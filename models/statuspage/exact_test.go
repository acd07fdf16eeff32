package statuspage_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/importer"
	"hindsight/models/statuspage"
	"hindsight/models/storetest"
)

// realFile finds one of the real Statuspage files in the shared data folder beside the clone, or
// HINDSIGHT_DATA_DIR, and skips the test when neither holds it.
func realFile(t testing.TB, name string) []byte {
	t.Helper()
	for _, dir := range []string{os.Getenv("HINDSIGHT_DATA_DIR"), "../../../shared/data"} {
		if dir == "" {
			continue
		}
		if raw, err := os.ReadFile(filepath.Join(dir, "statuspage", name)); err == nil {
			return raw
		}
	}
	t.Skip("the real Statuspage files are not beside the clone (set HINDSIGHT_DATA_DIR)")
	return nil
}

// jsonKind names a JSON value's type as the comparison sees it.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "?"
}

// shapes gathers, for every key seen in a kind of object, the JSON types its values take.
type shapes map[string]map[string]bool

func (s shapes) add(obj map[string]any) {
	for k, v := range obj {
		if s[k] == nil {
			s[k] = map[string]bool{}
		}
		s[k][jsonKind(v)] = true
	}
}

func keys(obj map[string]any) []string {
	var out []string
	for k := range obj {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// checkShape fails when got has another key set than want, or a value of a type the real file
// never gives that key.
func checkShape(t *testing.T, what string, got, want map[string]any, types shapes) {
	t.Helper()
	if g, w := keys(got), keys(want); !slices.Equal(g, w) {
		t.Errorf("%s keys:\n got %v\nwant %v", what, g, w)
	}
	for k, v := range got {
		if types[k] != nil && !types[k][jsonKind(v)] {
			t.Errorf("%s.%s is a JSON %s; the real file has only %v", what, k, jsonKind(v), types[k])
		}
	}
}

var statuspageInstant = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// checkInstants fails on any timestamp not written as Statuspage writes it.
func checkInstants(t *testing.T, path string, v any, bad *int) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && (strings.HasSuffix(k, "_at") || k == "start_date") && !statuspageInstant.MatchString(s) {
				if *bad++; *bad <= 5 {
					t.Errorf("%s.%s = %q: want 2006-01-02T15:04:05.000Z", path, k, s)
				}
			}
			checkInstants(t, path+"."+k, x, bad)
		}
	case []any:
		for _, x := range v {
			checkInstants(t, path+"[]", x, bad)
		}
	}
}

// TestExportMatchesRealFiles imports GitHub's latest 50 incidents and compares what the status
// page's API writes with the real file, object by object: the same keys, values of the types the
// real file uses, the source's own created_at, updated_at and display_at, its shortlinks and
// reminder intervals, and each update's affected components and notification flag exactly.
// Components' own fields are another part's and only their timestamps are checked here.
func TestExportMatchesRealFiles(t *testing.T) {
	raw := realFile(t, "github_incidents_latest50.json")
	var real map[string]any
	if err := json.Unmarshal(raw, &real); err != nil {
		t.Fatal(err)
	}
	incidentTypes, updateTypes, affectedTypes := shapes{}, shapes{}, shapes{}
	byCreated := map[string]map[string]any{}
	for _, x := range real["incidents"].([]any) {
		inc := x.(map[string]any)
		incidentTypes.add(inc)
		byCreated[inc["created_at"].(string)] = inc
		for _, y := range inc["incident_updates"].([]any) {
			u := y.(map[string]any)
			updateTypes.add(u)
			if list, ok := u["affected_components"].([]any); ok {
				for _, z := range list {
					affectedTypes.add(z.(map[string]any))
				}
			}
		}
	}
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		records, err := statuspage.Parse(raw, "github_incidents_latest50.json", statuspage.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := importer.Run(ctx, s, records, importer.Options{}); err != nil {
			t.Fatal(err)
		}
		updated, err := s.PublicUpdatedAt(ctx)
		if err != nil {
			t.Fatal(err)
		}
		page := statuspage.PageInfo(models.DefaultStatusSettings, "https://status.example.com", updated)
		doc, err := statuspage.ExportHistory(ctx, s, page, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		bad := 0
		checkInstants(t, "incidents.json", got, &bad)
		if bad > 0 {
			t.Errorf("%d timestamps not in Statuspage's form", bad)
		}
		checkShape(t, "page", got["page"].(map[string]any), real["page"].(map[string]any), nil)
		if g, w := keys(got), keys(real); !slices.Equal(g, w) {
			t.Errorf("document keys %v, want %v", g, w)
		}
		incidents := got["incidents"].([]any)
		if len(incidents) != len(byCreated) {
			t.Fatalf("%d incidents exported, want %d", len(incidents), len(byCreated))
		}
		updates := 0
		for _, x := range incidents {
			inc := x.(map[string]any)
			src := byCreated[inc["created_at"].(string)]
			if src == nil {
				t.Errorf("incident %v created_at %v: no source incident was created then (the import time?)", inc["name"], inc["created_at"])
				continue
			}
			name := "incident " + src["id"].(string)
			checkShape(t, name, inc, src, incidentTypes)
			for _, k := range []string{"created_at", "updated_at", "shortlink", "name"} {
				if inc[k] != src[k] {
					t.Errorf("%s %s = %v, source %v", name, k, inc[k], src[k])
				}
			}
			if _, had := src["reminder_intervals"]; had && !reflect.DeepEqual(inc["reminder_intervals"], src["reminder_intervals"]) {
				t.Errorf("%s reminder_intervals = %v, source %v", name, inc["reminder_intervals"], src["reminder_intervals"])
			}
			srcUpdates := map[string]map[string]any{}
			for _, y := range src["incident_updates"].([]any) {
				u := y.(map[string]any)
				srcUpdates[u["created_at"].(string)] = u
			}
			for _, y := range inc["incident_updates"].([]any) {
				u := y.(map[string]any)
				su := srcUpdates[u["created_at"].(string)]
				if su == nil {
					t.Errorf("%s: update created_at %v has no source update", name, u["created_at"])
					continue
				}
				updates++
				uname := name + " update " + su["id"].(string)
				checkShape(t, uname, u, su, updateTypes)
				for _, k := range []string{"created_at", "updated_at", "display_at", "deliver_notifications", "status"} {
					if u[k] != su[k] {
						t.Errorf("%s %s = %v, source %v", uname, k, u[k], su[k])
					}
				}
				if !reflect.DeepEqual(u["affected_components"], su["affected_components"]) {
					t.Errorf("%s affected_components = %v, source %v", uname, u["affected_components"], su["affected_components"])
				}
				if list, ok := u["affected_components"].([]any); ok {
					for _, z := range list {
						checkShape(t, uname+" affected component", z.(map[string]any), z.(map[string]any), affectedTypes)
						if k := keys(z.(map[string]any)); !slices.Equal(k, []string{"code", "name", "new_status", "old_status"}) {
							t.Errorf("%s affected component keys %v", uname, k)
						}
					}
				}
			}
		}
		if updates == 0 {
			t.Fatal("no update was compared")
		}
	})
}
