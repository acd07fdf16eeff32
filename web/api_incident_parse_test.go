package web_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hindsight/models"
)

// seedText reads a seed from the folder beside the project: skipped on a developer's machine
// without it, a failure in CI.
func seedText(t *testing.T, prefix string) string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join("..", "..", "shared", "seeds", prefix+"_*.txt"))
	if len(matches) != 1 {
		if os.Getenv("CI") != "" {
			t.Fatalf("seed %s missing in CI", prefix)
		}
		t.Skipf("seed %s not beside the project", prefix)
	}
	raw, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func TestAPIIncidentParse(t *testing.T) {
	a := newApp(t)
	seed000 := seedText(t, "000")
	body, _ := json.Marshal(map[string]string{"text": seed000, "time_zone": "UTC"})
	r := a.json(http.MethodPost, "/api/v1/incidents/parse", string(body))
	check(t, "seed 000", r, http.StatusOK, []string{
		`"title":"Canada - Multiple Services - Degraded Performance"`,
		`"started_at":"2026-03-09T16:00:00Z"`, `"detected_at":"2026-03-12T16:54:00Z"`,
		`"mitigated_at":"2026-03-12T17:45:00Z"`, `"resolved_at":"2026-03-12T18:28:00Z"`,
		`"detection_method":"customer_report"`, `"status":"resolved"`,
		`{"at":"2026-03-12T16:39:00Z","kind":"status_update","status":"investigating","body":"We are investigating reports`,
		`"follow_ups":[{"title":"Add a cache connectivity check to the routing service startup"`,
		`"evidence":{`, `"started_at":"Impact start: ~March 9, 2026 16:00 UTC"`,
	}, []string{`"triggered_at"`, `"acknowledged_at"`, `"severity"`, `"summary"`, `"lessons"`})
	var got struct {
		Incident map[string]any    `json:"incident"`
		Evidence map[string]string `json:"evidence"`
	}
	r.decode(t, &got)
	if n := len(got.Incident["timeline"].([]any)); n != 7 {
		t.Errorf("%d timeline entries, want 7 (6 updates and the postmortem)", n)
	}
	if n := len(got.Incident["follow_ups"].([]any)); n != 5 {
		t.Errorf("%d follow-ups, want 5", n)
	}
	if _, n, err := a.store.ListIncidents(t.Context(), models.IncidentFilter{}); err != nil || n != 0 {
		t.Errorf("parse saved %d incidents (%v)", n, err)
	}

	// The zone for times that name none, and a second reading offered for a stated one.
	r = a.json(http.MethodPost, "/api/v1/incidents/parse", `{"text": "Impact start: July 1, 2025 09:00\nBetween 10:00 and 11:00 UTC on July 1, 2025 it was down.", "time_zone": "America/New_York"}`)
	check(t, "zone", r, http.StatusOK, []string{`"started_at":"2025-07-01T13:00:00Z"`, `"time_zone":"America/New_York"`,
		`"alternatives":{"started_at":[{"at":"2025-07-01T10:00:00Z"`, `"mitigated_at":"2025-07-01T11:00:00Z"`}, nil)

	cases := []struct {
		name, body string
		status     int
		want       []string
	}{
		{"unknown zone", `{"text": "x", "time_zone": "Mars/Olympus"}`, 422, []string{`"field":"time_zone"`}},
		{"Local is no zone", `{"text": "x", "time_zone": "Local"}`, 422, []string{`"field":"time_zone"`}},
		{"missing text", `{"time_zone": "UTC"}`, 422, []string{`"field":"text"`, `Paste the postmortem`}},
		{"blank text", `{"text": "  \n "}`, 422, []string{`"field":"text"`}},
		{"text of the wrong type", `{"text": 5}`, 422, []string{`"field":"text"`}},
		{"malformed JSON", `{"text": `, 400, []string{`not valid JSON`}},
		{"nothing stated", `{"text": "We had a bad day. It is fixed now."}`, 200, []string{`"incident":{"time_zone":"UTC"}`, `"evidence":{}`}},
	}
	for _, c := range cases {
		check(t, c.name, a.json(http.MethodPost, "/api/v1/incidents/parse", c.body), c.status, c.want, nil)
	}

	big := `{"text": "` + strings.Repeat("a", 1<<20) + `"}`
	check(t, "too large", a.json(http.MethodPost, "/api/v1/incidents/parse", big), http.StatusRequestEntityTooLarge, nil, nil)

	check(t, "viewer", a.as(models.RoleViewer).json(http.MethodPost, "/api/v1/incidents/parse", `{"text": "x"}`), http.StatusForbidden, nil, nil)
	if r := a.anonymous().json(http.MethodPost, "/api/v1/incidents/parse", `{"text": "x"}`); r.status == http.StatusOK {
		t.Errorf("anonymous parse answered 200")
	}
}

