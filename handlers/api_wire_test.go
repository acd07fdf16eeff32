package handlers

import (
	"encoding/json"
	"testing"
	"time"

	"hindsight/models"
)

// TestAPIIncidentWritesAlike: an incident and a follow-up written through MarshalJSON and as the
// layout's value the handlers answer with are the same bytes.
func TestAPIIncidentWritesAlike(t *testing.T) {
	at := time.Date(2026, 3, 17, 4, 0, 0, 0, time.UTC)
	inc := &models.Incident{ID: 1, Title: "Slow uploads", Severity: "sev2", Status: "resolved", TimeZone: "UTC", StartedAt: &at,
		Timeline:  []models.TimelineEvent{{ID: 2, At: at, Kind: "note", Body: "Paged."}},
		FollowUps: []models.FollowUp{{ID: 3, IncidentID: 1, Title: "Alert on disk", Kind: "detect", Priority: "p1", Status: "open", DueOn: &at}}}
	out := apiIncident(inc, []models.LinkedIncident{{Kind: "related", OtherID: 4, Outgoing: true}})
	for name, pair := range map[string][2]any{"incident": {out, out.wire()}, "follow-up": {apiFollowUp(&inc.FollowUps[0]), apiFollowUp(&inc.FollowUps[0]).wire()}} {
		viaMethod, err := json.Marshal(pair[0])
		if err != nil {
			t.Fatal(err)
		}
		viaValue, err := json.Marshal(pair[1])
		if err != nil {
			t.Fatal(err)
		}
		if string(viaMethod) != string(viaValue) || string(viaValue[:7]) != `{"id":1` && string(viaValue[:7]) != `{"id":3` {
			t.Errorf("%s: MarshalJSON %s\nValue %s", name, viaMethod, viaValue)
		}
	}
}
