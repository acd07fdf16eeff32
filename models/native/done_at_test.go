package native_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/native"
	"hindsight/models/storetest"
)

// TestEnteredDoneDateRoundTrips: a done date entered for a follow-up (a 2022 fix recorded
// today) is exported and restored as entered, not as the day of the restore.
func TestEnteredDoneDateRoundTrips(t *testing.T) {
	ctx := context.Background()
	s := storetest.SQLite(t)
	started := time.Date(2021, 6, 1, 10, 0, 0, 0, time.UTC)
	inc, err := s.CreateIncident(ctx, models.IncidentInput{Title: "Cold caches", Severity: "sev2", Status: "resolved",
		TimeZone: "UTC", PostmortemState: "none", Milestones: models.Milestones{StartedAt: &started}}, models.Children{})
	if err != nil {
		t.Fatal(err)
	}
	done := time.Date(2022, 3, 1, 10, 0, 0, 0, time.UTC)
	if _, err := s.CreateFollowUp(ctx, inc.ID, models.FollowUpInput{Title: "Warm caches", Kind: "prevent", Priority: "p1", Status: "done", DoneAt: &done}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := native.Export(ctx, s, &buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes(), []byte(`"done_at": "2022-03-01T10:00:00Z"`)) {
		t.Fatalf("export lacks the entered done date:\n%s", buf.Bytes())
	}
	target := storetest.SQLite(t)
	if _, err := native.Import(ctx, target, bytes.NewReader(buf.Bytes()), "backup.json"); err != nil {
		t.Fatal(err)
	}
	got, err := target.GetIncident(ctx, inc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.FollowUps) != 1 || got.FollowUps[0].DoneAt == nil || !got.FollowUps[0].DoneAt.Equal(done) {
		t.Errorf("restored follow-ups: %+v", got.FollowUps)
	}
}
