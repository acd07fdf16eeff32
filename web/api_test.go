package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

const seed002JSON = `{
  "title": "US document processing failures",
  "severity": "sev2",
  "status": "resolved",
  "detection_method": "automated_alert",
  "services": ["Document Understanding", "Authorization Service"],
  "regions": ["US"],
  "started_at": "2026-03-17T04:00:00Z",
  "detected_at": "2026-03-17T07:54:00Z",
  "acknowledged_at": "2026-03-17T02:57:00-05:00",
  "mitigated_at": "2026-03-17T10:24:00Z",
  "resolved_at": "2026-03-17T10:52:00Z",
  "root_cause": "Permission checks queued behind one stuck server.",
  "timeline": [
    {"at": "2026-03-17T07:57:00Z", "kind": "action", "body": "Scope confirmed"},
    {"at": "2026-03-17T08:10:00Z", "kind": "status_update", "status": "investigating", "body": "We are looking into errors.", "public": true}
  ],
  "impact_windows": [
    {"started_at": "2026-03-17T04:00:00Z", "ended_at": "2026-03-17T04:30:00Z", "level": "degraded"},
    {"started_at": "2026-03-17T07:00:00Z", "ended_at": "2026-03-17T08:00:00Z", "level": "partial_outage"},
    {"started_at": "2026-03-17T07:30:00Z", "level": "partial_outage", "services": ["Document Understanding"]}
  ],
  "follow_ups": [
    {"title": "Rate limits at the routing layer", "kind": "prevent", "priority": "p1", "status": "open", "due_on": "2026-04-30"}
  ]
}`

func TestAPIIncidentLifecycle(t *testing.T) {
	a := newApp(t)
	r := a.json(http.MethodPost, "/api/v1/incidents", seed002JSON)
	check(t, "create", r, http.StatusCreated, []string{
		`"id":1`, `"version":1`,
		`"time_to_detect_seconds":14040`,      // 3 h 54 min
		`"time_to_acknowledge_seconds":14220`, // offset -05:00 read correctly: 07:57Z
		`"time_to_mitigate_seconds":23040`,
		`"time_to_resolve_seconds":24720`,
		`"latent_seconds":null`,
		`"time_to_first_public_update_seconds":15000`,
		`"impact_seconds":14040`, // 30 min (04:00–04:30) plus 3 h 24 min (07:00–10:24: the open window runs to mitigation)
		`"invalid":[]`,
		`"acknowledged_at":"2026-03-17T07:57:00Z"`,
		`"due_on":"2026-04-30"`,
		`"services":["Authorization Service","Document Understanding"]`,
	}, nil)
	if loc := r.header.Get("Location"); loc != "/api/v1/incidents/1" {
		t.Errorf("Location = %q", loc)
	}
	var created struct {
		Version  int `json:"version"`
		Timeline []struct {
			Kind string `json:"kind"`
		} `json:"timeline"`
	}
	r.decode(t, &created)
	if len(created.Timeline) != 2 || created.Timeline[0].Kind != "action" {
		t.Errorf("timeline = %+v", created.Timeline)
	}

	check(t, "get", a.json(http.MethodGet, "/api/v1/incidents/1", nil), 200, []string{`"title":"US document processing failures"`}, nil)
	check(t, "page shows the same figure", a.get("/incidents/1"), 200, []string{"3 h 54 min"}, nil)

	update := strings.Replace(seed002JSON, `"title": "US document processing failures"`, `"version": 1, "title": "Renamed"`, 1)
	update = strings.Replace(update, `"timeline": [`, `"timeline_ignored": [`, 1)
	check(t, "update", a.json(http.MethodPut, "/api/v1/incidents/1", update), 200, []string{`"version":2`, `"title":"Renamed"`, `"kind":"action"`}, nil)
	check(t, "stale update", a.json(http.MethodPut, "/api/v1/incidents/1", update), http.StatusConflict, []string{`"error":"This incident was changed by someone else`}, nil)
	check(t, "update missing", a.json(http.MethodPut, "/api/v1/incidents/42", seed002JSON), 404, []string{`"error"`}, nil)

	for n := 0; n < 3; n++ {
		a.json(http.MethodPost, "/api/v1/incidents", strings.Replace(seed002JSON, "2026-03-17T04:00:00Z", fmt.Sprintf("2026-03-1%dT04:00:00Z", n), 1))
	}
	check(t, "list paginated", a.json(http.MethodGet, "/api/v1/incidents?limit=2&offset=1", nil), 200, []string{`"total":4`, `"limit":2`, `"offset":1`}, nil)
	var list struct {
		Incidents []struct {
			ID      int64          `json:"id"`
			Metrics map[string]any `json:"metrics"`
		} `json:"incidents"`
		Total int `json:"total"`
	}
	a.json(http.MethodGet, "/api/v1/incidents?limit=500", nil).decode(t, &list)
	if len(list.Incidents) != 4 || list.Incidents[0].ID != 1 || list.Incidents[0].Metrics["impact_seconds"] == nil {
		t.Errorf("list = %+v", list)
	}

	check(t, "delete", a.json(http.MethodDelete, "/api/v1/incidents/1", nil), http.StatusNoContent, nil, nil)
	check(t, "deleted", a.json(http.MethodGet, "/api/v1/incidents/1", nil), 404, []string{`"error":"There is no such incident."`}, nil)
	check(t, "delete again", a.json(http.MethodDelete, "/api/v1/incidents/1", nil), 404, nil, nil)
}

