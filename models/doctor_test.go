package models_test

import (
	"context"
	"database/sql"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/demo"
	"hindsight/models/storetest"
)

// doctorDemo fills a store with the five demo incidents, then edits them through the store: a
// follow-up done, a public status update, an incident deleted, and a kept similar ranking.
func doctorDemo(t *testing.T, s *models.Store) *sql.DB {
	t.Helper()
	ctx := context.Background()
	if _, err := demo.Load(ctx, s); err != nil {
		t.Fatal(err)
	}
	db, err := s.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	rows, err := db.Query("SELECT id FROM incidents ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if len(ids) != 5 {
		t.Fatalf("demo incidents: %v", ids)
	}
	var followUp int64
	if err := db.QueryRow("SELECT min(id) FROM follow_ups WHERE status <> 'done'").Scan(&followUp); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetFollowUpStatus(ctx, []int64{followUp}, "done"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateEvent(ctx, ids[1], models.EventInput{At: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC), Kind: "status_update",
		Status: "monitoring", Body: "Traffic is back on the primary path.", Public: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteIncident(ctx, ids[4]); err != nil {
		t.Fatal(err)
	}
	// A kept ranking as the similar-incident keeper writes one.
	mustExec(t, db, "INSERT INTO similar_sets (incident_id, basis, computed_at) VALUES ($1, 'b', 1)", ids[2])
	mustExec(t, db, "INSERT INTO similar_suggestions (incident_id, position, similar_id, score, text_match, shares) VALUES ($1, 0, $2, 0.5, TRUE, '')", ids[2], ids[0])
	for _, table := range []string{"follow_up_factors", "incident_factors", "timeline_events"} {
		var n int
		if err := db.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil || n == 0 {
			t.Fatalf("the demo leaves %s empty (%v): corrupting it proves nothing", table, err)
		}
	}
	return db
}

func mustExec(t *testing.T, db *sql.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

func differing(r models.DoctorReport) []string {
	var out []string
	for _, t := range r.Tables {
		if t.Differ > 0 {
			out = append(out, t.Name)
		}
	}
	return out
}

func TestDoctorFindsAndRepairsEachDerivedTable(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		db := doctorDemo(t, s)
		report, err := s.Doctor(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !report.OK() {
			t.Fatalf("a database written only through the store differs: %+v", report.Tables)
		}
		pg := s.Dialect() == "postgres"
		firstIncident := "(SELECT min(id) FROM incidents)"
		type corruption struct {
			table string // the report's name for the table that must differ
			what  string
			sql   []string
		}
		cases := []corruption{
			{"incident_factors recurrence copy (started_unix, live)", "a start moved", []string{
				"UPDATE incident_factors SET started_unix = started_unix + 60 WHERE (incident_id, factor_id) = (SELECT incident_id, factor_id FROM incident_factors WHERE started_unix IS NOT NULL ORDER BY 1, 2 LIMIT 1)"}},
			{"incident_factors recurrence copy (started_unix, live)", "live turned over", []string{
				"UPDATE incident_factors SET live = NOT live WHERE (incident_id, factor_id) = (SELECT incident_id, factor_id FROM incident_factors ORDER BY 1 DESC, 2 LIMIT 1)"}},
			{"follow_up_factors recurrence copy (fixed_unix, kind, live)", "live turned over", []string{
				"UPDATE follow_up_factors SET live = NOT live WHERE (follow_up_id, factor_id) = (SELECT follow_up_id, factor_id FROM follow_up_factors ORDER BY 1, 2 LIMIT 1)"}},
			{"follow_up_factors recurrence copy (fixed_unix, kind, live)", "a fix time written", []string{
				"UPDATE follow_up_factors SET fixed_unix = 12345 WHERE (follow_up_id, factor_id) = (SELECT follow_up_id, factor_id FROM follow_up_factors WHERE fixed_unix IS NULL ORDER BY 1, 2 LIMIT 1)"}},
			{"follow_up_factors recurrence copy (fixed_unix, kind, live)", "a kind changed", []string{
				"UPDATE follow_up_factors SET kind = 'tampered' WHERE (follow_up_id, factor_id) = (SELECT follow_up_id, factor_id FROM follow_up_factors ORDER BY 1 DESC, 2 LIMIT 1)"}},
			{"similar rankings", "a ranking naming its own incident", []string{
				"DELETE FROM similar_suggestions", "DELETE FROM similar_sets",
				"INSERT INTO similar_sets (incident_id, basis, computed_at) SELECT min(id), 'b', 1 FROM incidents",
				"INSERT INTO similar_suggestions (incident_id, position, similar_id, score, text_match, shares) SELECT min(id), 0, min(id), 0.5, TRUE, '' FROM incidents"}},
		}
		if pg {
			cases = append(cases,
				corruption{"incidents_fts", "a document deleted", []string{"DELETE FROM incidents_fts WHERE id = " + firstIncident}},
				corruption{"timeline_events_fts", "a document changed", []string{
					"UPDATE timeline_events_fts SET document = to_tsvector('english', 'tampered') WHERE id = (SELECT min(id) FROM timeline_events)"}},
				corruption{"follow_ups_fts", "a document under another incident", []string{
					"UPDATE follow_ups_fts SET incident_id = incident_id + 1000 WHERE id = (SELECT min(id) FROM follow_ups)"}},
			)
		} else {
			cases = append(cases,
				corruption{"incidents_fts", "a document deleted", []string{"DELETE FROM incidents_fts WHERE rowid = " + firstIncident}},
				corruption{"timeline_events_fts", "a document changed", []string{
					"UPDATE timeline_events_fts SET body = 'tampered' WHERE rowid = (SELECT min(id) FROM timeline_events)"}},
				corruption{"follow_ups_fts", "a stray document", []string{
					"INSERT INTO follow_ups_fts (rowid, title, description, verification) VALUES (999999, 'stray', '', '')"}},
			)
		}
		covered := map[string]bool{}
		for _, c := range cases {
			covered[c.table] = true
			t.Run(c.table+"/"+c.what, func(t *testing.T) {
				conn, err := db.Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for _, q := range c.sql {
					res, err := conn.ExecContext(ctx, q)
					if err != nil {
						t.Fatalf("%s: %v", q, err)
					}
					if n, _ := res.RowsAffected(); n == 0 && !strings.HasPrefix(q, "DELETE FROM similar") && q != "BEGIN" && q != "COMMIT" && !strings.HasPrefix(q, "SELECT") {
						t.Fatalf("%s changed nothing", q)
					}
				}
				conn.Close()
				found, err := s.Doctor(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if got := differing(found); !slices.Equal(got, []string{c.table}) {
					t.Fatalf("doctor found %v differing, want only %s: %+v", got, c.table, found.Tables)
				}
				// A repair records that everything changed (row -1 of incident_versions), so every
				// process reads its copies again.
				var before int64
				if err := db.QueryRow("SELECT COALESCE(max(version), 0) FROM incident_versions WHERE incident_id = -1").Scan(&before); err != nil {
					t.Fatal(err)
				}
				repaired, err := s.DoctorRepair(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range repaired.Tables {
					if r.Name == c.table && (r.Rewritten == 0 || r.Rewritten != r.Differ) {
						t.Errorf("repair of %s rewrote %d of %d rows", r.Name, r.Rewritten, r.Differ)
					}
				}
				var after int64
				if err := db.QueryRow("SELECT version FROM incident_versions WHERE incident_id = -1").Scan(&after); err != nil || after == before {
					t.Errorf("a repair left everything's version at %d (was %d, %v): caches would keep what they showed", after, before, err)
				}
				again, err := s.Doctor(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if !again.OK() {
					t.Fatalf("after repair doctor still finds %v: %+v", differing(again), again.Tables)
				}
			})
		}
		for _, r := range report.Tables {
			if !covered[r.Name] {
				t.Errorf("no corruption of %s is tried", r.Name)
			}
		}
	})
}

// schemaTables lists the tables of the migrated database, apart from the engine's own.
func schemaTables(t *testing.T, s *models.Store) []string {
	t.Helper()
	db, err := s.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	query := "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
	if s.Dialect() == "postgres" {
		query = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name"
	}
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		out = append(out, name)
	}
	return out
}

func unknownTables(t *testing.T, s *models.Store) []string {
	var unknown []string
	for _, table := range schemaTables(t, s) {
		if models.DoctorTableKind(s.Dialect(), table) == "" {
			unknown = append(unknown, table)
		}
	}
	return unknown
}

// Adding a table without telling the doctor whether it is a base table, a derived table it
// checks, or derived state it does not check, fails here.
func TestDoctorKnowsEveryTable(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		if len(schemaTables(t, s)) < 20 {
			t.Fatalf("the schema walk found only %v", schemaTables(t, s))
		}
		if unknown := unknownTables(t, s); len(unknown) > 0 {
			t.Fatalf("tables the doctor does not know (add them to models/doctor_tables.go): %v", unknown)
		}
		db, err := s.SQLDB()
		if err != nil {
			t.Fatal(err)
		}
		mustExec(t, db, "CREATE TABLE incident_widgets (incident_id BIGINT NOT NULL, n BIGINT NOT NULL)")
		if unknown := unknownTables(t, s); !slices.Equal(unknown, []string{"incident_widgets"}) {
			t.Fatalf("a new table went unnoticed: unknown tables %v", unknown)
		}
	})
}

// Doctor reads in one transaction: writes committed while it runs, between its reads of the
// base tables and of the derived ones, never show as a difference.
func TestDoctorBesideWrites(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		doctorDemo(t, s)
		inc, err := s.CreateIncident(ctx, models.IncidentInput{Title: "Writes beside the doctor", Severity: "sev3", Status: "investigating",
			DetectionMethod: "automated_alert", TimeZone: "UTC", PostmortemState: "draft", Services: []string{"api"}}, models.Children{})
		if err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		wrote := make(chan error, 1)
		go func() {
			n := 0
			for {
				select {
				case <-stop:
					wrote <- nil
					return
				default:
				}
				n++
				if _, err := s.CreateFollowUp(ctx, inc.ID, models.FollowUpInput{Title: "Check the doctor", Kind: "prevent", Priority: "p2",
					Status: "open", Owner: "owner" + strconv.Itoa(n%3), Factors: []string{"cold-caches"}}); err != nil {
					wrote <- err
					return
				}
			}
		}()
		for range 15 {
			report, err := s.Doctor(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !report.OK() {
				t.Fatalf("doctor beside writes found %v: %+v", differing(report), report.Tables)
			}
		}
		close(stop)
		if err := <-wrote; err != nil {
			t.Fatal(err)
		}
	})
}
