package web_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"runtime"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
	"hindsight/web"
)

// Instants whose UTC year leaves 0001–9999 once their zone is applied were saved and could not be
// read back: the server then failed on every start. Each way in refuses them beside the field and
// writes nothing, on both databases.
func TestOutOfRangeTimesAreRefusedEverywhere(t *testing.T) {
	storetest.Each(t, func(t *testing.T, store *models.Store) {
		jar, _ := cookiejar.New(nil)
		a := (&app{t: t, e: web.New(web.Deps{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}), store: store, jar: jar}).as(models.RoleAdmin)
		path := a.createIncident(seed000Form())
		rows := func() int64 {
			db, err := store.SQLDB()
			if err != nil {
				t.Fatal(err)
			}
			var n int64
			if err := db.QueryRow(`SELECT (SELECT COUNT(*) FROM incidents) + (SELECT COUNT(*) FROM timeline_events) + (SELECT COUNT(*) FROM impact_windows) + (SELECT COUNT(*) FROM follow_ups)`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		before := rows()

		a.get(path)
		r := a.post(path+"/events", url.Values{"at": {"9999-12-31T23:59"}, "time_zone": {"Etc/GMT+12"}, "kind": {"note"}, "body": {"kept text"}})
		check(t, "timeline form", r, http.StatusUnprocessableEntity, []string{models.InstantMessage, "kept text"}, nil)
		a.get(path)
		r = a.post(path+"/windows", url.Values{"started_at": {"0001-01-01T05:00"}, "time_zone": {"Pacific/Kiritimati"}, "level": {"degraded"}})
		check(t, "window form", r, http.StatusUnprocessableEntity, []string{models.InstantMessage}, nil)
		a.get("/incidents/new")
		r = a.post("/incidents", with(seed000Form(), "resolved_at", "9999-12-31T23:00", "time_zone", "America/Los_Angeles"))
		check(t, "incident form", r, http.StatusUnprocessableEntity, []string{models.InstantMessage}, nil)

		for _, bad := range []string{"9999-12-31T23:59:59-12:00", "0000-01-01T00:00:00+14:00", "0001-01-01T00:00:00Z"} {
			body := `{"version": 1, "title": "T", "severity": "sev2", "status": "resolved", "resolved_at": "` + bad + `"}`
			check(t, "API milestone "+bad, a.json(http.MethodPut, "/api/v1"+path, body), http.StatusUnprocessableEntity, []string{`"field":"resolved_at"`, models.InstantMessage}, nil)
			body = `{"title": "T", "severity": "sev2", "status": "resolved", "timeline": [{"at": "` + bad + `", "kind": "note"}]}`
			check(t, "API timeline "+bad, a.json(http.MethodPost, "/api/v1/incidents", body), http.StatusUnprocessableEntity, []string{`"field":"timeline[0].at"`}, nil)
		}
		if after := rows(); after != before {
			t.Errorf("refused writes left rows behind: %d rows before, %d after", before, after)
		}
		// The edges themselves, a day inside, are kept and read back.
		body := `{"version": 1, "title": "Edges", "severity": "sev2", "status": "resolved", "triggered_at": "0001-01-02T00:00:00Z", "resolved_at": "9999-12-30T23:59:59Z"}`
		check(t, "API edges", a.json(http.MethodPut, "/api/v1"+path, body), http.StatusOK, []string{`"resolved_at":"9999-12-30T23:59:59Z"`, `"triggered_at":"0001-01-02T00:00:00Z"`}, nil)
		check(t, "page after edges", a.get(path), http.StatusOK, []string{"Edges"}, nil)
	})
}

// The store refuses such instants itself, whatever path a value takes past the input checks (an
// importer, the CLI, a future caller), with the field named, and writes nothing.
func TestStoreRefusesOutOfRangeInstants(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		inc, err := s.CreateIncident(ctx, models.IncidentInput{Title: "Fine", Severity: "sev3", Status: "resolved", TimeZone: "UTC", PostmortemState: "none"}, models.Children{})
		if err != nil {
			t.Fatal(err)
		}
		late := mustTime(t, "9999-12-31T23:59:59-12:00")
		_, err = s.CreateEvent(ctx, inc.ID, models.EventInput{At: late, Kind: "note", Body: "x"})
		var fe models.FieldErrors
		if !asFieldErrors(err, &fe) || fe.For("at") != models.InstantMessage {
			t.Errorf("CreateEvent(year 10000) = %v, want a field error on at", err)
		}
		_, err = s.CreateIncident(ctx, models.IncidentInput{Title: "Bad", Severity: "sev3", Status: "resolved", TimeZone: "UTC", PostmortemState: "none",
			Milestones: models.Milestones{ResolvedAt: &late}}, models.Children{Timeline: &[]models.EventInput{{At: late, Kind: "note"}}})
		if !asFieldErrors(err, &fe) || fe.For("resolved_at") != models.InstantMessage {
			t.Errorf("CreateIncident(year 10000) = %v, want a field error on resolved_at", err)
		}
		list, total, err := s.ListIncidents(ctx, models.IncidentFilter{})
		if err != nil || total != 1 || len(list) != 1 {
			t.Errorf("after refused writes: %d incidents (%v), want only the first", total, err)
		}
		got, err := s.GetIncident(ctx, inc.ID)
		if err != nil || len(got.Timeline) != 0 {
			t.Errorf("the refused event was written: %+v, %v", got, err)
		}
	})
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

func asFieldErrors(err error, fe *models.FieldErrors) bool { return errors.As(err, fe) }

// A record stored before input was checked (or written past the application) fails itself only:
// the background ranker passes over it instead of panicking on every start, and the status page,
// its feed and its API serve the other incidents.
func TestAnUnreadableRecordFailsOnlyItself(t *testing.T) {
	a := newApp(t)
	for _, title := range []string{"First outage", "Unreadable outage", "Third outage"} {
		body := `{"title": "` + title + `", "severity": "sev2", "status": "resolved", "public": true, "services": ["API"],
			"started_at": "2026-03-09T16:00:00Z", "resolved_at": "2026-03-09T18:00:00Z",
			"timeline": [{"at": "2026-03-09T16:30:00Z", "kind": "status_update", "status": "investigating", "body": "Looking", "public": true}]}`
		check(t, "create "+title, a.json(http.MethodPost, "/api/v1/incidents", body), http.StatusCreated, nil, nil)
	}
	db, err := a.store.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE incidents SET resolved_at = '10000-01-01 11:59:00+00:00' WHERE id = 2`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM similar_sets`); err != nil {
		t.Fatal(err)
	}

	public := a.anonymous()
	for _, path := range []string{"/status", "/status/feed.atom", "/status/api/v2/incidents.json", "/status/history"} {
		check(t, path, public.get(path), http.StatusOK, []string{"First outage", "Third outage"}, []string{"Unreadable outage"})
	}
	check(t, "summary", public.get("/status/api/v2/summary.json"), http.StatusOK, []string{`"indicator":"none"`}, nil)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	keeper := models.NewSimilarKeeper(a.store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	done := make(chan struct{})
	go func() { defer close(done); keeper.Run(ctx) }()
	// Backfill goes newest first: 3, then the unreadable 2, then 1, which must still be ranked.
	deadline := time.Now().Add(time.Minute)
	for {
		var ranked int
		if err := db.QueryRow(`SELECT COUNT(*) FROM similar_sets WHERE incident_id IN (1, 3)`).Scan(&ranked); err != nil {
			t.Fatal(err)
		}
		if ranked == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a minute %d of the two readable incidents were ranked", ranked)
		}
		runtime.Gosched()
	}
	cancel()
	<-done
}
