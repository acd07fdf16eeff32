package statuspage_test

import (
	"encoding/json"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/statuspage"
)

// TestMaintenanceGolden pins a scheduled maintenance as the status page's API writes it: an
// incident's keys in Statuspage's order, without the incident's reminder intervals or
// postmortem, then the schedule.
func TestMaintenanceGolden(t *testing.T) {
	at := func(v string) time.Time { x, _ := time.Parse(time.RFC3339Nano, v); return x }
	m := &models.Maintenance{
		ID: 4, Title: "Database failover drill", Status: models.MaintenanceVerifying,
		ScheduledFor: at("2026-02-03T10:00:00Z"), ScheduledUntil: at("2026-02-03T12:00:00Z"),
		CreatedAt: at("2026-02-01T09:00:00.123456Z"), UpdatedAt: at("2026-02-03T11:30:00Z"),
		Updates: []models.MaintenanceUpdate{
			{ID: 7, Status: models.MaintenanceInProgress, Body: "The drill has begun.", At: at("2026-02-03T10:01:00Z"), CreatedAt: at("2026-02-03T10:01:00Z"), UpdatedAt: at("2026-02-03T10:01:00Z")},
			{ID: 8, Status: models.MaintenanceVerifying, Body: "Checking replicas.", At: at("2026-02-03T11:30:00Z"), CreatedAt: at("2026-02-03T11:30:00Z"), UpdatedAt: at("2026-02-03T11:30:00Z")},
		},
	}
	page := statuspage.Page{ID: statuspage.PageID, Name: "Acme status", URL: "https://status.example.com"}
	got, err := json.Marshal(statuspage.ExportMaintenance(m, nil, page, at("2026-02-03T11:45:00Z")))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"4","name":"Database failover drill","status":"verifying","created_at":"2026-02-01T09:00:00.123Z",` +
		`"updated_at":"2026-02-03T11:30:00.000Z","monitoring_at":"2026-02-03T11:30:00.000Z","resolved_at":null,` +
		`"impact":"maintenance","shortlink":"https://status.example.com#maintenance-4","started_at":"2026-02-03T10:01:00.000Z",` +
		`"page_id":"hindsight","incident_updates":[` +
		`{"id":"8","status":"verifying","body":"Checking replicas.","incident_id":"4","created_at":"2026-02-03T11:30:00.000Z",` +
		`"updated_at":"2026-02-03T11:30:00.000Z","display_at":"2026-02-03T11:30:00.000Z","affected_components":[],` +
		`"deliver_notifications":false,"custom_tweet":null,"tweet_id":null},` +
		`{"id":"7","status":"in_progress","body":"The drill has begun.","incident_id":"4","created_at":"2026-02-03T10:01:00.000Z",` +
		`"updated_at":"2026-02-03T10:01:00.000Z","display_at":"2026-02-03T10:01:00.000Z","affected_components":[],` +
		`"deliver_notifications":false,"custom_tweet":null,"tweet_id":null}],` +
		`"components":[],"scheduled_for":"2026-02-03T10:00:00.000Z","scheduled_until":"2026-02-03T12:00:00.000Z"}`
	if string(got) != want {
		t.Errorf("maintenance:\n got %s\nwant %s", got, want)
	}
}
