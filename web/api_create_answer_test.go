package web_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
)

// TestCreateAnswersWhatIsStored files incidents of every shape through the API and compares the
// POST's answer with a GET of the same incident: the create builds its answer from what it wrote
// instead of reading the incident back, and a field it forgot, or a tag out of order, fails here.
func TestCreateAnswersWhatIsStored(t *testing.T) {
	eachDB(t, testCreateAnswersWhatIsStored)
}

func testCreateAnswersWhatIsStored(t *testing.T, a *app) {
	bodies := map[string]map[string]any{
		"title alone": {"title": "Queue backlog", "severity": "sev3", "status": "investigating", "time_zone": "UTC"},
		"tags and milestones": {
			"title": "Checkout failing", "summary": "Card payments failed.", "severity": "sev2", "status": "monitoring",
			"time_zone": "Europe/London", "detection_method": "customer_report",
			"services": []string{"Payments", "Checkout", "checkout", " API ", "ßeta", "alpha"}, "regions": []string{"EU", "US"},
			"factors":    []string{"retry-amplification"},
			"started_at": "2026-03-12T16:00:00Z", "detected_at": "2026-03-12T16:05:00Z", "mitigated_at": "2026-03-12T17:00:00Z",
			"customer_impact": "Checkout failed for a third of customers.", "root_cause": "A retry storm.",
		},
		"a day-only trigger": {
			"title": "Config push", "severity": "sev3", "status": "resolved", "time_zone": "UTC",
			"triggered_at": "2026-04-01T00:00:00Z", "started_at": "2026-04-05T10:00:00Z", "resolved_at": "2026-04-05T11:00:00Z",
			"milestone_days": []string{"triggered_at"},
		},
		"nested records": {
			"title": "DNS outage", "severity": "sev1", "status": "resolved", "time_zone": "UTC", "services": []string{"DNS"},
			"started_at": "2026-05-01T08:00:00Z", "resolved_at": "2026-05-01T09:30:00Z",
			"timeline":       []map[string]any{{"at": "2026-05-01T08:10:00Z", "kind": "status_update", "status": "investigating", "body": "Looking into it.", "public": true}},
			"impact_windows": []map[string]any{{"started_at": "2026-05-01T08:00:00Z", "ended_at": "2026-05-01T09:00:00Z", "level": "major_outage", "services": []string{"DNS"}}},
			"follow_ups":     []map[string]any{{"title": "Alert on resolver errors", "kind": "detect", "priority": "p1", "status": "open", "factors": []string{"retry-amplification"}}},
			"sections":       []map[string]any{{"heading": "Timeline notes", "body": "Resolvers were slow."}},
		},
		"a link": {
			"title": "Checkout failing again", "severity": "sev2", "status": "investigating", "time_zone": "UTC",
			"links": []map[string]any{{"kind": "recurrence_of", "incident_id": 2}},
		},
	}
	for _, name := range []string{"title alone", "tags and milestones", "a day-only trigger", "nested records", "a link"} {
		created := a.json(http.MethodPost, "/api/v1/incidents", bodies[name])
		if created.status != http.StatusCreated {
			t.Fatalf("%s: create: %d %s", name, created.status, created.body)
		}
		answer := sameAsStored(t, a, name, created.body)
		if name == "tags and milestones" {
			// An edit answers from what it read and wrote, too.
			edit := bodies[name]
			edit["version"], edit["title"], edit["services"] = answer["version"], "Checkout failing in the EU", []string{"Cards", "Checkout"}
			edit["started_at"] = "2026-03-12T15:58:00.25Z"
			edited := a.json(http.MethodPut, "/api/v1/incidents/"+jsonID(t, answer), edit)
			if edited.status != http.StatusOK {
				t.Fatalf("edit: %d %s", edited.status, edited.body)
			}
			sameAsStored(t, a, "the edit", edited.body)
		}
	}
}

// sameAsStored compares a write's answer with a GET of the incident it names, field by field.
func sameAsStored(t *testing.T, a *app, name, body string) map[string]any {
	t.Helper()
	var answer map[string]any
	if err := json.Unmarshal([]byte(body), &answer); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	stored := a.get("/api/v1/incidents/" + jsonID(t, answer))
	if stored.status != http.StatusOK {
		t.Fatalf("%s: get: %d %s", name, stored.status, stored.body)
	}
	var read map[string]any
	if err := json.Unmarshal([]byte(stored.body), &read); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for key := range read {
		if !reflect.DeepEqual(answer[key], read[key]) {
			t.Errorf("%s: the write answered %s = %v, a read finds %v", name, key, answer[key], read[key])
		}
	}
	if len(answer) != len(read) {
		t.Errorf("%s: the write answered %d fields, a read %d", name, len(answer), len(read))
	}
	return answer
}

func jsonID(t *testing.T, incident map[string]any) string {
	t.Helper()
	id, ok := incident["id"].(float64)
	if !ok || id <= 0 {
		t.Fatalf("no id in %v", incident)
	}
	return itoa(int64(id))
}
