package models_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/mdexport"
	"hindsight/models/storetest"
)

func TestDurationWords(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{72*time.Hour + 54*time.Minute, "3 days 54 minutes"},
		{3*time.Hour + 54*time.Minute, "3 hours 54 minutes"},
		{32*time.Hour + 30*time.Minute, "1 day 8 hours 30 minutes"},
		{51 * time.Minute, "51 minutes"},
		{12*time.Minute + 31*time.Second, "12 minutes 31 seconds"},
		{time.Hour + 30*time.Second, "1 hour"},
		{45 * time.Second, "45 seconds"},
		{0, "0 seconds"},
		{-20 * time.Minute, "minus 20 minutes"},
	} {
		if got := models.DurationWords(tc.d); got != tc.want {
			t.Errorf("DurationWords(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestLineDiff(t *testing.T) {
	old := "# Title\n\nOne\nTwo\nThree\n"
	new := "# Title\n\nOne\n2\nThree\nFour\n"
	var got []string
	for _, l := range models.LineDiff(old, new) {
		got = append(got, string(l.Op)+l.Text)
	}
	want := []string{" # Title", " ", " One", "-Two", "+2", " Three", "+Four"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("diff = %q, want %q", got, want)
	}
	if models.DiffChanged(models.LineDiff(old, old)) {
		t.Error("a text differs from itself")
	}
}

// TestPublishing proves that publishing records the public subset as it stands, that later edits
// do not change what was recorded, that publishing again records a new version only when the text
// changed, and that a stale version is refused.
func TestPublishing(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := models.WithActor(context.Background(), models.Actor{Label: "tester"})
		in := seed000(t)
		in.PostmortemState, in.Public = "draft", true
		in.Summary, in.RootCause, in.Trigger, in.Lessons = "Slow in Canada.", "Cold caches.", "internal trigger", "internal lessons"
		events := []models.EventInput{
			{At: *at(t, "UTC", "2026-03-12 16:39"), Kind: "status_update", Status: "investigating", Body: "Looking.", Public: true},
			{At: *at(t, "UTC", "2026-03-12 16:40"), Kind: "note", Body: "internal note"},
		}
		windows := []models.WindowInput{{StartedAt: *at(t, "UTC", "2026-03-09 16:00"), Level: "degraded", Note: "internal window note"}}
		followUps := []models.FollowUpInput{
			{Title: "Warm caches", Description: "internal description", Kind: "prevent", Priority: "p1", Status: "open", Owner: "internal owner"},
			{Title: "Dropped idea", Kind: "process", Priority: "p3", Status: "wont_do"},
		}
		inc, err := s.CreateIncident(ctx, in, models.Children{Timeline: &events, ImpactWindows: &windows, FollowUps: &followUps})
		if err != nil {
			t.Fatal(err)
		}
		if versions, _ := s.PostmortemVersions(ctx, inc.ID); len(versions) != 0 {
			t.Fatalf("a draft has %d published versions", len(versions))
		}
		if _, err := s.SetPostmortemState(ctx, inc.ID, inc.Version+1, models.PostmortemPublished); !errors.Is(err, models.ErrConflict) {
			t.Fatalf("publishing an unseen version: %v, want ErrConflict", err)
		}
		if _, err := s.SetPostmortemState(ctx, inc.ID, inc.Version, "shipped"); !errors.Is(err, models.ErrInvalidState) {
			t.Fatalf("an unknown state: %v", err)
		}
		version, err := s.SetPostmortemState(ctx, inc.ID, inc.Version, models.PostmortemPublished)
		if err != nil {
			t.Fatal(err)
		}
		versions, err := s.PostmortemVersions(ctx, inc.ID)
		if err != nil || len(versions) != 1 || versions[0].Version != 1 || versions[0].PublishedBy != "tester" {
			t.Fatalf("versions after publishing: %+v, %v", versions, err)
		}
		public, err := versions[0].Public()
		if err != nil {
			t.Fatal(err)
		}
		if public.RootCause != "Cold caches." || len(public.FollowUps) != 1 || public.FollowUps[0].Title != "Warm caches" ||
			len(public.ImpactWindows) != 1 || public.FirstPublicUpdate == nil {
			t.Errorf("public version = %+v", public)
		}
		for _, secret := range []string{"internal trigger", "internal lessons", "internal note", "internal window note", "internal description", "internal owner", "Dropped idea"} {
			if strings.Contains(versions[0].Body, secret) {
				t.Errorf("the public version holds %q", secret)
			}
		}
		md := mdexport.Published(public, time.UTC)
		for _, want := range []string{"## Customer Impact", "## Root Cause", "## Detection", "## Response", "## Follow-up", "Detected 3 days 54 minutes after impact began."} {
			if !strings.Contains(md, want) {
				t.Errorf("published Markdown lacks %q:\n%s", want, md)
			}
		}

		// Publishing again without a change records nothing new.
		if again, err := s.SetPostmortemState(ctx, inc.ID, version, models.PostmortemPublished); err != nil || again != version {
			t.Fatalf("publishing unchanged text: version %d, %v", again, err)
		}
		// An edit changes the live text, not the published version.
		current, err := s.GetIncident(ctx, inc.ID)
		if err != nil {
			t.Fatal(err)
		}
		edit := in
		edit.PostmortemState, edit.RootCause = models.PostmortemPublished, "Cold caches, and too little headroom."
		if _, err := s.UpdateIncident(ctx, inc.ID, current.Version, edit, models.Children{}); err != nil {
			t.Fatal(err)
		}
		if versions, _ := s.PostmortemVersions(ctx, inc.ID); len(versions) != 1 {
			t.Fatalf("an edit of a published postmortem recorded a version: %d", len(versions))
		}
		current, _ = s.GetIncident(ctx, inc.ID)
		if _, err := s.SetPostmortemState(ctx, inc.ID, current.Version, models.PostmortemPublished); err != nil {
			t.Fatal(err)
		}
		versions, _ = s.PostmortemVersions(ctx, inc.ID)
		latest, _ := s.LatestPostmortems(ctx, []int64{inc.ID})
		if len(versions) != 2 || versions[0].Version != 2 || latest[inc.ID] == nil || latest[inc.ID].Version != 2 {
			t.Fatalf("re-publish: versions %+v, latest %+v", versions, latest)
		}

		// Publishing through the form or the API records a version too.
		other := seed000(t)
		other.Title = "Published on creation"
		created, err := s.CreateIncident(ctx, other, models.Children{})
		if err != nil {
			t.Fatal(err)
		}
		if versions, _ := s.PostmortemVersions(ctx, created.ID); len(versions) != 1 {
			t.Errorf("an incident created published has %d versions", len(versions))
		}
	})
}

