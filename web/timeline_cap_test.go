package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"hindsight/models"
)

func timelineBody(entries int) string {
	var b strings.Builder
	b.WriteString(`{"title": "Long one", "severity": "sev3", "status": "resolved", "timeline": [`)
	for n := range entries {
		if n > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"at": "2026-03-09T%02d:%02d:00Z", "kind": "action", "body": "step %d"}`, n/60%24, n%60, n)
	}
	b.WriteString("]}")
	return b.String()
}

// 13,000 timeline entries in one request made a 7 MB incident page: an incident holds at most
// 2,000, and one more is refused with the reason, through the API and the form, writing nothing.
func TestTimelineIsCapped(t *testing.T) {
	a := newApp(t)
	check(t, "one over the cap", a.json(http.MethodPost, "/api/v1/incidents", timelineBody(models.MaxTimelineEvents+1)),
		http.StatusUnprocessableEntity, []string{`"field":"timeline"`, "at most 2000 timeline entries"}, nil)
	if _, total, err := a.store.ListIncidents(t.Context(), models.IncidentFilter{}); err != nil || total != 0 {
		t.Fatalf("the refused create left %d incidents (%v)", total, err)
	}
	check(t, "at the cap", a.json(http.MethodPost, "/api/v1/incidents", timelineBody(models.MaxTimelineEvents)), http.StatusCreated, nil, nil)
	a.get("/incidents/1")
	r := a.post("/incidents/1/events", url.Values{"at": {"2026-03-10T10:00"}, "time_zone": {"UTC"}, "kind": {"action"}, "body": {"The words I typed"}})
	check(t, "the form's one more", r, http.StatusUnprocessableEntity, []string{"at most 2000 timeline entries", "The words I typed"}, nil)
	body := `{"version": 1, "title": "Long one", "severity": "sev3", "status": "resolved", "timeline": ` + timelineBody(models.MaxTimelineEvents + 1)[strings.Index(timelineBody(1), "["):]
	check(t, "a replacing update over the cap", a.json(http.MethodPut, "/api/v1/incidents/1", body), http.StatusUnprocessableEntity, []string{`"field":"timeline"`}, nil)
	inc, err := a.store.GetIncident(t.Context(), 1)
	if err != nil || len(inc.Timeline) != models.MaxTimelineEvents {
		t.Errorf("after refusals the timeline has %d entries (%v), want %d", len(inc.Timeline), err, models.MaxTimelineEvents)
	}
}
