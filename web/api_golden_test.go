package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"regexp"
	"testing"

	"hindsight/models/native"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite the web package's golden JSON files")

// restoreGolden fills the app's database from the native format's golden document: one rich
// incident with every field set, a near miss imported from a status page and a deleted incident,
// all with fixed ids and times.
func restoreGolden(t *testing.T, a *app) {
	t.Helper()
	doc, err := os.ReadFile("../models/native/testdata/golden_export.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := native.Import(context.Background(), a.store, bytes.NewReader(doc), "golden_export.json"); err != nil {
		t.Fatal(err)
	}
}

// checkGolden compares an answer's body, indented, with a file in testdata.
func checkGolden(t *testing.T, name string, body []byte) {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, body, "", "  "); err != nil {
		t.Fatalf("%s: not JSON: %v\n%s", name, err, body)
	}
	out.WriteByte('\n')
	path := "testdata/" + name
	if *updateGolden {
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("%s differs from %s:\n%s", name, path, out.String())
	}
}

// TestAPIGoldenGet pins the exact JSON the API answers for an incident, one by one and in the
// list, its follow-ups, the incident's JSON and Statuspage exports and the status page's
// Statuspage API: clients read these keys, in this order, with these nulls and empty lists.
func TestAPIGoldenGet(t *testing.T) {
	a := newApp(t)
	restoreGolden(t, a)
	for _, c := range []struct{ path, golden string }{
		{"/api/v1/incidents/1", "api_incident_1.json"},
		{"/api/v1/incidents/2", "api_incident_2.json"},
		{"/api/v1/incidents", "api_incident_list.json"},
		{"/api/v1/follow-ups?status=active", "api_follow_ups.json"},
		{"/incidents/1/export.json", "export_incident_1.json"},
		{"/incidents/1/export.statuspage.json", "export_incident_1.statuspage.json"},
		{"/status/api/v2/incidents.json", "status_incidents.json"},
		{"/status/api/v2/incidents/unresolved.json", "status_unresolved.json"},
	} {
		r := a.json(http.MethodGet, c.path, nil)
		if r.status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", c.path, r.status, r.body)
		}
		checkGolden(t, c.golden, []byte(r.body))
	}
}

// volatile are the instants a request sets to the time it ran, and the signed-in user's
// address, numbered by the order the package's tests run in.
var (
	volatile = regexp.MustCompile(`"(created_at|updated_at|published_at|recorded_at)":"[^"]+"`)
	tester   = regexp.MustCompile(`admin[0-9]+@example\.com`)
)

