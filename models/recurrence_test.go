package models_test

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

func utcDay(t *testing.T, value string) *time.Time {
	t.Helper()
	v, err := time.Parse(time.DateOnly, value)
	if err != nil {
		t.Fatal(err)
	}
	return &v
}

func recurrenceIncidentInput(title string, started *time.Time, factors ...string) models.IncidentInput {
	return models.IncidentInput{
		Title: title, Severity: "sev2", Status: "resolved", TimeZone: "UTC", PostmortemState: "none",
		Factors: factors, Milestones: models.Milestones{StartedAt: started},
	}
}

func addIncident(t *testing.T, s *models.Store, title string, started *time.Time, factors ...string) int64 {
	t.Helper()
	inc, err := s.CreateIncident(context.Background(), recurrenceIncidentInput(title, started, factors...), models.Children{})
	if err != nil {
		t.Fatal(err)
	}
	return inc.ID
}

func fixInput(title string, done *time.Time, factors ...string) models.FollowUpInput {
	return models.FollowUpInput{Title: title, Kind: "prevent", Priority: "p2", Status: "done", DoneAt: done, Factors: factors}
}

func addFix(t *testing.T, s *models.Store, incidentID int64, title string, done *time.Time, factors ...string) int64 {
	t.Helper()
	f, err := s.CreateFollowUp(context.Background(), incidentID, fixInput(title, done, factors...))
	if err != nil {
		t.Fatal(err)
	}
	return f.ID
}

func reportBySlug(t *testing.T, s *models.Store, listed int) map[string]models.FactorRecurrence {
	t.Helper()
	report, err := s.RecurrenceListing(context.Background(), listed)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]models.FactorRecurrence{}
	for _, r := range report {
		out[r.Factor.Slug] = r
	}
	return out
}

// cameBack maps each listed incident to the follow-up it came back after.
func cameBack(r models.FactorRecurrence) map[int64]int64 {
	out := map[int64]int64{}
	for _, inc := range r.Incidents {
		out[inc.ID] = inc.CameBackAfter
	}
	return out
}

