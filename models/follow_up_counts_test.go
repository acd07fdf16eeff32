package models_test

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// followUpCountsNow is what the kept counts hold, keyed by every column; followUpCountsWanted is
// the same computed from the follow-ups themselves.
const (
	followUpCountsNow = `SELECT status, kind, priority, owner, due_on, factor_id, service_id, n FROM follow_up_counts`
	// The three parts of migration 00009's first fill: overall, per factor, per service.
	followUpCountsWanted = `
		SELECT u.status, u.kind, u.priority, u.owner, COALESCE(u.due_on, '9999-12-31'), 0, 0, count(*)
		FROM follow_ups u JOIN incidents i ON i.id = u.incident_id AND i.deleted_at IS NULL GROUP BY 1, 2, 3, 4, 5
		UNION ALL
		SELECT u.status, u.kind, u.priority, u.owner, COALESCE(u.due_on, '9999-12-31'), ff.factor_id, 0, count(*)
		FROM follow_ups u JOIN incidents i ON i.id = u.incident_id AND i.deleted_at IS NULL
		JOIN follow_up_factors ff ON ff.follow_up_id = u.id GROUP BY 1, 2, 3, 4, 5, 6
		UNION ALL
		SELECT u.status, u.kind, u.priority, u.owner, COALESCE(u.due_on, '9999-12-31'), 0, s.service_id, count(*)
		FROM follow_ups u JOIN incidents i ON i.id = u.incident_id AND i.deleted_at IS NULL
		JOIN incident_services s ON s.incident_id = u.incident_id GROUP BY 1, 2, 3, 4, 5, 7`
)