// TestAPIGoldenPost pins what POST /api/v1/incidents takes and answers: a body with every field
// the API reads, the incident it creates, and the errors of a body wrong in every nested record.
func TestAPIGoldenPost(t *testing.T) {
	a := newApp(t)
	body := `{
  "title": "  Document processing failures  ",
  "summary": "Uploads failed for US customers.",
  "severity": "sev2",
  "status": "resolved",
  "detection_method": "automated_alert",
  "services": ["Document Understanding", "Authorization Service"],
  "regions": ["US"],
  "factors": ["cold-caches"],
  "customer_impact": "Uploads failed.",
  "root_cause": "One stuck server.",
  "trigger": "A deploy on the 16th.",
  "detection": "Error alerts.",
  "response": "Drained the server.",
  "lessons": "Alert on latency.",
  "time_zone": "Europe/London",
  "triggered_at": "2026-03-16T00:00:00Z",
  "started_at": "2026-03-17T04:00:00Z",
  "detected_at": "2026-03-17T07:54:00+00:00",
  "acknowledged_at": "2026-03-17T02:57:00-05:00",
  "mitigated_at": "2026-03-17T10:24:00Z",
  "resolved_at": "2026-03-17T10:52:00Z",
  "milestone_days": ["triggered_at"],
  "postmortem_state": "draft",
  "public": true,
  "near_miss": false,
  "sections": [{"heading": "Customer communication", "body": "We wrote to every affected customer.", "public": true}],
  "timeline": [
    {"at": "2026-03-17T07:57:00Z", "kind": "action", "body": "Scope confirmed"},
    {"at": "2026-03-17T08:10:00Z", "kind": "status_update", "status": "investigating", "body": "We are looking into errors.", "public": true}
  ],
  "impact_windows": [
    {"started_at": "2026-03-17T04:00:00Z", "ended_at": "2026-03-17T04:30:00Z", "level": "degraded", "note": "p99 5 s"},
    {"started_at": "2026-03-17T07:30:00Z", "level": "partial_outage", "services": ["Document Understanding"]}
  ],
  "follow_ups": [
    {"title": " Rate limits ", "description": "At the routing layer.", "kind": "prevent", "priority": "p1", "owner": " Grace ", "status": "open", "due_on": "2026-04-30", "tracker_url": " https://example.com/T-1 ", "verification": "Load test.", "factors": ["cold-caches"]},
    {"title": "Latency alert", "kind": "detect", "priority": "p2", "status": "done", "done_at": "2026-03-20T12:00:00+01:00"}
  ]
}`
	r := a.json(http.MethodPost, "/api/v1/incidents", body)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	created := volatile.ReplaceAll([]byte(r.body), []byte(`"$1":"(the time of the request)"`))
	checkGolden(t, "api_post_created.json", tester.ReplaceAll(created, []byte("admin@example.com")))

	bad := `{
  "title": "",
  "severity": "sev9",
  "status": "resolved",
  "started_at": "yesterday",
  "milestone_days": ["lunchtime"],
  "timeline": [{"at": "soon", "kind": "gossip"}, {"kind": "status_update", "body": "x"}],
  "impact_windows": [{"started_at": "2026-03-17T04:00:00Z", "ended_at": "2026-03-17T03:00:00Z", "level": "total"}],
  "follow_ups": [{"title": "", "kind": "prevent", "priority": "p9", "status": "done", "due_on": "30/04/2026", "done_at": "later"}],
  "links": [{"kind": "cousin_of", "incident_id": 0}]
}`
	r = a.json(http.MethodPost, "/api/v1/incidents", bad)
	if r.status != http.StatusUnprocessableEntity {
		t.Fatalf("bad create: %d %s", r.status, r.body)
	}
	checkGolden(t, "api_post_invalid.json", []byte(r.body))

	// A value of the wrong type is named by its path in the body, nested or not.
	for name, body := range map[string]string{
		"api_post_wrong_type.json":           `{"title": 5}`,
		"api_post_wrong_type_nested.json":    `{"title": "x", "follow_ups": [{"title": "y", "due_on": 20260430}]}`,
		"api_post_wrong_type_milestone.json": `{"title": "x", "started_at": 1}`,
	} {
		r := a.json(http.MethodPost, "/api/v1/incidents", body)
		if r.status != http.StatusUnprocessableEntity {
			t.Fatalf("%s: %d %s", name, r.status, r.body)
		}
		checkGolden(t, name, []byte(r.body))
	}
}

// TestAPIGoldenParse pins the drafts POST /api/v1/incidents/parse reads from the seeds: the
// shape POST /api/v1/incidents takes, with only what the text states.
func TestAPIGoldenParse(t *testing.T) {
	a := newApp(t)
	for _, seed := range []string{"000", "001", "002", "003", "004"} {
		body, _ := json.Marshal(map[string]string{"text": seedText(t, seed), "time_zone": "Europe/London"})
		r := a.json(http.MethodPost, "/api/v1/incidents/parse", string(body))
		if r.status != http.StatusOK {
			t.Fatalf("seed %s: %d %s", seed, r.status, r.body)
		}
		checkGolden(t, "api_parse_seed"+seed+".json", []byte(r.body))
	}
}