// TestRecurrenceCameBackAfterItsFix checks the rule on both databases: an incident came back
// after its fix when a follow-up addressing the factor, from an earlier incident, was done before
// it started; not when the fix was done later, not for the fix's own incident, not at the very
// instant, and not when the fix's incident is deleted. Edits of a follow-up's status and of an
// incident's start move the flags.
func TestRecurrenceCameBackAfterItsFix(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		const retry, cold, failover = "retry-amplification", "cold-caches", "failover-disabled"

		// Retry amplification: A's fix is done on 10 January, between C and B.
		a := addIncident(t, s, "A", utcDay(t, "2024-01-01"), retry)
		fixA := addFix(t, s, a, "Budget retries", utcDay(t, "2024-01-10"), retry)
		c := addIncident(t, s, "C", utcDay(t, "2024-01-05"), retry)
		b := addIncident(t, s, "B", utcDay(t, "2024-02-01"), retry)

		// Cold caches: D's fix was marked done before D itself started, which does not make D come
		// back; E, later, did. Z started at the very instant D did.
		d := addIncident(t, s, "D", utcDay(t, "2024-03-01"), cold)
		fixD := addFix(t, s, d, "Warm caches", utcDay(t, "2024-02-01"), cold)
		z := addIncident(t, s, "Z", utcDay(t, "2024-03-01"), cold)
		e := addIncident(t, s, "E", utcDay(t, "2024-04-01"), cold)

		// Failover disabled: P's fix makes Q come back until P is deleted.
		p := addIncident(t, s, "P", utcDay(t, "2022-01-01"), failover)
		addFix(t, s, p, "Keep failover on", utcDay(t, "2022-01-02"), failover)
		q := addIncident(t, s, "Q", utcDay(t, "2022-06-01"), failover)

		report := reportBySlug(t, s, models.RecurrenceListed)
		r := report[retry]
		if got, want := cameBack(r), map[int64]int64{a: 0, c: 0, b: fixA}; !sameCameBack(got, want) {
			t.Errorf("retry amplification came back: %v, want %v", got, want)
		}
		if r.CameBack != 1 || r.Fix != fixA || r.IncidentCount != 3 || r.FollowUpCount != 1 || r.Unaddressed || !r.Recurs {
			t.Errorf("retry amplification: %+v", r)
		}
		r = report[cold]
		if got, want := cameBack(r), map[int64]int64{d: 0, z: 0, e: fixD}; !sameCameBack(got, want) {
			t.Errorf("cold caches came back: %v, want %v", got, want)
		}
		if r.CameBack != 1 || r.FixedAt == nil || !r.FixedAt.Equal(*utcDay(t, "2024-03-01")) {
			t.Errorf("cold caches: came back %d, fixed at %v", r.CameBack, r.FixedAt)
		}
		if got := report[failover]; got.CameBack != 1 || got.IncidentCount != 2 || got.FollowUpCount != 1 {
			t.Errorf("failover before the delete: %+v", got)
		}

		if err := s.DeleteIncident(ctx, p); err != nil {
			t.Fatal(err)
		}
		r = reportBySlug(t, s, models.RecurrenceListed)[failover]
		if r.CameBack != 0 || r.IncidentCount != 1 || r.FollowUpCount != 0 || r.Fix != 0 || r.Recurs || len(r.Incidents) != 1 || r.Incidents[0].ID != q {
			t.Errorf("failover after deleting P: %+v", r)
		}

		// Reopening A's fix takes B's flag away; done again today, it is after every incident.
		open := fixInput("Budget retries", nil, retry)
		open.Status = "open"
		if err := s.UpdateFollowUp(ctx, a, fixA, 0, open); err != nil {
			t.Fatal(err)
		}
		r = reportBySlug(t, s, models.RecurrenceListed)[retry]
		if r.CameBack != 0 || r.Fix != 0 || r.FollowUpsByStatus["open"] != 1 || r.FollowUpsByStatus["done"] != 0 {
			t.Errorf("retry amplification with its fix reopened: %+v", r)
		}
		if err := s.UpdateFollowUp(ctx, a, fixA, 0, fixInput("Budget retries", nil, retry)); err != nil {
			t.Fatal(err)
		}
		if r = reportBySlug(t, s, models.RecurrenceListed)[retry]; r.CameBack != 0 || r.Fix != fixA {
			t.Errorf("retry amplification with its fix done today: %+v", r)
		}
		if err := s.UpdateFollowUp(ctx, a, fixA, 0, fixInput("Budget retries", utcDay(t, "2024-01-10"), retry)); err != nil {
			t.Fatal(err)
		}
		if r = reportBySlug(t, s, models.RecurrenceListed)[retry]; r.CameBack != 1 {
			t.Errorf("retry amplification with its fix done in January again: %+v", r)
		}

		// A moved after B: its fix now counts from A's start, after B's.
		if _, err := s.UpdateIncident(ctx, a, 0, recurrenceIncidentInput("A", utcDay(t, "2024-03-01"), retry), models.Children{}); err != nil {
			t.Fatal(err)
		}
		r = reportBySlug(t, s, models.RecurrenceListed)[retry]
		if got, want := cameBack(r), map[int64]int64{a: 0, c: 0, b: 0}; r.CameBack != 0 || !sameCameBack(got, want) {
			t.Errorf("retry amplification with A moved: came back %d, %v", r.CameBack, got)
		}
		if r.LastOccurrence == nil || !r.LastOccurrence.Equal(*utcDay(t, "2024-03-01")) || r.Incidents[0].ID != a {
			t.Errorf("retry amplification with A moved: last %v, listed %+v", r.LastOccurrence, r.Incidents)
		}

		// Untagging the fix leaves the factor's follow-ups, and the time line still counts every incident.
		if err := s.UpdateFollowUp(ctx, d, fixD, 0, fixInput("Warm caches", utcDay(t, "2024-02-01"))); err != nil {
			t.Fatal(err)
		}
		r = reportBySlug(t, s, models.RecurrenceListed)[cold]
		if r.CameBack != 0 || r.FollowUpCount != 0 || !r.Unaddressed {
			t.Errorf("cold caches untagged: %+v", r)
		}
		total := 0
		for _, bucket := range r.Timeline {
			total += bucket.Incidents
		}
		if total != 3 {
			t.Errorf("cold caches time line counts %d incidents: %+v", total, r.Timeline)
		}
	})
}

