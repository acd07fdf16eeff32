package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"testing"
)

var statuspageStamp = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

func objectKeys(obj map[string]any) []string {
	var out []string
	for k := range obj {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestSummaryMatchesTheRealFile compares the root summary.json with GitHub's real one: the same
// top-level keys, page and status objects with the same keys and value types, and every
// timestamp in Statuspage's form, with an open public incident in it. Components are compared
// by the component records' own test.
func TestSummaryMatchesTheRealFile(t *testing.T) {
	raw, err := os.ReadFile("../../shared/data/statuspage/github_summary.json")
	if err != nil {
		t.Skipf("no shared data beside the project: %v", err)
	}
	var real map[string]any
	if err := json.Unmarshal(raw, &real); err != nil {
		t.Fatal(err)
	}
	admin := newApp(t)
	path := admin.createIncident(with(seed000Form(), "public", "true", "status", "identified", "title", "Open and public", "mitigated_at", "", "resolved_at", ""))
	admin.post(path+"/events", url.Values{"at": {"2026-03-12T17:00"}, "time_zone": {"UTC"}, "kind": {"status_update"}, "status": {"identified"}, "body": {"Found it."}, "public": {"true"}})
	r := admin.anonymous().get("/api/v2/summary.json")
	if r.status != http.StatusOK {
		t.Fatalf("summary.json: %d", r.status)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(r.body), &got); err != nil {
		t.Fatal(err)
	}
	if g, w := objectKeys(got), objectKeys(real); !slices.Equal(g, w) {
		t.Errorf("summary keys %v, want %v", g, w)
	}
	for _, name := range []string{"page", "status"} {
		g, w := got[name].(map[string]any), real[name].(map[string]any)
		if !slices.Equal(objectKeys(g), objectKeys(w)) {
			t.Errorf("%s keys %v, want %v", name, objectKeys(g), objectKeys(w))
		}
		for k, v := range w {
			if jsonType(g[k]) != jsonType(v) {
				t.Errorf("%s.%s is %s, the real file's %s", name, k, jsonType(g[k]), jsonType(v))
			}
		}
	}
	if u := got["page"].(map[string]any)["updated_at"].(string); !statuspageStamp.MatchString(u) {
		t.Errorf("page.updated_at %q", u)
	}
	incidents := got["incidents"].([]any)
	if len(incidents) != 1 {
		t.Fatalf("%d open incidents", len(incidents))
	}
	inc := incidents[0].(map[string]any)
	for _, k := range []string{"created_at", "updated_at", "started_at"} {
		if s, _ := inc[k].(string); !statuspageStamp.MatchString(s) {
			t.Errorf("incident %s = %q", k, s)
		}
	}
	update := inc["incident_updates"].([]any)[0].(map[string]any)
	for _, k := range []string{"created_at", "updated_at", "display_at"} {
		if s, _ := update[k].(string); !statuspageStamp.MatchString(s) {
			t.Errorf("update %s = %q", k, s)
		}
	}
	if update["display_at"] != "2026-03-12T17:00:00.000Z" || update["deliver_notifications"] != true {
		t.Errorf("update: %v", update)
	}
}

func jsonType(v any) string {
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
	}
	return "object"
}
