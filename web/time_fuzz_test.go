package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
)

// timeTarget is one form or API body that takes a time: send puts value (in zone, where the
// input takes one) where the time goes.
type timeTarget struct {
	name string
	send func(a *app, value, zone string) response
}

func jsonString(s string) string {
	raw, _ := json.Marshal(s)
	return string(raw)
}

var timeTargets = []timeTarget{
	{"incident form", func(a *app, v, z string) response {
		return a.post("/incidents", with(seed000Form(), "detected_at", v, "time_zone", z))
	}},
	{"incident edit form", func(a *app, v, z string) response {
		return a.post("/incidents/1/edit", with(seed000Form(), "resolved_at", v, "time_zone", z, "version", "1"))
	}},
	{"timeline form", func(a *app, v, z string) response {
		return a.post("/incidents/1/events", url.Values{"at": {v}, "time_zone": {z}, "kind": {"action"}, "body": {"fuzz"}})
	}},
	{"window form", func(a *app, v, z string) response {
		return a.post("/incidents/1/windows", url.Values{"started_at": {"2026-03-09T16:00"}, "ended_at": {v}, "time_zone": {z}, "level": {"degraded"}})
	}},
	{"follow-up form", func(a *app, v, z string) response {
		return a.post("/incidents/1/follow-ups", url.Values{"title": {"Fuzz"}, "kind": {"prevent"}, "priority": {"p2"}, "status": {"open"}, "due_on": {v}})
	}},
	{"API incident", func(a *app, v, z string) response {
		return a.json(http.MethodPost, "/api/v1/incidents", `{"title": "Fuzz", "severity": "sev3", "status": "resolved", "time_zone": `+jsonString(z)+`, "started_at": `+jsonString(v)+`}`)
	}},
	{"API timeline", func(a *app, v, z string) response {
		return a.json(http.MethodPost, "/api/v1/incidents", `{"title": "Fuzz", "severity": "sev3", "status": "resolved", "timeline": [{"kind": "note", "at": `+jsonString(v)+`}]}`)
	}},
	{"API window", func(a *app, v, z string) response {
		return a.json(http.MethodPost, "/api/v1/incidents", `{"title": "Fuzz", "severity": "sev3", "status": "resolved", "impact_windows": [{"level": "degraded", "started_at": "2026-03-09T16:00:00Z", "ended_at": `+jsonString(v)+`}]}`)
	}},
	{"API follow-up", func(a *app, v, z string) response {
		return a.json(http.MethodPost, "/api/v1/follow-ups", `{"incident_id": 1, "title": "Fuzz", "kind": "prevent", "priority": "p2", "status": "open", "due_on": `+jsonString(v)+`}`)
	}},
}

// rowCount is every row of the records a time can land in.
func rowCount(t *testing.T, a *app) int64 {
	db, err := a.store.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := db.QueryRow(`SELECT (SELECT COUNT(*) FROM incidents) + (SELECT COUNT(*) FROM timeline_events) + (SELECT COUNT(*) FROM impact_windows) + (SELECT COUNT(*) FROM follow_ups) + (SELECT COUNT(*) FROM audit_entries)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// FuzzTimeInputs sends any text as the time of every form and API body that takes one: never a
// 5xx, and a refused submission writes nothing.
func FuzzTimeInputs(f *testing.F) {
	for n, v := range []string{"9999-12-31T23:59", "0000-01-01T00:00:00+14:00", "9999-12-31T23:59:59-12:00", "2026-03-12T16:54",
		"2026-03-12T16:54:00Z", "2026-02-30", "10000-01-01", "-0001-01-01T00:00", "\x00", "2026-03-12T25:61", ""} {
		f.Add(n, v, []string{"UTC", "Etc/GMT+12", "Pacific/Kiritimati", "Europe/London", "Nowhere/City"}[n%5])
	}
	a := newServer(f).as("admin")
	a.createIncident(seed000Form())
	f.Fuzz(func(t *testing.T, target int, value, zone string) {
		if target < 0 {
			target = -target
		}
		tt := timeTargets[target%len(timeTargets)]
		client := *a
		client.t = t
		client.get("/incidents/1") // a fresh CSRF token
		before := rowCount(t, &client)
		r := tt.send(&client, value, zone)
		if r.status >= 500 {
			t.Fatalf("%s with %q in %q: %d: %.300s", tt.name, value, zone, r.status, r.body)
		}
		if r.status >= 400 {
			if after := rowCount(t, &client); after != before {
				t.Fatalf("%s with %q in %q was refused (%d) yet wrote %d rows", tt.name, value, zone, r.status, after-before)
			}
		}
	})
}
