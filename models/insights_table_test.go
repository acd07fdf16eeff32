package models_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// TestInsightsSeeEveryChange keeps the insights of one store (a server process), which holds
// every incident's insight row in memory, while another store on the same database (another
// process), the store itself and plain SQL change incidents every way the insights can tell.
// After each change the store's insights, for filters of every kind, must equal a computation
// from scratch in SQL; and a change to a few incidents must be read again alone, not with all the
// others.
func TestInsightsSeeEveryChange(t *testing.T) {
	storetest.EachShared(t, func(t *testing.T, open func() *models.Store) {
		ctx := context.Background()
		reader, writer := open(), open()
		dialect := reader.Dialect()
		db, err := writer.SQLDB()
		if err != nil {
			t.Fatal(err)
		}
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := db.Exec(q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}

		// Sixty incidents in block 0 and three in each of nine blocks far apart, so that most
		// rows stay as they were while a few blocks change.
		storetest.Fill(t, writer, 60)
		base := time.Date(2025, 12, 20, 10, 0, 0, 0, time.UTC)
		spread := func(block, offset int64) int64 { return block*1024 + offset }
		services, regions := []string{"Orchestrator", "Router", "Action Center"}, []string{"Canada", "Europe", "US"}
		factors := []string{"cold-caches", "retry-amplification"}
		for n, block := range []int64{1, 2, 3, 5, 8, 13, 21, 34, 55} {
			for k, offset := range []int64{0, 500, 1023} {
				i := n*3 + k
				start := base.Add(-time.Duration(i) * 67 * time.Hour)
				var acknowledged any
				if k != 1 {
					acknowledged = start.Add(time.Duration(10+i) * time.Minute)
				}
				id := spread(block, offset)
				exec(`INSERT INTO incidents (id, title, severity, status, detection_method, time_zone, started_at, detected_at,
						acknowledged_at, mitigated_at, resolved_at, postmortem_state, version, created_at, updated_at)
						VALUES ($1, $2, $3, 'resolved', $4, 'UTC', $5, $6, $7, $8, $9, 'none', 1, $10, $10)`,
					id, fmt.Sprintf("Spread %d", id), models.Severities[i%4], models.DetectionMethods[i%5], start,
					start.Add(time.Duration(3+i)*time.Minute), acknowledged, start.Add(time.Duration(40+i)*time.Minute),
					start.Add(time.Duration(90+i)*time.Minute), base)
				exec(`INSERT INTO incident_services (incident_id, service_id) SELECT $1, id FROM services WHERE name = $2`, id, services[i%3])
				exec(`INSERT INTO incident_regions (incident_id, region_id) SELECT $1, id FROM regions WHERE name = $2`, id, regions[i%3])
				exec(`INSERT INTO incident_factors (incident_id, factor_id) SELECT $1, id FROM factors WHERE slug = $2`, id, factors[i%2])
			}
		}
		enrich(t, writer)

		from := time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)
		to := base.Add(700 * time.Millisecond)
		beforeFraction := base.Add(300 * time.Millisecond)
		filters := []models.InsightsFilter{
			{}, {GroupBy: "service"}, {GroupBy: "region"}, {GroupBy: "factor"}, {GroupBy: "detection_method", Interval: "quarter"},
			{Service: "Router"}, {Region: "Canada", GroupBy: "factor"}, {Factor: "cold-caches", GroupBy: "service"},
			{Factor: "caches-cold"}, {Severity: "sev2"}, {DetectionMethod: models.DetectionUnknown},
			{DetectionMethod: "customer_report", GroupBy: "region"}, {From: &from}, {From: &from, To: &to, GroupBy: "service"},
			{From: &beforeFraction}, {To: &to}, {Severity: "sev1", Service: "Orchestrator", From: &from},
			// Values no form offers, which the store's copy does not keep: computed from SQL.
			{Severity: "sev9"}, {DetectionMethod: "pager"},
		}
		for n := range filters {
			filters[n].KeepValues = models.StripPlotLimit
		}
		same := func(step string, got, want *models.Insights, f models.InsightsFilter) {
			t.Helper()
			if reflect.DeepEqual(got, want) {
				return
			}
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			at := 0
			for at < len(g) && at < len(w) && g[at] == w[at] {
				at++
			}
			from := max(0, at-200)
			t.Fatalf("after %s, filter %+v: the insights differ from a computation from scratch at byte %d:\n got …%s\nwant …%s",
				step, f, at, g[from:min(len(g), at+200)], w[from:min(len(w), at+200)])
		}
		// What a step should make the store read again: everything, some blocks, or nothing
		// but the counters.
		type reads int
		const (
			whole reads = iota
			some
			none
			anything
		)
		check := func(step string, want reads) {
			t.Helper()
			wholeBefore, partBefore, blocksBefore := reader.InsightRowReads()
			for _, f := range filters {
				got, err := reader.Insights(ctx, f)
				if err != nil {
					t.Fatalf("after %s: %v", step, err)
				}
				fresh, err := reader.ComputeInsights(ctx, f)
				if err != nil {
					t.Fatalf("after %s: %v", step, err)
				}
				same(step, got, fresh, f)
			}
			wholeAfter, partAfter, blocksAfter := reader.InsightRowReads()
			wholes, parts, blocks := wholeAfter-wholeBefore, partAfter-partBefore, blocksAfter-blocksBefore
			switch {
			case want == whole && wholes != 1:
				t.Errorf("after %s the store read every incident %d times, want once", step, wholes)
			case want == some && (wholes != 0 || parts != 1 || blocks < 1 || blocks > 2):
				t.Errorf("after %s the store read everything %d times and %d blocks in %d parts; want one or two blocks once", step, wholes, blocks, parts)
			case want == none && (wholes != 0 || blocks != 0):
				t.Errorf("after %s the store read everything %d times and %d blocks; want none", step, wholes, blocks)
			}
		}
		check("the first request", whole)

		start := base.Add(-30 * 24 * time.Hour)
		created, err := writer.CreateIncident(ctx, models.IncidentInput{
			Title: "Router degraded", Severity: "sev2", Status: "resolved", DetectionMethod: "customer_report", TimeZone: "UTC",
			PostmortemState: "none", Services: []string{"Router", "Billing"}, Regions: []string{"Canada"}, Factors: []string{"cold-caches"},
			Milestones: models.Milestones{StartedAt: &start, DetectedAt: ptr(start.Add(7 * time.Minute)), ResolvedAt: ptr(start.Add(2 * time.Hour))},
		}, models.Children{})
		if err != nil {
			t.Fatal(err)
		}
		check("an incident filed by another process", some)
		if _, err := writer.UpdateIncident(ctx, created.ID, created.Version, models.IncidentInput{
			Title: "Router down", Severity: "sev1", Status: "resolved", DetectionMethod: "automated_alert", TimeZone: "UTC",
			PostmortemState: "none", Services: []string{"Orchestrator"}, Regions: []string{"US", "Europe"}, Factors: []string{"retry-amplification"},
			Milestones: models.Milestones{StartedAt: &start, DetectedAt: ptr(start.Add(3 * time.Minute)), AcknowledgedAt: ptr(start.Add(4 * time.Minute)),
				MitigatedAt: ptr(start.Add(30 * time.Minute)), ResolvedAt: ptr(start.Add(time.Hour))},
		}, models.Children{}); err != nil {
			t.Fatal(err)
		}
		check("the incident edited by another process", some)
		update, err := writer.CreateEvent(ctx, created.ID, models.EventInput{At: start.Add(12 * time.Minute), Kind: "status_update", Status: "investigating", Public: true})
		if err != nil {
			t.Fatal(err)
		}
		check("a public status update", some)
		if _, err := writer.CreateEvent(ctx, created.ID, models.EventInput{At: start.Add(time.Minute), Kind: "note", Body: "Paged the router team."}); err != nil {
			t.Fatal(err)
		}
		check("a private note", none)
		if err := writer.UpdateEvent(ctx, created.ID, update.ID, models.EventInput{At: start.Add(9 * time.Minute), Kind: "status_update", Status: "identified", Public: true}); err != nil {
			t.Fatal(err)
		}
		check("the status update moved earlier", some)
		window, err := writer.CreateWindow(ctx, created.ID, models.WindowInput{StartedAt: start, EndedAt: ptr(start.Add(50 * time.Minute)), Level: "major_outage"})
		if err != nil {
			t.Fatal(err)
		}
		check("an impact window", some)
		if _, err := writer.CreateWindow(ctx, created.ID, models.WindowInput{StartedAt: start.Add(40 * time.Minute), Level: "degraded"}); err != nil {
			t.Fatal(err)
		}
		check("an open impact window", some)
		if err := writer.UpdateWindow(ctx, created.ID, window.ID, models.WindowInput{StartedAt: start.Add(5 * time.Minute), EndedAt: ptr(start.Add(20 * time.Minute)), Level: "partial_outage"}); err != nil {
			t.Fatal(err)
		}
		check("the impact window edited", some)
		if err := writer.DeleteWindow(ctx, created.ID, window.ID); err != nil {
			t.Fatal(err)
		}
		check("the impact window deleted", some)
		if err := writer.DeleteEvent(ctx, created.ID, update.ID); err != nil {
			t.Fatal(err)
		}
		check("the status update deleted", some)
		if _, err := reader.CreateEvent(ctx, spread(13, 500), models.EventInput{At: base.Add(-1000 * time.Hour), Kind: "status_update", Status: "resolved", Public: true}); err != nil {
			t.Fatal(err)
		}
		check("a status update through the store itself", some)

		for _, step := range []struct {
			sql  string
			want reads
			// PostgreSQL's search documents keep a foreign key to the incident's id.
			sqliteOnly bool
			// What the store's write path records for it (changes.go): the incidents it names,
			// or the rows for shared names and for everything.
			ids                []int64
			shared, everything bool
		}{
			{sql: fmt.Sprintf("UPDATE incidents SET title = 'Renamed' WHERE id = %d", spread(2, 0)), want: none, ids: []int64{spread(2, 0)}},
			{sql: fmt.Sprintf("UPDATE incidents SET detection_method = '' WHERE id = %d", spread(3, 0)), want: some, ids: []int64{spread(3, 0)}},
			{sql: fmt.Sprintf("UPDATE incidents SET detection_method = 'pager' WHERE id = %d", spread(3, 500)), want: some, ids: []int64{spread(3, 500)}},
			{sql: fmt.Sprintf("UPDATE incidents SET severity = 'sev9' WHERE id = %d", spread(5, 0)), want: some, ids: []int64{spread(5, 0)}},
			{sql: fmt.Sprintf("UPDATE incidents SET started_at = '2025-12-20 10:00:00.6' WHERE id = %d", spread(1, 500)), want: some, ids: []int64{spread(1, 500)}},
			{sql: fmt.Sprintf("UPDATE incidents SET started_at = '2025-12-20 09:59:59.6' WHERE id = %d", spread(1, 1023)), want: some, ids: []int64{spread(1, 1023)}},
			{sql: fmt.Sprintf("UPDATE incidents SET detected_at = NULL, mitigated_at = started_at WHERE id = %d", spread(8, 0)), want: some, ids: []int64{spread(8, 0)}},
			{sql: fmt.Sprintf("UPDATE incidents SET resolved_at = '1990-01-01 00:00:00' WHERE id = %d", spread(8, 500)), want: some, ids: []int64{spread(8, 500)}},
			{sql: fmt.Sprintf("UPDATE timeline_events SET at = '2025-01-01 00:00:00' WHERE incident_id = %d AND kind = 'status_update'", spread(5, 1023)), want: some, ids: []int64{spread(5, 1023)}},
			{sql: fmt.Sprintf("UPDATE timeline_events SET body = 'Edited.' WHERE incident_id = %d", spread(5, 1023)), want: none, ids: []int64{spread(5, 1023)}},
			{sql: fmt.Sprintf("UPDATE timeline_events SET public = FALSE WHERE incident_id = %d AND kind = 'status_update'", spread(13, 0)), want: some, ids: []int64{spread(13, 0)}},
			{sql: fmt.Sprintf("UPDATE timeline_events SET incident_id = %d WHERE incident_id = %d AND kind = 'status_update'", spread(21, 0), spread(13, 1023)), want: some, ids: []int64{spread(21, 0), spread(13, 1023)}},
			{sql: fmt.Sprintf("UPDATE timeline_events SET kind = 'status_update', public = TRUE WHERE incident_id = %d AND kind = 'alert'", spread(34, 0)), want: some, ids: []int64{spread(34, 0)}},
			{sql: fmt.Sprintf("UPDATE impact_windows SET ended_at = NULL WHERE incident_id = %d", spread(21, 500)), want: some, ids: []int64{spread(21, 500)}},
			{sql: fmt.Sprintf("UPDATE impact_windows SET started_at = '2025-01-01 00:00:00' WHERE incident_id = %d", spread(13, 500)), want: some, ids: []int64{spread(13, 500)}},
			{sql: fmt.Sprintf("UPDATE impact_windows SET note = 'Edited.' WHERE incident_id = %d", spread(13, 500)), want: none, ids: []int64{spread(13, 500)}},
			{sql: fmt.Sprintf("UPDATE impact_windows SET ended_at = '2000-01-01 00:00:00' WHERE incident_id = %d", spread(21, 1023)), want: some, ids: []int64{spread(21, 1023)}},
			{sql: fmt.Sprintf("DELETE FROM impact_windows WHERE incident_id = %d", spread(34, 500)), want: some, ids: []int64{spread(34, 500)}},
			{sql: fmt.Sprintf("DELETE FROM incident_services WHERE incident_id = %d", spread(34, 1023)), want: some, ids: []int64{spread(34, 1023)}},
			{sql: fmt.Sprintf("INSERT INTO incident_regions (incident_id, region_id) SELECT %d, id FROM regions WHERE name = 'US'", spread(55, 0)), want: some, ids: []int64{spread(55, 0)}},
			{sql: fmt.Sprintf("UPDATE incident_factors SET factor_id = (SELECT id FROM factors WHERE slug = 'cold-caches') WHERE incident_id = %d", spread(55, 500)), want: some, ids: []int64{spread(55, 500)}},
			{sql: "UPDATE services SET name = 'Router (renamed)' WHERE name = 'Router'", want: none, shared: true},
			{sql: "UPDATE factors SET slug = 'caches-cold' WHERE slug = 'cold-caches'", want: none, shared: true},
			{sql: "INSERT INTO services (name, created_at) VALUES ('Router', '2026-01-01 00:00:00')", want: none, shared: true},
			{sql: fmt.Sprintf(`INSERT INTO incidents (id, title, severity, status, detection_method, started_at, detected_at, created_at, updated_at)
					VALUES (%d, 'Far away', 'sev3', 'resolved', 'other', '2025-06-01 08:00:00', '2025-06-01 08:45:00', '2026-01-01 00:00:00', '2026-01-01 00:00:00')`, spread(89, 5)), want: some, ids: []int64{spread(89, 5)}},
			{sql: fmt.Sprintf("UPDATE incidents SET id = %d WHERE id = %d", spread(144, 1), spread(89, 5)), want: some, ids: []int64{spread(144, 1), spread(89, 5)}, sqliteOnly: true},
			{sql: fmt.Sprintf("UPDATE incidents SET deleted_at = '2026-01-02 00:00:00' WHERE id = %d", spread(55, 1023)), want: some, ids: []int64{spread(55, 1023)}},
			{sql: fmt.Sprintf("UPDATE incidents SET deleted_at = NULL WHERE id = %d", spread(55, 1023)), want: some, ids: []int64{spread(55, 1023)}},
			{sql: fmt.Sprintf("DELETE FROM incidents WHERE id = %d", spread(2, 500)), want: some, ids: []int64{spread(2, 500)}},
			{sql: "DELETE FROM regions WHERE name = 'Europe'", want: anything, everything: true},
			{sql: "UPDATE incidents SET acknowledged_at = detected_at WHERE acknowledged_at IS NULL", want: whole, everything: true},
		} {
			if step.sqliteOnly && dialect != "sqlite" {
				continue
			}
			inTx(t, db, append([]string{step.sql}, writer.ChangesSQL(step.want != none, step.shared, step.everything, step.ids...)...)...)
			check(step.sql, step.want)
		}
		if err := writer.DeleteIncident(ctx, created.ID); err != nil {
			t.Fatal(err)
		}
		check("an incident deleted by another process", some)

		// A transaction not yet committed is not seen; once committed it is.
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range append([]string{fmt.Sprintf("UPDATE incidents SET detected_at = started_at WHERE id = %d", spread(5, 500))},
			writer.ChangesSQL(true, false, false, spread(5, 500))...) {
			if _, err := tx.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		check("a change not yet committed", anything)
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		check("the change committed", some)

		if dialect == "postgres" {
			// A savepoint rolled back takes its record of the change with it.
			inTx(t, db, fmt.Sprintf("UPDATE incidents SET severity = 'sev4' WHERE id = %d", spread(8, 1023)),
				"SAVEPOINT a", fmt.Sprintf("UPDATE incidents SET severity = 'sev1' WHERE id = %d", spread(3, 1023)),
				writer.ChangesSQL(true, false, false, spread(3, 1023))[0], "ROLLBACK TO SAVEPOINT a",
				fmt.Sprintf("UPDATE incidents SET severity = 'sev3' WHERE id = %d", spread(8, 1023)),
				fmt.Sprintf("UPDATE incidents SET detected_at = started_at WHERE id = %d", spread(1, 0)),
				writer.ChangesSQL(true, false, false, spread(8, 1023), spread(1, 0))[0])
			check("a transaction with a savepoint rolled back", some)
		}

		// Another process reading everything from scratch sees the same.
		fresh := open()
		for _, f := range filters {
			got, err := reader.Insights(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			want, err := fresh.Insights(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			same("a fresh process read everything", got, want, f)
		}
	})
}

func ptr[T any](v T) *T { return &v }

// inTx runs statements in one transaction and commits it.
func inTx(t *testing.T, db *sql.DB, statements ...string) {
	t.Helper()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, q := range statements {
		if _, err := tx.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestInsightsUnderConcurrentWriters has two other stores (other processes) change incidents of
// several blocks at once, in transactions touching them in random orders, while a store keeps
// answering the insights. Once the writers stop, its answers must equal a computation from
// scratch; and no writer may fail, deadlocks included.
func TestInsightsUnderConcurrentWriters(t *testing.T) {
	storetest.EachShared(t, func(t *testing.T, open func() *models.Store) {
		ctx := context.Background()
		reader, writers := open(), []*models.Store{open(), open()}
		dialect := reader.Dialect()
		storetest.Fill(t, writers[0], 30)
		db, err := writers[0].SQLDB()
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]int64, 0, 70)
		for id := int64(1); id <= 30; id++ {
			ids = append(ids, id)
		}
		base := time.Date(2025, 11, 1, 9, 0, 0, 0, time.UTC)
		for block := int64(1); block <= 8; block++ {
			for k := int64(0); k < 5; k++ {
				id := block*1024 + k*200
				start := base.Add(-time.Duration(id) * time.Hour)
				if _, err := db.Exec(`INSERT INTO incidents (id, title, severity, status, detection_method, started_at, detected_at,
						resolved_at, created_at, updated_at) VALUES ($1, 'Spread', 'sev2', 'resolved', 'other', $2, $3, $4, $5, $5)`,
					id, start, start.Add(10*time.Minute), start.Add(2*time.Hour), base); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
		}
		enrich(t, writers[0])
		f := models.InsightsFilter{KeepValues: models.StripPlotLimit}
		if _, err := reader.Insights(ctx, f); err != nil {
			t.Fatal(err)
		}

		var (
			readers, writing sync.WaitGroup
			mu               sync.Mutex
			failures         []error
			stop             = make(chan struct{})
		)
		fail := func(err error) {
			mu.Lock()
			failures = append(failures, err)
			mu.Unlock()
		}
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := reader.Insights(ctx, f); err != nil {
					fail(fmt.Errorf("reader: %w", err))
					return
				}
			}
		})
		for w := range 4 {
			writing.Go(func() {
				db, err := writers[w%2].SQLDB()
				if err != nil {
					fail(err)
					return
				}
				random := rand.New(rand.NewPCG(uint64(w), 7))
				statements := []string{
					"UPDATE incidents SET detected_at = started_at + INTERVAL '%d minutes' WHERE id IN (%s)",
					"INSERT INTO timeline_events (incident_id, at, kind, status, body, public, created_at, updated_at) SELECT id, started_at + INTERVAL '%d minutes', 'status_update', 'identified', '', TRUE, created_at, created_at FROM incidents WHERE id IN (%s)",
					"UPDATE impact_windows SET ended_at = started_at + INTERVAL '%d minutes' WHERE incident_id IN (%s)",
				}
				for range 25 {
					// Each transaction writes up to three incidents, in any order. On SQLite it
					// takes the write lock first, as another process writing would.
					conn, err := db.Conn(ctx)
					if err != nil {
						fail(err)
						return
					}
					begin := "BEGIN"
					if dialect == "sqlite" {
						begin = "BEGIN IMMEDIATE"
					}
					queries := []string{begin}
					for range 1 + random.IntN(3) {
						chosen := fmt.Sprint(ids[random.IntN(len(ids))])
						if random.IntN(4) == 0 {
							chosen = fmt.Sprintf("%d, %d, %d", ids[random.IntN(len(ids))], ids[random.IntN(len(ids))], ids[random.IntN(len(ids))])
						}
						q := fmt.Sprintf(statements[random.IntN(len(statements))], 1+random.IntN(300), chosen)
						if dialect == "sqlite" {
							q = sqliteIntervals.ReplaceAllString(q, "datetime($1, '+$2 minutes')")
						}
						queries = append(queries, q)
					}
					queries = append(queries, writers[w%2].ChangesSQL(true, false, false, ids...)...)
					for _, q := range append(queries, "COMMIT") {
						if _, err := conn.ExecContext(ctx, q); err != nil {
							conn.ExecContext(ctx, "ROLLBACK")
							fail(fmt.Errorf("writer %d: %s: %w", w, q, err))
							break
						}
					}
					conn.Close()
				}
			})
		}
		writing.Wait()
		close(stop)
		readers.Wait()
		for _, err := range failures {
			t.Error(err)
		}
		for _, f := range []models.InsightsFilter{f, {GroupBy: "service", KeepValues: models.StripPlotLimit}, {Severity: "sev2", KeepValues: models.StripPlotLimit}} {
			got, err := reader.Insights(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			want, err := reader.ComputeInsights(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("filter %+v: after the writers stopped the insights differ from a computation from scratch", f)
			}
		}
	})
}

// sqliteIntervals finds "column + INTERVAL 'n minutes'", which SQLite writes datetime(column, '+n minutes').
var sqliteIntervals = regexp.MustCompile(`(\w+) \+ INTERVAL '(\d+) minutes'`)

// TestInsightBlockReadsUseTheirIndexes proves that reading blocks of incidents again searches each
// table by ranges of incident ids and scans none whole, on SQLite; on PostgreSQL, whose plans
// follow its statistics, that each read has a plan.
func TestInsightBlockReadsUseTheirIndexes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		storetest.Fill(t, s, 300)
		enrich(t, s)
		plans, err := s.ExplainInsightBlocks(context.Background(), []int64{0, 1, 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(plans) != 6 {
			t.Fatalf("%d plans, want 6: %v", len(plans), plans)
		}
		if s.Dialect() != "sqlite" {
			return
		}
		wholeScan := regexp.MustCompile(`SCAN (i|incidents|timeline_events|impact_windows|incident_services|incident_regions|incident_factors)\b`)
		for name, plan := range plans {
			if !strings.Contains(plan, "SEARCH") || wholeScan.MatchString(plan) {
				t.Errorf("%s: the plan does not search by incident:\n%s", name, plan)
			}
			t.Logf("%s:\n%s", name, plan)
		}
	})
}
