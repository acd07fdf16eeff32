package incidentdto_test

import (
	"strings"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/incidentdto"
)

// TestLayout: keys come out in the layout's order whatever the struct's, empty values are left
// out only where the layout says so, lists of records follow their own layout, and a key the
// layout does not know is an error rather than a silent loss.
func TestLayout(t *testing.T) {
	type item struct {
		B string `json:"b"`
		A int    `json:"a"`
	}
	type record struct {
		Z     string  `json:"z"`
		Y     *string `json:"y"`
		X     bool    `json:"x"`
		Items []item  `json:"items"`
		Gone  string  `json:"gone"`
	}
	items := incidentdto.NewLayout("a", "b,omitempty")
	layout := incidentdto.NewLayout("items", "x,omitempty", "y", "z,omitempty").Nest("items", items).Drop("gone")
	got, err := layout.Marshal(record{Items: []item{{B: "b", A: 1}, {A: 2}}, Gone: "dropped"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"items":[{"a":1,"b":"b"},{"a":2}],"y":null}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if _, err := incidentdto.NewLayout("z", "y", "x", "items").Marshal(record{}); err == nil || !strings.Contains(err.Error(), `"gone"`) {
		t.Errorf("a key with no place: err = %v", err)
	}
	if _, err := incidentdto.NewLayout("z", "y", "x", "items", "gone", "typo").Marshal(record{}); err == nil || !strings.Contains(err.Error(), `"typo"`) {
		t.Errorf("a key the type lacks: err = %v", err)
	}
	// A field of the outer struct hides the embedded one of the same name, as in encoding/json.
	type outer struct {
		record
		Z int `json:"z"`
	}
	got, err = layout.Marshal(outer{record: record{Z: "inner"}, Z: 7})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"items":null,"y":null,"z":7}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestModelRoundTrip: an incident turned into its shape and back is the incident it was, its
// records included, and the shape never holds a null list.
func TestModelRoundTrip(t *testing.T) {
	at := func(v string) *time.Time { x, _ := time.Parse(time.RFC3339, v); return &x }
	due := time.Date(2026, 4, 30, 0, 0, 0, 0, time.UTC)
	inc := &models.Incident{
		ID: 3, Title: "Slow uploads", Severity: "sev2", Status: "resolved", DetectionMethod: "customer_report",
		TimeZone: "Europe/London", StartedAt: at("2026-03-17T04:00:00Z"), MilestoneDays: "triggered_at,started_at",
		TriggeredAt: at("2026-03-16T00:00:00Z"), PostmortemState: "draft", Version: 4, TemplateSlug: "standard",
		CreatedAt: *at("2026-03-17T05:00:00Z"), UpdatedAt: *at("2026-03-18T05:00:00Z"),
		Timeline:      []models.TimelineEvent{{ID: 1, At: *at("2026-03-17T04:10:00Z"), Kind: "note", Body: "Paged."}},
		ImpactWindows: []models.ImpactWindow{{ID: 2, StartedAt: *at("2026-03-17T04:00:00Z"), Level: "degraded"}},
		FollowUps:     []models.FollowUp{{ID: 5, IncidentID: 3, Title: "Alert on latency", Kind: "detect", Priority: "p1", Status: "open", DueOn: &due, Version: 1}},
	}
	d := incidentdto.FromModel(inc, incidentdto.UTC)
	if d.Services == nil || d.Regions == nil || d.Factors == nil || d.Sections == nil || d.ImpactWindows[0].Services == nil || d.FollowUps[0].Factors == nil {
		t.Errorf("a null list: %+v", d)
	}
	if d.DetectionMethod == nil || *d.DetectionMethod != "customer_report" || *d.FollowUps[0].DueOn != "2026-04-30" || len(d.MilestoneDays) != 2 {
		t.Errorf("shape = %+v", d)
	}
	back := d.Model()
	if back.Title != inc.Title || back.DetectionMethod != inc.DetectionMethod || back.MilestoneDays != inc.MilestoneDays ||
		back.TemplateSlug != "standard" || !back.StartedAt.Equal(*inc.StartedAt) || back.Version != 4 ||
		len(back.Timeline) != 1 || back.Timeline[0].Body != "Paged." || len(back.ImpactWindows) != 1 ||
		len(back.FollowUps) != 1 || !back.FollowUps[0].DueOn.Equal(due) || back.FollowUps[0].IncidentID != 3 {
		t.Errorf("back = %+v", back)
	}
	if _, ok := incidentdto.ParseDate("30/04/2026"); ok {
		t.Error("30/04/2026 read as a date")
	}
}