func sameCameBack(a, b map[int64]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestRecurrenceAgreesWithItsRows checks the report, whose figures come from copies that
// triggers keep in the factor tags, against the rule applied to the rows themselves in Go, after
// a fill and every kind of change the copies must follow: starts moved and erased, incidents
// soft- and hard-deleted, statuses and completion times edited, tags replaced, follow-ups
// deleted.
func TestRecurrenceAgreesWithItsRows(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		storetest.Fill(t, s, 80)
		storetest.FillFollowUps(t, s, 2)
		db, err := s.SQLDB()
		if err != nil {
			t.Fatal(err)
		}
		exec := func(query string, args ...any) {
			t.Helper()
			if _, err := db.ExecContext(ctx, query, args...); err != nil {
				t.Fatalf("%s: %v", query, err)
			}
		}
		for _, id := range []int64{3, 17, 40} {
			if err := s.DeleteIncident(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
		exec(`DELETE FROM incidents WHERE id = $1`, 55)
		exec(`UPDATE incidents SET started_at = NULL WHERE id IN (5, 6)`)
		exec(`UPDATE incidents SET started_at = $1 WHERE id = 9`, time.Date(2015, 3, 1, 12, 0, 0, 0, time.UTC))
		exec(`UPDATE incidents SET started_at = $1 WHERE id = 70`, time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC))
		exec(`UPDATE follow_ups SET status = 'open', done_at = NULL WHERE id % 7 = 0 AND status = 'done'`)
		exec(`UPDATE follow_ups SET status = 'done', done_at = $1 WHERE id % 11 = 0 AND status <> 'done'`, time.Date(2025, 12, 20, 0, 0, 0, 0, time.UTC))
		exec(`UPDATE follow_ups SET done_at = $1 WHERE id = 10 AND status = 'done'`, time.Date(2014, 1, 1, 0, 0, 0, 0, time.UTC))
		exec(`UPDATE follow_ups SET incident_id = 12 WHERE id = 30`)
		exec(`DELETE FROM follow_ups WHERE id IN (31, 32)`)
		exec(`DELETE FROM incident_factors WHERE incident_id = 20`)
		exec(`INSERT INTO incident_factors (incident_id, factor_id) VALUES (20, 9), (21, 9), (3, 9) ON CONFLICT DO NOTHING`)
		exec(`UPDATE incident_factors SET incident_id = 22 WHERE incident_id = 23 AND factor_id = (SELECT MIN(factor_id) FROM incident_factors WHERE incident_id = 23)
			AND NOT EXISTS (SELECT 1 FROM incident_factors x WHERE x.incident_id = 22 AND x.factor_id = incident_factors.factor_id)`)
		exec(`DELETE FROM follow_up_factors WHERE follow_up_id = 13`)
		exec(`INSERT INTO follow_up_factors (follow_up_id, factor_id) VALUES (13, 2), (14, 9), (15, 9) ON CONFLICT DO NOTHING`)
		// Plain SQL is not the store's write path: it records what it did as another program would.
		if err := s.RecordEverything(ctx); err != nil {
			t.Fatal(err)
		}

		want := recurrenceFromRows(t, db)
		// 200 spans: every factor has fewer dated incidents, so a span per start; 4: equal spans.
		for _, spans := range []int{200, 4} {
			restore := models.SetRecurrenceBuckets(spans)
			for _, listed := range []int{models.RecurrenceMaxListed, 3, 0} {
				report, err := s.RecurrenceListing(ctx, listed)
				if err != nil {
					t.Fatal(err)
				}
				if len(report) != len(want) {
					t.Fatalf("listed %d: %d factors, want %d", listed, len(report), len(want))
				}
				for n, r := range report {
					if n > 0 && report[n-1].IncidentCount < r.IncidentCount {
						t.Errorf("listed %d: %s comes after a factor with fewer incidents", listed, r.Factor.Slug)
					}
					if spans == 4 && len(r.Timeline) > 4 {
						t.Errorf("%s: %d spans, want 4 at most", r.Factor.Slug, len(r.Timeline))
					}
					for _, b := range r.Timeline {
						if spans == 200 && b.To.Sub(b.From) != time.Second {
							t.Errorf("%s: span %+v is not one start", r.Factor.Slug, b)
						}
					}
					checkAgainstRows(t, fmt.Sprintf("%d spans, listed %d, %s", spans, listed, r.Factor.Slug), r, want[r.Factor.ID], listed)
				}
			}
			restore()
		}
		checkCopies(t, s, db)

		// The app replaces tags rather than moving them, but a tag moved is copied anew.
		exec(`UPDATE follow_up_factors SET follow_up_id = 16 WHERE follow_up_id = 17
			AND NOT EXISTS (SELECT 1 FROM follow_up_factors x WHERE x.follow_up_id = 16 AND x.factor_id = follow_up_factors.factor_id)`)
		exec(`UPDATE follow_up_factors SET follow_up_id = 18 WHERE follow_up_id = (SELECT MIN(u.id) FROM follow_ups u WHERE u.incident_id = 3)
			AND NOT EXISTS (SELECT 1 FROM follow_up_factors x WHERE x.follow_up_id = 18 AND x.factor_id = follow_up_factors.factor_id)`)
		if err := s.RecordEverything(ctx); err != nil {
			t.Fatal(err)
		}
		checkCopies(t, s, db)
	})
}