func TestStatusSettings(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		got, err := s.StatusSettings(ctx)
		if err != nil || got != models.DefaultStatusSettings {
			t.Fatalf("defaults: %+v, %v", got, err)
		}
		before, _ := s.ChangeMark(ctx)
		var fe models.FieldErrors
		if err := s.SaveStatusSettings(ctx, models.StatusSettings{Name: "Acme", TimeZone: "Mars/Olympus"}); !errors.As(err, &fe) || fe.For("time_zone") == "" {
			t.Fatalf("an unknown zone: %v", err)
		}
		if err := s.SaveStatusSettings(ctx, models.StatusSettings{Name: " Acme status ", TimeZone: "Europe/London"}); err != nil {
			t.Fatal(err)
		}
		got, _ = s.StatusSettings(ctx)
		if got.Name != "Acme status" || got.TimeZone != "Europe/London" {
			t.Errorf("saved settings = %+v", got)
		}
		if after, _ := s.ChangeMark(ctx); after <= before {
			t.Errorf("saving settings left the change mark at %d", after)
		}
	})
}

// TestPublicIncidentsPlan proves the status page's list is served by its index, in order.
func TestPublicIncidentsPlan(t *testing.T) {
	db, err := storetest.SQLite(t).SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`EXPLAIN QUERY PLAN SELECT id FROM incidents WHERE public AND incidents.deleted_at IS NULL ORDER BY started_at DESC, id DESC LIMIT 50`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan strings.Builder
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(detail + "\n")
	}
	if !strings.Contains(plan.String(), "incidents_public_started_idx") || strings.Contains(plan.String(), "TEMP B-TREE") {
		t.Errorf("the public list is not served in index order:\n%s", plan.String())
	}
}