func TestAPIBadInput(t *testing.T) {
	a := newApp(t)
	cases := []struct {
		name   string
		method string
		path   string
		body   string
		status int
		want   []string
	}{
		{"malformed JSON", "POST", "/api/v1/incidents", `{"title":`, 400, []string{`"error":"The request body is not valid JSON`}},
		{"empty body", "POST", "/api/v1/incidents", ``, 400, []string{`"error":"The request body is empty`}},
		{"wrong type", "POST", "/api/v1/incidents", `{"title": 5}`, 422, []string{`{"field":"title","message":"Expected string, got a JSON number."}`}},
		{"missing fields", "POST", "/api/v1/incidents", `{}`, 422, []string{`{"field":"title","message":"This field is required."}`, `{"field":"severity"`, `{"field":"status"`}},
		{"title over 200", "POST", "/api/v1/incidents", `{"title":"` + strings.Repeat("t", 201) + `","severity":"sev1","status":"resolved"}`, 422, []string{`{"field":"title","message":"Must be at most 200 characters."}`}},
		{"unknown enum", "POST", "/api/v1/incidents", `{"title":"t","severity":"sev0","status":"fixed","detection_method":"magic"}`, 422, []string{`"field":"severity"`, `"field":"status"`, `"field":"detection_method"`}},
		{"malformed date", "POST", "/api/v1/incidents", `{"title":"t","severity":"sev1","status":"resolved","started_at":"2026-03-09 16:00"}`, 422, []string{`{"field":"started_at","message":"Not an RFC 3339 time`}},
		{"unknown zone", "POST", "/api/v1/incidents", `{"title":"t","severity":"sev1","status":"resolved","time_zone":"Mars/Base"}`, 422, []string{`"field":"time_zone"`}},
		{"nested errors name their path", "POST", "/api/v1/incidents", `{"title":"t","severity":"sev1","status":"resolved","timeline":[{"at":"x","kind":"gossip"}],"impact_windows":[{"level":"total"}],"follow_ups":[{"title":"","kind":"prevent","priority":"p9","status":"open","tracker_url":"javascript:alert(1)","due_on":"May"}]}`, 422, []string{`"field":"timeline[0].at"`, `"field":"timeline[0].kind"`, `"field":"impact_windows[0].started_at"`, `"field":"impact_windows[0].level"`, `"field":"follow_ups[0].title"`, `"field":"follow_ups[0].priority"`, `"field":"follow_ups[0].tracker_url"`, `"field":"follow_ups[0].due_on"`}},
		{"limit too high", "GET", "/api/v1/incidents?limit=501", ``, 422, []string{`"field":"limit"`}},
		{"negative offset", "GET", "/api/v1/incidents?offset=-1", ``, 422, []string{`"field":"offset"`}},
		{"unknown filter value", "GET", "/api/v1/incidents?severity=sev0", ``, 422, []string{`"field":"severity"`}},
		{"unknown id", "GET", "/api/v1/incidents/77", ``, 404, []string{`"error":"There is no such incident."`}},
		{"non-numeric id", "GET", "/api/v1/incidents/seven", ``, 404, []string{`"error"`}},
		{"unknown route", "GET", "/api/v1/nothing", ``, 404, []string{`"error"`}},
		{"wrong method", "PATCH", "/api/v1/incidents", `{}`, 405, []string{`"error"`}},
	}
	for _, tc := range cases {
		var body any
		if tc.body != "" {
			body = tc.body
		}
		r := a.json(tc.method, tc.path, body)
		check(t, tc.name, r, tc.status, tc.want, nil)
		if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("%s: Content-Type %q", tc.name, ct)
		}
	}
	check(t, "nothing half-written", a.json(http.MethodGet, "/api/v1/incidents", nil), 200, []string{`"total":0`}, nil)
}