// TestAPIIncidentParseRoundTrip posts the draft of seed 000 back to POST /api/v1/incidents,
// adding only what a person must choose (the severity, and each follow-up's kind and priority).
func TestAPIIncidentParseRoundTrip(t *testing.T) {
	a := newApp(t)
	body, _ := json.Marshal(map[string]string{"text": seedText(t, "000")})
	r := a.json(http.MethodPost, "/api/v1/incidents/parse", string(body))
	if r.status != http.StatusOK {
		t.Fatalf("parse: %d %s", r.status, r.body)
	}
	var parsed struct {
		Incident map[string]any `json:"incident"`
	}
	r.decode(t, &parsed)
	inc := parsed.Incident
	inc["severity"] = "sev2"
	for _, f := range inc["follow_ups"].([]any) {
		f.(map[string]any)["kind"], f.(map[string]any)["priority"], f.(map[string]any)["status"] = "prevent", "p2", "open"
	}
	r = a.json(http.MethodPost, "/api/v1/incidents", inc)
	check(t, "create", r, http.StatusCreated, []string{
		`"title":"Canada - Multiple Services - Degraded Performance"`,
		`"status":"resolved"`, `"detection_method":"customer_report"`,
		`"started_at":"2026-03-09T16:00:00Z"`, `"detected_at":"2026-03-12T16:54:00Z"`,
		`"mitigated_at":"2026-03-12T17:45:00Z"`, `"resolved_at":"2026-03-12T18:28:00Z"`,
		`"time_to_detect_seconds":262440`, // 72 h 54 min, DESIGN §2
		`"title":"Audit all regional gateway clusters"`,
	}, nil)
	var created struct {
		Timeline  []any `json:"timeline"`
		FollowUps []any `json:"follow_ups"`
	}
	r.decode(t, &created)
	if len(created.Timeline) != 7 || len(created.FollowUps) != 5 {
		t.Errorf("created %d timeline entries and %d follow-ups, want 7 and 5", len(created.Timeline), len(created.FollowUps))
	}
}

// TestAPIParsedDayOnlyTriggerRoundTrips reads seed 004's trigger ("On the 1st of April we
// deployed a change"), a date with no time of day: the draft names it in milestone_days, and
// posted back it is stored as known only to the day, its figures approximate.
func TestAPIParsedDayOnlyTriggerRoundTrips(t *testing.T) {
	a := newApp(t)
	body, _ := json.Marshal(map[string]string{"text": seedText(t, "004"), "time_zone": "Europe/London"})
	r := a.json(http.MethodPost, "/api/v1/incidents/parse", string(body))
	check(t, "parse", r, http.StatusOK, []string{`"triggered_at":"2022-03-31T23:00:00Z"`, `"milestone_days":["triggered_at"]`,
		`"triggered_at":"On the 1st of April we deployed a change`}, nil)
	var parsed struct {
		Incident map[string]any `json:"incident"`
	}
	r.decode(t, &parsed)
	inc := parsed.Incident
	inc["severity"], inc["status"] = "sev2", "resolved" // the seed has no status updates
	for _, f := range inc["follow_ups"].([]any) {
		f.(map[string]any)["kind"], f.(map[string]any)["priority"], f.(map[string]any)["status"] = "prevent", "p2", "open"
	}
	r = a.json(http.MethodPost, "/api/v1/incidents", inc)
	check(t, "create", r, http.StatusCreated, []string{`"triggered_at":"2022-03-31T23:00:00Z"`, `"milestone_days":["triggered_at"]`,
		`"approximate":["latent"`}, nil)
	var created struct {
		ID int64 `json:"id"`
	}
	r.decode(t, &created)
	stored, err := a.store.GetIncident(t.Context(), created.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !stored.DayOnly("triggered_at") || stored.DayOnly("started_at") {
		t.Errorf("day-only milestones stored: %q, want triggered_at", stored.MilestoneDays)
	}
	// Without milestone_days every milestone is exact, as before.
	delete(inc, "milestone_days")
	r = a.json(http.MethodPost, "/api/v1/incidents", inc)
	check(t, "create without", r, http.StatusCreated, []string{`"milestone_days":[]`}, nil)
	check(t, "a milestone that is not one", a.json(http.MethodPost, "/api/v1/incidents", map[string]any{
		"title": "x", "severity": "sev2", "status": "resolved", "time_zone": "UTC", "milestone_days": []string{"lunch"}}),
		http.StatusUnprocessableEntity, []string{`"field":"milestone_days`}, nil)
}