func followUpCountRows(t *testing.T, db *sql.DB, query string) map[string]int64 {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var status, kind, priority, owner string
		var due any
		var factor, service, n int64
		if err := rows.Scan(&status, &kind, &priority, &owner, &due, &factor, &service, &n); err != nil {
			t.Fatal(err)
		}
		if d, ok := due.(time.Time); ok {
			due = d.UTC().Format(time.DateOnly)
		} else {
			due = fmt.Sprintf("%.10s", due)
		}
		out[fmt.Sprintf("%s|%s|%s|%q|%s|f%d|s%d", status, kind, priority, owner, due, factor, service)] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFollowUpCountsFollowEveryChange checks the follow-up counts kept by triggers (migration
// 00009) against the follow-ups themselves after every kind of change: creates with factors,
// edits of each counted column and of the factors, bulk status changes, an incident's services
// changed, incidents deleted, restored and removed for good, follow-ups and tags removed, and a
// follow-up moved to another incident. Then it checks that the follow-ups page's counts, read from
// them, equal a count of the rows under each filter.
func TestFollowUpCountsFollowEveryChange(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		db, err := s.SQLDB()
		if err != nil {
			t.Fatal(err)
		}
		check := func(step string) {
			t.Helper()
			got, want := followUpCountRows(t, db, followUpCountsNow), followUpCountRows(t, db, followUpCountsWanted)
			if !maps.Equal(got, want) {
				for _, k := range slices.Sorted(maps.Keys(want)) {
					if got[k] != want[k] {
						t.Errorf("%s: %s kept %d, counted %d", step, k, got[k], want[k])
					}
				}
				for _, k := range slices.Sorted(maps.Keys(got)) {
					if _, ok := want[k]; !ok {
						t.Errorf("%s: %s kept %d, counted none", step, k, got[k])
					}
				}
				t.FailNow()
			}
		}
		storetest.Fill(t, s, 30)
		storetest.FillFollowUps(t, s, 2)
		check("filled")

		day := func(n int) *time.Time { d := time.Date(2026, 11, 20+n, 0, 0, 0, 0, time.UTC); return &d }
		var incidents []int64
		for n := range 4 {
			inc, err := s.CreateIncident(ctx, models.IncidentInput{
				Title: fmt.Sprintf("Counted %d", n), Severity: "sev2", Status: "resolved", TimeZone: "UTC",
				Services: []string{"Router", fmt.Sprintf("Service %d", n%2)},
			}, models.Children{})
			if err != nil {
				t.Fatal(err)
			}
			incidents = append(incidents, inc.ID)
		}
		var followUps []*models.FollowUp
		for n := range 12 {
			in := models.FollowUpInput{Title: fmt.Sprintf("Fix %d", n), Kind: models.FollowUpKinds[n%4], Priority: models.FollowUpPriorities[n%3],
				Owner: []string{"", "Gateway team", "sre@example.com"}[n%3], Status: models.FollowUpStatuses[n%4],
				Factors: []string{"retry-amplification", "health-checks-removed-capacity"}[:n%3]}
			if n%4 != 0 {
				in.DueOn = day(n)
			}
			f, err := s.CreateFollowUp(ctx, incidents[n%4], in)
			if err != nil {
				t.Fatal(err)
			}
			followUps = append(followUps, f)
		}
		check("created")

		for n, f := range followUps[:6] {
			in := models.FollowUpInput{Title: f.Title, Kind: "detect", Priority: "p1", Owner: "Platform team", Status: "in_progress",
				DueOn: day(-n), Factors: []string{"retry-amplification"}}
			if err := s.UpdateFollowUp(ctx, f.IncidentID, f.ID, f.Version, in); err != nil {
				t.Fatal(err)
			}
		}
		check("edited")
		if _, err := s.SetFollowUpStatus(ctx, []int64{followUps[0].ID, followUps[7].ID, followUps[8].ID}, "done"); err != nil {
			t.Fatal(err)
		}
		check("bulk status")

		got, err := s.GetIncident(ctx, incidents[1])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.UpdateIncident(ctx, got.ID, got.Version, models.IncidentInput{Title: got.Title, Severity: "sev2", Status: "resolved",
			TimeZone: "UTC", Services: []string{"Edge"}}, models.Children{}); err != nil {
			t.Fatal(err)
		}
		check("services changed")

		if err := s.DeleteIncident(ctx, incidents[2]); err != nil {
			t.Fatal(err)
		}
		check("incident deleted")
		if _, err := db.Exec(`UPDATE incidents SET deleted_at = NULL WHERE id = $1`, incidents[2]); err != nil {
			t.Fatal(err)
		}
		check("incident restored")
		if err := s.DeleteFollowUp(ctx, followUps[3].IncidentID, followUps[3].ID); err != nil {
			t.Fatal(err)
		}
		check("follow-up deleted")
		for _, q := range []string{
			`DELETE FROM follow_up_factors WHERE follow_up_id = ` + fmt.Sprint(followUps[1].ID),
			`UPDATE follow_ups SET incident_id = ` + fmt.Sprint(incidents[0]) + ` WHERE id = ` + fmt.Sprint(followUps[5].ID),
			`DELETE FROM incident_services WHERE incident_id = ` + fmt.Sprint(incidents[3]),
			`DELETE FROM incidents WHERE id = ` + fmt.Sprint(incidents[0]),
			`DELETE FROM factors WHERE slug = 'health-checks-removed-capacity'`,
		} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
			check(q)
		}
		if err := s.DeleteIncident(ctx, incidents[1]); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`DELETE FROM incidents WHERE id = $1`, incidents[1]); err != nil {
			t.Fatal(err)
		}
		check("deleted incident removed for good")
		var zero int
		if err := db.QueryRow(`SELECT count(*) FROM follow_up_counts WHERE n <= 0`).Scan(&zero); err != nil || zero != 0 {
			t.Errorf("%d rows at zero or below (%v); want none", zero, err)
		}

		now := time.Date(2026, 11, 24, 15, 0, 0, 0, time.UTC)
		for _, factor := range []string{"", "retry-amplification"} {
			for _, service := range []string{"", "Router", "Edge"} {
				for _, due := range []string{"", "overdue", "week", "none"} {
					for _, owner := range []string{"", "Gateway team"} {
						f := models.FollowUpFilter{Factor: factor, Service: service, Due: due, Owner: owner, Priority: "p1", Status: "active", Now: now, Limit: 5}
						items, counts, err := s.ListFollowUps(ctx, f)
						if err != nil {
							t.Fatal(err)
						}
						want := countFollowUpRows(t, db, f)
						if !maps.Equal(counts.ByStatus, want.ByStatus) || counts.Overdue != want.Overdue || counts.Unowned != want.Unowned || counts.Total != want.Total {
							t.Errorf("%+v: counts %+v, rows %+v", f, counts, want)
						}
						if int64(len(items)) != min(want.Total, 5) {
							t.Errorf("%+v: %d on the page of 5, %d match", f, len(items), want.Total)
						}
					}
				}
			}
		}
	})
}