// checkCopies compares the copies migration 00014 keeps in the factor tags with what they copy.
func checkCopies(t *testing.T, s *models.Store, db *sql.DB) {
	t.Helper()
	ctx := context.Background()
	compare := func(what, copied, computed string) {
		t.Helper()
		rows, err := db.QueryContext(ctx, copied+" EXCEPT "+computed)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		defer rows.Close()
		if rows.Next() {
			t.Errorf("%s: a tag's copies differ from what they copy", what)
		}
	}
	unix := "unixepoch(%s)"
	fixed := "CASE WHEN u.status = 'done' AND u.done_at IS NOT NULL AND i.started_at IS NOT NULL THEN max(unixepoch(u.done_at), unixepoch(i.started_at)) END"
	if s.Dialect() == "postgres" {
		unix = "CAST(floor(EXTRACT(EPOCH FROM %s)) AS BIGINT)"
		fixed = "CASE WHEN u.status = 'done' AND u.done_at IS NOT NULL AND i.started_at IS NOT NULL THEN CAST(floor(EXTRACT(EPOCH FROM GREATEST(u.done_at, i.started_at))) AS BIGINT) END"
	}
	for _, both := range []bool{false, true} {
		a, b := "SELECT x.incident_id, x.factor_id, x.started_unix, x.live FROM incident_factors x",
			"SELECT x.incident_id, x.factor_id, "+fmt.Sprintf(unix, "i.started_at")+", i.deleted_at IS NULL FROM incident_factors x JOIN incidents i ON i.id = x.incident_id"
		c, d := "SELECT y.follow_up_id, y.factor_id, y.fixed_unix, y.kind, y.live FROM follow_up_factors y",
			"SELECT y.follow_up_id, y.factor_id, "+fixed+", u.kind, i.deleted_at IS NULL FROM follow_up_factors y JOIN follow_ups u ON u.id = y.follow_up_id JOIN incidents i ON i.id = u.incident_id"
		if both {
			a, b, c, d = b, a, d, c
		}
		compare("incident tags", a, b)
		compare("follow-up tags", c, d)
	}
}

