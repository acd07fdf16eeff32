package models_test

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// followUpCountsWanted is what the kept follow-up totals must hold, computed from the follow-ups
// themselves: overall, per factor, per service.
const (
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

// TestFollowUpCountsFollowEveryChange checks the follow-up totals the store keeps in memory
// against the follow-ups themselves after every kind of change: creates with factors,
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
			got, err := s.KeptFollowUpCounts(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := followUpCountRows(t, db, followUpCountsWanted)
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
		if err := s.RestoreIncident(ctx, incidents[2], time.Now()); err != nil {
			t.Fatal(err)
		}
		check("incident restored")
		if err := s.DeleteFollowUp(ctx, followUps[3].IncidentID, followUps[3].ID); err != nil {
			t.Fatal(err)
		}
		check("follow-up deleted")
		for _, step := range []struct {
			q       string
			touched []int64
		}{
			{`DELETE FROM follow_up_factors WHERE follow_up_id = ` + fmt.Sprint(followUps[1].ID), []int64{followUps[1].IncidentID}},
			{`UPDATE follow_ups SET incident_id = ` + fmt.Sprint(incidents[0]) + ` WHERE id = ` + fmt.Sprint(followUps[5].ID), []int64{incidents[0], followUps[5].IncidentID}},
			{`DELETE FROM incident_services WHERE incident_id = ` + fmt.Sprint(incidents[3]), []int64{incidents[3]}},
			{`DELETE FROM incidents WHERE id = ` + fmt.Sprint(incidents[0]), []int64{incidents[0]}},
		} {
			sqlAndRecord(t, db, append([]string{step.q}, s.ChangesSQL(true, false, false, step.touched...)...))
			check(step.q)
		}
		if err := s.DeleteFactor(ctx, factorID(t, s, "health-checks-removed-capacity")); err != nil {
			t.Fatal(err)
		}
		check("factor deleted")
		if err := s.DeleteIncident(ctx, incidents[1]); err != nil {
			t.Fatal(err)
		}
		sqlAndRecord(t, db, append([]string{`DELETE FROM incidents WHERE id = ` + fmt.Sprint(incidents[1])}, s.ChangesSQL(true, false, false, incidents[1])...))
		check("deleted incident removed for good")

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

// sqlAndRecord runs statements in one transaction, as another program writing through its own
// store would.
func sqlAndRecord(t *testing.T, db *sql.DB, statements []string) {
	t.Helper()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range statements {
		if _, err := tx.Exec(q); err != nil {
			tx.Rollback()
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// factorID finds a factor of the taxonomy by its slug.
func factorID(t *testing.T, s *models.Store, slug string) int64 {
	t.Helper()
	factors, err := s.ListFactors(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range factors {
		if f.Slug == slug {
			return f.ID
		}
	}
	t.Fatalf("no factor %q", slug)
	return 0
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

// TestEveryFollowUpFilterFieldIsCounted holds the follow-up totals kept in memory to the list's
// SQL: for every field of FollowUpFilter, set alone and beside a factor or a service, the counts
// must equal what the list itself returns. A field added to the filter without a value here, or
// without its test in FollowUpFilter.matchesColumns, fails.
func TestEveryFollowUpFilterFieldIsCounted(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		storetest.Fill(t, s, 60)
		storetest.FillFollowUps(t, s, 3)
		// The fill's due dates run from June to December 2025.
		now := time.Date(2025, 10, 1, 9, 0, 0, 0, time.UTC)
		values := map[string]any{
			"Owner": "Gateway team", "Mine": []string{"Gateway team", "sre@example.com"}, "Status": "active",
			"Kind": "detect", "Priority": "p1", "Service": "Router", "Factor": "retry-amplification",
			"Due": []string{"overdue", "week", "none"},
			// An account's follow-ups: none of the fill's carry an account, so they are chosen by
			// the owner text of follow-ups without one (OwnerNames, which only OwnerID reads).
			"OwnerID": int64(1), "OwnerNames": []string{"Gateway team"},
		}
		notFilters := map[string]bool{"Sort": true, "Limit": true, "Offset": true, "Now": true}
		typ := reflect.TypeOf(models.FollowUpFilter{})
		for i := range typ.NumField() {
			name := typ.Field(i).Name
			if notFilters[name] {
				continue
			}
			v, ok := values[name]
			if !ok {
				t.Fatalf("FollowUpFilter.%s has no value in this test: give it one, and count it in matchesColumns", name)
			}
			var settings []reflect.Value
			if list, ok := v.([]string); ok && name == "Due" {
				for _, d := range list {
					settings = append(settings, reflect.ValueOf(d))
				}
			} else {
				settings = append(settings, reflect.ValueOf(v))
			}
			for _, setting := range settings {
				for _, beside := range []models.FollowUpFilter{{}, {Factor: "cold-caches"}, {Service: "Orchestrator"}} {
					f := beside
					reflect.ValueOf(&f).Elem().FieldByName(name).Set(setting)
					if name == "OwnerID" {
						f.OwnerNames = values["OwnerNames"].([]string)
					}
					f.Now, f.Limit = now, 100000
					_, counts, err := s.ListFollowUps(ctx, f)
					if err != nil {
						t.Fatal(err)
					}
					all := f
					all.Status = ""
					items, _, err := s.ListFollowUps(ctx, all)
					if err != nil {
						t.Fatal(err)
					}
					want := models.FollowUpCounts{ByStatus: map[string]int64{}}
					for _, u := range items {
						want.ByStatus[u.Status]++
						active := u.Status == "open" || u.Status == "in_progress"
						if active && u.DueOn != nil && u.DueOn.Before(now.Truncate(24*time.Hour)) {
							want.Overdue++
						}
						if active && u.Owner == "" {
							want.Unowned++
						}
						if f.Status == "" || f.Status == u.Status || f.Status == "active" && active {
							want.Total++
						}
					}
					if !maps.Equal(counts.ByStatus, want.ByStatus) || counts.Overdue != want.Overdue || counts.Unowned != want.Unowned || counts.Total != want.Total {
						t.Errorf("%s=%v beside %+v: kept counts %+v, the list holds %+v", name, setting, beside, counts, want)
					}
					if want.Total == 0 && beside.Factor == "" && beside.Service == "" {
						t.Errorf("%s=%v beside %+v matches nothing: the test proves nothing", name, setting, beside)
					}
				}
			}
		}
	})
}
