package models_test

import (
	"context"
	"io/fs"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"hindsight/migrations"
	"hindsight/models"
	"hindsight/models/storetest"
)

func utcAt(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func utcAtp(s string) *time.Time {
	t := utcAt(s)
	return &t
}

func svc(names ...string) []models.Service {
	out := make([]models.Service, len(names))
	for n, name := range names {
		out[n] = models.Service{ID: int64(n + 1), Name: name}
	}
	return out
}

// TestComponentStatuses: a component's status is the worst open impact window on its services
// (mapped to Statuspage's words), under maintenance while maintenance covering it (or its group)
// is under way, and a group's is its worst member's.
func TestComponentStatuses(t *testing.T) {
	now := utcAt("2026-03-10T12:00:00Z")
	group := int64(10)
	components := []models.Component{
		{ID: 1, Name: "API", Services: svc("Gateway", "Router")},
		{ID: 2, Name: "Web", Services: svc("Web")},
		{ID: 3, Name: "Database", Services: svc("Postgres"), GroupID: &group},
		{ID: 4, Name: "Queue", Services: svc("Queue"), GroupID: &group},
		{ID: 5, Name: "Nothing", Services: nil},
		{ID: 10, Name: "Backend", IsGroup: true},
	}
	window := func(level, from string, to *time.Time, services ...string) models.ImpactWindow {
		return models.ImpactWindow{StartedAt: utcAt(from), EndedAt: to, Level: level, Services: svc(services...)}
	}
	maint := func(status, from, until string, ids ...int64) models.Maintenance {
		m := models.Maintenance{Status: status, ScheduledFor: utcAt(from), ScheduledUntil: utcAt(until)}
		for _, id := range ids {
			m.Components = append(m.Components, models.Component{ID: id})
		}
		return m
	}
	for _, tc := range []struct {
		name         string
		windows      []models.ImpactWindow
		incidentSvcs []string
		maintenances []models.Maintenance
		want         map[int64]string
	}{
		{"nothing open", nil, nil, nil,
			map[int64]string{1: "operational", 2: "operational", 3: "operational", 4: "operational", 5: "operational", 10: "operational"}},
		{"degraded", []models.ImpactWindow{window("degraded", "2026-03-10T11:00:00Z", nil, "Router")}, nil, nil,
			map[int64]string{1: "degraded_performance", 2: "operational"}},
		{"partial", []models.ImpactWindow{window("partial_outage", "2026-03-10T11:00:00Z", nil, "Gateway")}, nil, nil,
			map[int64]string{1: "partial_outage"}},
		{"worst of two windows", []models.ImpactWindow{
			window("degraded", "2026-03-10T11:00:00Z", nil, "Gateway"), window("major_outage", "2026-03-10T11:30:00Z", nil, "Router"),
		}, nil, nil, map[int64]string{1: "major_outage"}},
		{"ended window counts no more", []models.ImpactWindow{window("major_outage", "2026-03-10T10:00:00Z", utcAtp("2026-03-10T11:00:00Z"), "Gateway")}, nil, nil,
			map[int64]string{1: "operational"}},
		{"window not begun", []models.ImpactWindow{window("major_outage", "2026-03-10T13:00:00Z", nil, "Gateway")}, nil, nil,
			map[int64]string{1: "operational"}},
		{"window naming no service covers its incident's", []models.ImpactWindow{window("partial_outage", "2026-03-10T11:00:00Z", nil)}, []string{"Web"}, nil,
			map[int64]string{1: "operational", 2: "partial_outage"}},
		{"group takes its worst member", []models.ImpactWindow{
			window("degraded", "2026-03-10T11:00:00Z", nil, "Postgres"), window("major_outage", "2026-03-10T11:00:00Z", nil, "Queue"),
		}, nil, nil, map[int64]string{3: "degraded_performance", 4: "major_outage", 10: "major_outage"}},
		{"maintenance in progress wins", []models.ImpactWindow{window("degraded", "2026-03-10T11:00:00Z", nil, "Web")}, nil,
			[]models.Maintenance{maint("in_progress", "2026-03-10T11:00:00Z", "2026-03-10T13:00:00Z", 2)},
			map[int64]string{2: "under_maintenance", 1: "operational"}},
		{"scheduled maintenance whose start has come", nil, nil,
			[]models.Maintenance{maint("scheduled", "2026-03-10T11:00:00Z", "2026-03-10T13:00:00Z", 1)}, map[int64]string{1: "under_maintenance"}},
		{"verifying is still under way", nil, nil,
			[]models.Maintenance{maint("verifying", "2026-03-10T11:00:00Z", "2026-03-10T13:00:00Z", 1)}, map[int64]string{1: "under_maintenance"}},
		{"maintenance to come", nil, nil,
			[]models.Maintenance{maint("scheduled", "2026-03-10T13:00:00Z", "2026-03-10T14:00:00Z", 1)}, map[int64]string{1: "operational"}},
		{"maintenance completed early", nil, nil,
			[]models.Maintenance{maint("completed", "2026-03-10T11:00:00Z", "2026-03-10T13:00:00Z", 1)}, map[int64]string{1: "operational"}},
		{"maintenance past its end", nil, nil,
			[]models.Maintenance{maint("in_progress", "2026-03-10T09:00:00Z", "2026-03-10T11:00:00Z", 1)}, map[int64]string{1: "operational"}},
		{"maintenance on a group covers its members", nil, nil,
			[]models.Maintenance{maint("in_progress", "2026-03-10T11:00:00Z", "2026-03-10T13:00:00Z", 10)},
			map[int64]string{3: "under_maintenance", 4: "under_maintenance", 10: "under_maintenance", 1: "operational"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inc := models.Incident{ID: 1, Services: svc(tc.incidentSvcs...), ImpactWindows: tc.windows}
			got := models.ComponentStatuses(components, []models.Incident{inc}, tc.maintenances, now)
			for id, want := range tc.want {
				if got[id] != want {
					t.Errorf("component %d: %q, want %q (all: %v)", id, got[id], want, got)
				}
			}
		})
	}
}

// TestComponentUptime works out the bars of a known set of windows: per day the worst level and
// the minutes at each level, overlaps counted once at the worst level, a window left open counted
// up to now, days before the start date without data, and Statuspage's weighting in the
// percentage (a major outage in full, a partial outage at 30%, degraded not at all).
func TestComponentUptime(t *testing.T) {
	now := utcAt("2026-03-10T12:00:00Z")
	start := "2026-03-01"
	c := models.Component{ID: 1, Name: "API", Services: svc("Gateway"), StartDate: &start}
	incidents := []models.Incident{
		{ID: 7, Title: "Gateway down", Services: svc("Gateway"), ImpactWindows: []models.ImpactWindow{
			// 8 March: 60 minutes of major outage, inside 120 of degraded that overlap it.
			{StartedAt: utcAt("2026-03-08T10:00:00Z"), EndedAt: utcAtp("2026-03-08T12:00:00Z"), Level: "degraded", Services: svc("Gateway")},
			{StartedAt: utcAt("2026-03-08T10:30:00Z"), EndedAt: utcAtp("2026-03-08T11:30:00Z"), Level: "major_outage", Services: svc("Gateway")},
		}},
		// Across midnight of 8–9 March: 23:00–01:00, partial outage; no window end, so it ends when
		// the incident was mitigated.
		{ID: 8, Title: "Slow nights", Services: svc("Gateway"), MitigatedAt: utcAtp("2026-03-09T01:00:00Z"), ImpactWindows: []models.ImpactWindow{
			{StartedAt: utcAt("2026-03-08T23:00:00Z"), Level: "partial_outage"},
		}},
		// Still open: from 11:00 today, counted up to now (60 minutes).
		{ID: 9, Title: "Ongoing", ImpactWindows: []models.ImpactWindow{
			{StartedAt: utcAt("2026-03-10T11:00:00Z"), Level: "major_outage", Services: svc("Gateway")},
		}},
		// Another service's window does not count.
		{ID: 10, Title: "Elsewhere", ImpactWindows: []models.ImpactWindow{
			{StartedAt: utcAt("2026-03-05T00:00:00Z"), EndedAt: utcAtp("2026-03-05T12:00:00Z"), Level: "major_outage", Services: svc("Web")},
		}},
	}
	u := models.ComponentUptime(c, incidents, now, time.UTC, 90)
	if len(u.Days) != 90 || !u.Days[89].Date.Equal(utcAt("2026-03-10T00:00:00Z")) || !u.Days[0].Date.Equal(utcAt("2025-12-11T00:00:00Z")) {
		t.Fatalf("days from %v to %v (%d)", u.Days[0].Date, u.Days[len(u.Days)-1].Date, len(u.Days))
	}
	day := func(date string) models.UptimeDay {
		for _, d := range u.Days {
			if d.Date.Format("2006-01-02") == date {
				return d
			}
		}
		t.Fatalf("no day %s", date)
		return models.UptimeDay{}
	}
	if d := day("2026-02-28"); !d.NoData {
		t.Errorf("28 Feb, before the start date: %+v", d)
	}
	if d := day("2026-03-01"); d.NoData || d.Worst != "" {
		t.Errorf("1 March: %+v", d)
	}
	if d := day("2026-03-05"); d.Worst != "" || d.Affected() != 0 {
		t.Errorf("5 March, another service's outage: %+v", d)
	}
	d8 := day("2026-03-08")
	if d8.Worst != "major_outage" || d8.Major != time.Hour || d8.Degraded != time.Hour || d8.Partial != time.Hour ||
		len(d8.Incidents) != 2 || d8.Incidents[0].ID != 7 || d8.Incidents[0].Level != "major_outage" || d8.Incidents[1].Title != "Slow nights" {
		t.Errorf("8 March: %+v", d8)
	}
	if d := day("2026-03-09"); d.Worst != "partial_outage" || d.Partial != time.Hour || len(d.Incidents) != 1 {
		t.Errorf("9 March: %+v", d)
	}
	if d := day("2026-03-10"); d.Major != time.Hour || d.Worst != "major_outage" {
		t.Errorf("today: %+v", d)
	}
	// Counted: 1 March 00:00 to now = 9.5 days; down = 60 + 60 major minutes + 30% of 120 partial.
	total := 9.5 * 24 * 60
	want := 100 * (1 - (60+60+0.3*120)/total)
	if diff := u.Percent - want; diff > 1e-9 || diff < -1e-9 {
		t.Errorf("uptime %.6f%%, want %.6f%%", u.Percent, want)
	}
	// In another zone the days are cut at its midnight: 8 March 23:00 UTC is 9 March in Tokyo.
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	ut := models.ComponentUptime(c, incidents, now, tokyo, 90)
	for _, d := range ut.Days {
		if d.Date.Format("2006-01-02") == "2026-03-09" && d.Partial != 2*time.Hour {
			t.Errorf("9 March in Tokyo: %+v", d)
		}
	}
	if none := models.ComponentUptime(models.Component{Services: svc("Quiet")}, incidents, now, time.UTC, 90); none.Percent != 100 {
		t.Errorf("no impact: %v%%", none.Percent)
	}
}

// TestComponentsMigrationKeepsThePage: migration 00030 makes one component per service named
// by a public incident, as the status page listed them before, and none for a service only
// private incidents name.
func TestComponentsMigrationKeepsThePage(t *testing.T) {
	for _, tc := range []struct{ dialect, dir, url string }{
		{"sqlite", "sqlite", storetest.SQLiteURL(t)},
		{"postgres", "postgres", storetest.PostgresURL(t)},
	} {
		t.Run(tc.dialect, func(t *testing.T) {
			if tc.url == "" {
				t.Skip(storetest.PostgresEnv + " is not set")
			}
			ctx := context.Background()
			s, err := models.Open(ctx, tc.url)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			db, err := s.SQLDB()
			if err != nil {
				t.Fatal(err)
			}
			sub, _ := fs.Sub(migrations.FS, tc.dir)
			dialect := goose.DialectSQLite3
			if tc.dialect == "postgres" {
				dialect = goose.DialectPostgres
			}
			p, err := goose.NewProvider(dialect, db, sub)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.UpTo(ctx, 25); err != nil {
				t.Fatal(err)
			}
			for _, stmt := range []string{
				`INSERT INTO services (id, name, created_at) VALUES (1, 'Gateway', '2024-01-01T00:00:00Z'), (2, 'Router', '2024-01-01T00:00:00Z'), (3, 'Secret', '2024-01-01T00:00:00Z'), (4, 'Api', '2024-01-01T00:00:00Z')`,
				`INSERT INTO incidents (id, title, severity, status, time_zone, public, created_at, updated_at) VALUES
					(1, 'Public one', 'sev2', 'resolved', 'UTC', TRUE, '2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z'),
					(2, 'Private one', 'sev2', 'resolved', 'UTC', FALSE, '2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z')`,
				`INSERT INTO incident_services (incident_id, service_id) VALUES (1, 1), (1, 2), (1, 4), (2, 3), (2, 1)`,
			} {
				if _, err := db.ExecContext(ctx, stmt); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
			if _, err := s.MigrateUp(ctx); err != nil {
				t.Fatal(err)
			}
			list, err := s.ListComponents(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range list {
				if len(c.Services) != 1 || c.Services[0].Name != c.Name || !c.Showcase || c.IsGroup {
					t.Errorf("component %+v", c)
				}
				got = append(got, c.Name)
			}
			if want := []string{"Api", "Gateway", "Router"}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
				t.Errorf("components %v, want %v", got, want)
			}
		})
	}
}