// rowsRecurrence is one factor's report computed from the rows by the rule itself.
type rowsRecurrence struct {
	incidents []models.RecurrenceIncident // every live incident, newest first; CameBackAfter is 1 when it came back
	fixes     map[int64]rowsFix           // every done follow-up addressing the factor
	followUps []int64                     // live, by id
	byStatus  map[string]int
	cameBack  int
	first     *time.Time
	last      *time.Time
}

type rowsFix struct {
	done, incidentStart time.Time
	incidentID          int64
}

func recurrenceFromRows(t *testing.T, db *sql.DB) map[int64]*rowsRecurrence {
	t.Helper()
	ctx := context.Background()
	query := func(q string, fn func(rows *sql.Rows) error) {
		t.Helper()
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			if err := fn(rows); err != nil {
				t.Fatal(err)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	type incident struct {
		title   string
		started *time.Time
		live    bool
	}
	incidents := map[int64]incident{}
	query(`SELECT id, title, started_at, deleted_at FROM incidents`, func(rows *sql.Rows) error {
		var id int64
		var inc incident
		var started, deleted sql.Null[time.Time]
		if err := rows.Scan(&id, &inc.title, &started, &deleted); err != nil {
			return err
		}
		if started.Valid {
			u := started.V.UTC()
			inc.started = &u
		}
		inc.live = !deleted.Valid
		incidents[id] = inc
		return nil
	})
	type followUp struct {
		incidentID int64
		status     string
		done       *time.Time
	}
	followUps := map[int64]followUp{}
	query(`SELECT id, incident_id, status, done_at FROM follow_ups`, func(rows *sql.Rows) error {
		var id int64
		var f followUp
		var done sql.Null[time.Time]
		if err := rows.Scan(&id, &f.incidentID, &f.status, &done); err != nil {
			return err
		}
		if done.Valid {
			u := done.V.UTC()
			f.done = &u
		}
		followUps[id] = f
		return nil
	})
	out := map[int64]*rowsRecurrence{}
	query(`SELECT id FROM factors`, func(rows *sql.Rows) error {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		out[id] = &rowsRecurrence{fixes: map[int64]rowsFix{}, byStatus: map[string]int{}}
		return nil
	})
	query(`SELECT follow_up_id, factor_id FROM follow_up_factors`, func(rows *sql.Rows) error {
		var id, factorID int64
		if err := rows.Scan(&id, &factorID); err != nil {
			return err
		}
		f, r := followUps[id], out[factorID]
		j := incidents[f.incidentID]
		if !j.live {
			return nil
		}
		r.followUps = append(r.followUps, id)
		r.byStatus[f.status]++
		if f.status == "done" && f.done != nil && j.started != nil {
			r.fixes[id] = rowsFix{done: *f.done, incidentStart: *j.started, incidentID: f.incidentID}
		}
		return nil
	})
	query(`SELECT incident_id, factor_id FROM incident_factors`, func(rows *sql.Rows) error {
		var id, factorID int64
		if err := rows.Scan(&id, &factorID); err != nil {
			return err
		}
		inc, r := incidents[id], out[factorID]
		if !inc.live {
			return nil
		}
		item := models.RecurrenceIncident{ID: id, Title: inc.title, StartedAt: inc.started}
		if inc.started != nil {
			for _, fix := range r.fixes {
				if fix.incidentID != id && fix.done.Before(*inc.started) && fix.incidentStart.Before(*inc.started) {
					item.CameBackAfter = 1
					r.cameBack++
					break
				}
			}
			if r.first == nil || inc.started.Before(*r.first) {
				r.first = inc.started
			}
			if r.last == nil || inc.started.After(*r.last) {
				r.last = inc.started
			}
		}
		r.incidents = append(r.incidents, item)
		return nil
	})
	for _, r := range out {
		slices.SortFunc(r.incidents, func(a, b models.RecurrenceIncident) int {
			switch {
			case a.StartedAt == nil && b.StartedAt == nil:
			case a.StartedAt == nil:
				return 1
			case b.StartedAt == nil:
				return -1
			case !a.StartedAt.Equal(*b.StartedAt):
				return b.StartedAt.Compare(*a.StartedAt)
			}
			return int(b.ID - a.ID)
		})
		slices.Sort(r.followUps)
	}
	return out
}

func checkAgainstRows(t *testing.T, name string, r models.FactorRecurrence, w *rowsRecurrence, listed int) {
	t.Helper()
	if r.IncidentCount != len(w.incidents) || r.CameBack != w.cameBack || r.FollowUpCount != len(w.followUps) {
		t.Errorf("%s: %d incidents, %d came back, %d follow-ups; the rows say %d, %d, %d",
			name, r.IncidentCount, r.CameBack, r.FollowUpCount, len(w.incidents), w.cameBack, len(w.followUps))
	}
	if !sameMoment(r.FirstOccurrence, w.first) || !sameMoment(r.LastOccurrence, w.last) {
		t.Errorf("%s: from %v to %v; the rows say %v to %v", name, r.FirstOccurrence, r.LastOccurrence, w.first, w.last)
	}
	for status, n := range w.byStatus {
		if r.FollowUpsByStatus[status] != n {
			t.Errorf("%s: %d follow-ups %s; the rows say %d", name, r.FollowUpsByStatus[status], status, n)
		}
	}
	if len(r.Incidents) != min(listed, len(w.incidents)) || len(r.FollowUps) != min(listed, len(w.followUps)) {
		t.Errorf("%s: lists %d incidents and %d follow-ups", name, len(r.Incidents), len(r.FollowUps))
	}
	for n, inc := range r.Incidents {
		if n >= len(w.incidents) {
			break
		}
		ref := w.incidents[n]
		if inc.ID != ref.ID || inc.Title != ref.Title || !sameMoment(inc.StartedAt, ref.StartedAt) || (inc.CameBackAfter != 0) != (ref.CameBackAfter != 0) {
			t.Errorf("%s: incident %d is %+v; the rows say %+v", name, n, inc, ref)
			continue
		}
		if inc.CameBackAfter != 0 {
			// The fix it links to is one: done before it started, from an earlier incident.
			fix, ok := w.fixes[inc.CameBackAfter]
			if !ok || !fix.done.Before(*inc.StartedAt) || !fix.incidentStart.Before(*inc.StartedAt) {
				t.Errorf("%s: incident %d came back after %d, which is no fix for it", name, inc.ID, inc.CameBackAfter)
			}
		}
	}
	for n, f := range r.FollowUps {
		if n < len(w.followUps) && f.ID != w.followUps[n] {
			t.Errorf("%s: follow-up %d is %d; the rows say %d", name, n, f.ID, w.followUps[n])
		}
	}
	counted, cameBack := 0, 0
	for n, b := range r.Timeline {
		counted += b.Incidents
		cameBack += b.CameBack
		if b.Incidents == 0 || b.CameBack > b.Incidents || !b.To.After(b.From) || (n > 0 && b.From.Before(r.Timeline[n-1].To)) ||
			b.From.Before(*r.FirstOccurrence) || b.From.After(*r.LastOccurrence) {
			t.Errorf("%s: time line span %d is %+v", name, n, b)
		}
	}
	unknown := 0
	for _, inc := range w.incidents {
		if inc.StartedAt == nil {
			unknown++
		}
	}
	if counted != len(w.incidents)-unknown || cameBack != w.cameBack {
		t.Errorf("%s: the time line counts %d incidents, %d came back; the rows say %d, %d", name, counted, cameBack, len(w.incidents)-unknown, w.cameBack)
	}
}

func sameMoment(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}

// TestRecurrenceStatementsDoNotGrow proves the report reads in ten statements after a fill (five
// of its own, the look at what changed, and the list totals read whole in four: the incidents,
// the follow-ups, their factors and the incidents' services, since a fill changes everything),
// with three factors or twelve and with a few incidents or many, and in six when nothing changed.
func TestRecurrenceStatementsDoNotGrow(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		count := func() int64 {
			t.Helper()
			before := s.Statements()
			if _, err := s.RecurrenceListing(ctx, models.RecurrenceListed); err != nil {
				t.Fatal(err)
			}
			return s.Statements() - before
		}
		storetest.Fill(t, s, 5)
		storetest.FillFollowUps(t, s, 1)
		small := count()
		for n := range 3 {
			if _, err := s.SaveFactor(ctx, 0, models.FactorInput{Slug: fmt.Sprintf("extra-%d", n), Name: fmt.Sprintf("Extra %d", n)}); err != nil {
				t.Fatal(err)
			}
		}
		storetest.Fill(t, s, 150)
		storetest.FillFollowUps(t, s, 3)
		large := count()
		if small != 10 || large != small {
			t.Errorf("statements: %d with a few incidents, %d with more incidents and factors; want 10 both times", small, large)
		}
		if again := count(); again != 6 {
			t.Errorf("statements with nothing changed: %d; want 6", again)
		}
	})
}