// countFollowUpRows counts follow-ups under f's filters straight from the rows.
func countFollowUpRows(t *testing.T, db *sql.DB, f models.FollowUpFilter) models.FollowUpCounts {
	t.Helper()
	day := time.Date(f.Now.Year(), f.Now.Month(), f.Now.Day(), 0, 0, 0, 0, time.UTC)
	week := day.AddDate(0, 0, 7)
	rows, err := db.Query(`SELECT u.status, u.owner, u.due_on FROM follow_ups u JOIN incidents i ON i.id = u.incident_id AND i.deleted_at IS NULL
		WHERE ($1 = '' OR u.id IN (SELECT follow_up_id FROM follow_up_factors JOIN factors ON factors.id = factor_id WHERE slug = $1))
		AND ($2 = '' OR u.incident_id IN (SELECT incident_id FROM incident_services JOIN services ON services.id = service_id WHERE name = $2))
		AND ($3 = '' OR u.owner = $3) AND ($4 = '' OR u.priority = $4)`, f.Factor, f.Service, f.Owner, f.Priority)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	c := models.FollowUpCounts{ByStatus: map[string]int64{}}
	for rows.Next() {
		var status, owner string
		var due sql.NullTime
		if err := rows.Scan(&status, &owner, &due); err != nil {
			t.Fatal(err)
		}
		active := status == "open" || status == "in_progress"
		overdue := active && due.Valid && due.Time.Before(day)
		switch f.Due {
		case "overdue":
			if !overdue {
				continue
			}
		case "week":
			if !active || !due.Valid || due.Time.Before(day) || due.Time.After(week) {
				continue
			}
		case "none":
			if due.Valid {
				continue
			}
		}
		c.ByStatus[status]++
		if overdue {
			c.Overdue++
		}
		if active && owner == "" {
			c.Unowned++
		}
		if f.Status == "" || f.Status == status || f.Status == "active" && active {
			c.Total++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestFollowUpPagesMatchTheWholeList reads the follow-ups list a page of five at a time, under
// every sort and a range of filters, and checks each page against the same stretch of the whole
// list read at once. Small pages of many matches take the walks through named indexes on SQLite;
// the whole list does not.
func TestFollowUpPagesMatchTheWholeList(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		storetest.Fill(t, s, 40)
		storetest.FillFollowUps(t, s, 3)
		now := time.Date(2026, 1, 10, 9, 0, 0, 0, time.UTC)
		ids := func(list []models.FollowUp) []int64 {
			out := make([]int64, len(list))
			for n, f := range list {
				out[n] = f.ID
			}
			return out
		}
		for _, sort := range []string{"due", "priority", "status", "newest"} {
			for _, status := range []string{"", "active", "open", "done"} {
				for _, owner := range []string{"", "Gateway team"} {
					for _, factor := range []string{"", "retry-amplification"} {
						for _, due := range []string{"", "overdue"} {
							f := models.FollowUpFilter{Sort: sort, Status: status, Owner: owner, Factor: factor, Due: due, Now: now, Limit: 1000}
							whole, counts, err := s.ListFollowUps(ctx, f)
							if err != nil {
								t.Fatal(err)
							}
							if int64(len(whole)) != counts.Total {
								t.Fatalf("%+v: whole list of %d, total %d", f, len(whole), counts.Total)
							}
							for offset := 0; offset < len(whole)+5; offset += 5 {
								f.Limit, f.Offset = 5, offset
								page, _, err := s.ListFollowUps(ctx, f)
								if err != nil {
									t.Fatal(err)
								}
								want := ids(whole[min(offset, len(whole)):min(offset+5, len(whole))])
								if got := ids(page); !slices.Equal(got, want) {
									t.Fatalf("%+v: page %v, whole list has %v there", f, got, want)
								}
								if len(page) > 0 && (page[0].Incident == nil || page[0].Incident.Title == "") {
									t.Fatalf("%+v: page without its incidents", f)
								}
							}
						}
					}
				}
			}
		}
	})
}