var scanned = regexp.MustCompile(`^SCAN (\w+)`)

// nm is the partial index of near misses, which are few.
var smallScans = map[string]bool{"nm": true, "f": true, "s": true, "span": true, "bucket": true, "b": true, "c": true, "dated": true, "CONSTANT": true}

// TestRecurrenceReadsIndexes proves on SQLite that every statement of the report reads ranges of
// the indexes of migration 00014 or of the follow-up counts, never a whole index of tags nor the
// wide tables per tag.
func TestRecurrenceReadsIndexes(t *testing.T) {
	s := storetest.SQLite(t)
	storetest.Fill(t, s, 100)
	storetest.FillFollowUps(t, s, 2)
	plans, err := s.ExplainRecurrence(context.Background(), models.RecurrenceListed)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"summary":    {"incident_factors_recurrence_idx", "follow_up_factors_fixed_idx"},
		"timeline":   {"COVERING INDEX incident_factors_recurrence_idx", "COVERING INDEX follow_up_factors_fixed_idx"},
		"incidents":  {"COVERING INDEX incident_factors_recurrence_idx", "INTEGER PRIMARY KEY"},
		"follow-ups": {"COVERING INDEX follow_up_factors_listed_idx", "INTEGER PRIMARY KEY"},
		// Joined plainly, SQLite walked every factor tag for the few near misses.
		"near misses": {"INDEX incidents_near_miss_idx"},
	}
	for name, parts := range want {
		plan := plans[name]
		for _, part := range parts {
			if !strings.Contains(plan, part) {
				t.Errorf("%s: plan does not use %s:\n%s", name, part, plan)
			}
		}
		for _, line := range strings.Split(plan, "\n") {
			// Tags and incidents are read by ranges and keys only: whole scans are of the factors,
			// of constants and of the statement's own small results. So whatever is sorted for
			// grouping is small too: the follow-up counts, or the starts of factors with fewer
			// incidents than the time line has spans.
			scan := scanned.FindStringSubmatch(line)
			if (scan != nil && !smallScans[scan[1]]) || strings.Contains(line, "AUTOMATIC") {
				t.Errorf("%s: %q:\n%s", name, line, plan)
			}
		}
	}
}
