package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"gorm.io/gorm"
)

// The insights' SQL: the filter as a WHERE clause, the columnar reads of incidents, first public
// updates and impact windows, and joining them into one row per incident.

// How many incidents the insights list by name unless the filter asks for more.
const (
	SlowestListed    = 10
	MaxInvalidListed = 50
)

// insightRow is one incident as the insights read it: milestones as Unix seconds, narrow enough
// that 100,000 of them fit in 9 MB.
type insightRow struct {
	id                                                                int64
	started, detected, acknowledged, mitigated, resolved, firstUpdate instant
	impactSeconds                                                     int64
	severity                                                          uint8 // index into Severities, or len(Severities) for anything else
	method                                                            uint8 // index into DetectionMethods, or len(DetectionMethods) for unknown
	impact                                                            uint8 // impactNone and the rest
	nearMiss                                                          bool  // read by the store's copy only
	// days has a bit per milestone known only to the day (dayStarted and the rest): a figure
	// measured from or to one is approximate, counted apart from the numbers.
	days uint8

	// The store's copy (insightTable), which filters in Go, keeps what the SQL filter compares:
	// the start as the database compares it with a period's bounds (Unix seconds on SQLite,
	// microseconds on PostgreSQL), and the detection method's code with no method recorded ("")
	// told apart from a value that is not one of DetectionMethods.
	startKey   instant
	methodCode uint8 // index into DetectionMethods, methodNone or methodOther
}

// instant is a milestone in Unix seconds, or unknown.
type instant int64

const unknown instant = math.MinInt64

// The impact of one incident, from its windows.
const (
	impactNone     uint8 = iota // no window
	impactRecorded              // the union of its windows
	impactOngoing               // a window has no end, and neither mitigation nor resolution is known
	impactInvalid               // a window ends before it starts
)

// figure state of one incident for one figure.
const (
	notRecorded uint8 = iota
	valid
	invalidValue
	// approximateValue is a figure measured from or to a milestone known only to the day: up to a
	// day out, which would swamp a median of minutes, so it is counted apart like an invalid one.
	approximateValue
)

// The bits of insightRow.days.
const (
	dayStarted uint8 = 1 << iota
	dayDetected
	dayAcknowledged
	dayMitigated
	dayResolved
)

// dayBits reads an incident's milestone_days ("triggered_at,started_at") as insightRow.days.
func dayBits(names string) uint8 {
	var bits uint8
	for name := range strings.SplitSeq(names, ",") {
		switch name {
		case "started_at":
			bits |= dayStarted
		case "detected_at":
			bits |= dayDetected
		case "acknowledged_at":
			bits |= dayAcknowledged
		case "mitigated_at":
			bits |= dayMitigated
		case "resolved_at":
			bits |= dayResolved
		}
	}
	return bits
}

// figureDays are the day bits each figure of InsightFigures is measured between. The impact
// time is measured between impact windows' own times, which are always typed to the minute.
var figureDays = []uint8{dayStarted | dayDetected, dayStarted | dayAcknowledged, dayStarted | dayMitigated,
	dayStarted | dayResolved, 0, dayStarted}

func spanSeconds(from, to instant) (int64, uint8) {
	if from == unknown || to == unknown {
		return 0, notRecorded
	}
	d := int64(to - from)
	if d < 0 {
		return d, invalidValue
	}
	return d, valid
}

// value returns the incident's figure number n of InsightFigures, approximateValue for a valid
// one measured from or to a milestone known only to the day.
func (r *insightRow) value(n int) (int64, uint8) {
	v, state := r.exactValue(n)
	if state == valid && r.days&figureDays[n] != 0 {
		return v, approximateValue
	}
	return v, state
}

func (r *insightRow) exactValue(n int) (int64, uint8) {
	switch n {
	case 0:
		return spanSeconds(r.started, r.detected)
	case 1:
		return spanSeconds(r.started, r.acknowledged)
	case 2:
		return spanSeconds(r.started, r.mitigated)
	case 3:
		return spanSeconds(r.started, r.resolved)
	case 4:
		switch r.impact {
		case impactRecorded:
			return r.impactSeconds, valid
		case impactInvalid:
			return r.impactSeconds, invalidValue
		}
		return 0, notRecorded
	default:
		return spanSeconds(r.started, r.firstUpdate)
	}
}

// epoch writes a column as whole Unix seconds, in the dialect's words. On SQLite the expression
// is exactly the one migration 00002 indexes, so the value is read from the index, not computed.
func (s *Store) epoch(column string) string {
	if s.dialect == "postgres" {
		return "CAST(EXTRACT(EPOCH FROM " + column + ") AS BIGINT)"
	}
	return "unixepoch(" + column + ")"
}

// indexedBy names the index a SQLite scan must read. SQLite's planner prefers the table for an
// unfiltered scan, not counting the date parsing the covering expression index saves.
func (s *Store) indexedBy(index string) string {
	if s.dialect == "postgres" {
		return ""
	}
	return " INDEXED BY " + index
}

// codeCase maps an enumerated column to its position in values (len(values) for anything else),
// so the query returns a small integer instead of a string per row.
func codeCase(column string, values []string) string {
	var b strings.Builder
	b.WriteString("CASE " + column)
	for n, v := range values {
		fmt.Fprintf(&b, " WHEN '%s' THEN %d", v, n)
	}
	fmt.Fprintf(&b, " ELSE %d END", len(values))
	return b.String()
}

// insightsWhere is the filter as SQL over incidents aliased i, with its arguments, and whether it
// narrows anything beyond leaving deleted incidents out.
func (s *Store) insightsWhere(f InsightsFilter) (string, []any, bool) {
	where := []string{"i.deleted_at IS NULL"}
	var args []any
	// SQLite compares the indexed Unix seconds; PostgreSQL the column, which its index holds.
	started, bound := s.epoch("i.started_at"), func(t *time.Time) any { return t.Unix() }
	if s.dialect == "postgres" {
		started, bound = "i.started_at", func(t *time.Time) any { return t.UTC() }
	}
	if f.From != nil {
		where, args = append(where, started+" >= ?"), append(args, bound(f.From))
	}
	if f.To != nil {
		where, args = append(where, started+" < ?"), append(args, bound(f.To))
	}
	if f.Severity != "" {
		where, args = append(where, "i.severity = ?"), append(args, f.Severity)
	}
	if f.DetectionMethod == DetectionUnknown {
		where = append(where, "i.detection_method = ''")
	} else if f.DetectionMethod != "" {
		where, args = append(where, "i.detection_method = ?"), append(args, f.DetectionMethod)
	}
	if f.Service != "" {
		where = append(where, "i.id IN (SELECT incident_id FROM incident_services JOIN services ON services.id = incident_services.service_id WHERE services.name = ?)")
		args = append(args, f.Service)
	}
	if f.Region != "" {
		where = append(where, "i.id IN (SELECT incident_id FROM incident_regions JOIN regions ON regions.id = incident_regions.region_id WHERE regions.name = ?)")
		args = append(args, f.Region)
	}
	if f.Factor != "" {
		where = append(where, "i.id IN (SELECT incident_id FROM incident_factors JOIN factors ON factors.id = incident_factors.factor_id WHERE factors.slug = ?)")
		args = append(args, f.Factor)
	}
	if f.Sources == SourcesMachine {
		// Every recorded milestone has a machine's source, and the start is recorded: a figure
		// is measured from it.
		where = append(where, "i.started_at IS NOT NULL")
		for _, name := range MilestoneNames {
			where = append(where, "(i."+name+" IS NULL OR EXISTS (SELECT 1 FROM milestone_sources ms WHERE ms.incident_id = i.id AND ms.milestone = '"+name+"' AND ms.kind IN ('imported', 'alert')))")
		}
	}
	switch f.NearMisses {
	case NearMissesInclude:
	case NearMissesOnly:
		where = append(where, "i.near_miss")
	default:
		where = append(where, "NOT i.near_miss")
	}
	return strings.Join(where, " AND "), args, len(where) > 1
}

// countNearMisses counts the near misses a filter leaves out of the figures: those the rest of it
// chooses, when it leaves near misses out.
func (s *Store) countNearMisses(ctx context.Context, f InsightsFilter) (int, error) {
	if f.NearMisses != "" {
		return 0, nil
	}
	f.NearMisses = NearMissesOnly
	where, args, _ := s.insightsWhere(f)
	var n int64
	if err := s.scan.WithContext(ctx).Raw("SELECT COUNT(*) FROM incidents i WHERE "+where, args...).Row().Scan(&n); err != nil {
		return 0, fmt.Errorf("count near misses: %w", err)
	}
	return int(n), nil
}

// ComputeInsights aggregates the figures of the incidents a filter chooses, without the cache
// that Insights serves from. It reads one narrow row per incident, and beside it each incident's
// first public update and its impact windows, then computes every number in Go: SQLite and
// PostgreSQL give the same answers to the second.
func (s *Store) ComputeInsights(ctx context.Context, f InsightsFilter) (*Insights, error) {
	f = f.normalized()
	where, args, narrowed := s.insightsWhere(f)
	// Four reads at once, each on its own connection: the incidents in two halves, their first
	// public updates, their impact windows. Pure-Go SQLite spends about 100 ns on every value it
	// hands over, so on two cores this halves the wait.
	const halves = 2
	var (
		wg      sync.WaitGroup
		parts   [halves][]insightRow
		firsts  []idValue
		windows []idWindow
		errs    [halves + 2]error
	)
	wg.Add(halves + 2)
	for half := range halves {
		go func() {
			defer wg.Done()
			errs[half] = Safely(func() (err error) {
				parts[half], err = s.readInsightRows(ctx, where, args, half, halves)
				return err
			})
		}()
	}
	go func() {
		defer wg.Done()
		errs[halves] = Safely(func() (err error) {
			firsts, err = s.readFirstUpdates(ctx, where, args, narrowed)
			return err
		})
	}()
	go func() {
		defer wg.Done()
		errs[halves+1] = Safely(func() (err error) {
			windows, err = s.readWindows(ctx, where, args, narrowed)
			return err
		})
	}()
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	rows := sortByID(slices.Concat(parts[:]...))
	if len(rows) > MaxInsightIncidents {
		return nil, fmt.Errorf("insights over %d incidents: more than %d at once: %w", len(rows), MaxInsightIncidents, ErrTooMany)
	}
	joinFirstUpdates(rows, firsts)
	joinWindows(rows, windows)
	g, err := s.groupsOf(ctx, rows, f.GroupBy, where, args)
	if err != nil {
		return nil, err
	}
	out := aggregate(rows, f, g, nil)
	if err := s.nameIncidents(ctx, out); err != nil {
		return nil, err
	}
	if out.NearMisses, err = s.countNearMisses(ctx, f); err != nil {
		return nil, err
	}
	return out, nil
}

// readIntColumns reads a query's integer columns, NULL as unknown, column by column. The result
// comes back as one row holding a comma-separated list per column: drawing 100,000 rows one at a
// time through database/sql costs more than the scan itself (on the pure-Go SQLite a lock, a type
// switch and an allocation for every value), where a list per column costs one string. Every
// aggregate of one query steps through the same rows in the same order, so the lists line up;
// PostgreSQL's parallel workers combine their partial lists tuple by tuple, which keeps them so.
func (s *Store) readIntColumns(ctx context.Context, what string, q columnsQuery, args []any) ([][]int64, error) {
	return readIntColumnsOf(ctx, s.scan, s.dialect, what, q, args)
}

// readIntColumnsOf is readIntColumns through db: the store's pool or a transaction.
func readIntColumnsOf(ctx context.Context, db *gorm.DB, dialect, what string, q columnsQuery, args []any) ([][]int64, error) {
	cols := make([][]int64, len(q.exprs))
	row := db.WithContext(ctx).Raw(columnsSQL(dialect, q), args...).Row()
	texts := make([]sql.NullString, len(q.exprs))
	ptrs := make([]any, len(q.exprs))
	for n := range texts {
		ptrs[n] = &texts[n]
	}
	if err := row.Scan(ptrs...); err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	for n, t := range texts {
		if !t.Valid { // no rows at all
			continue
		}
		var err error
		if cols[n], err = parseIntList(t.String); err != nil {
			return nil, fmt.Errorf("read %s: %w", what, err)
		}
		if len(cols[n]) != len(cols[0]) {
			return nil, fmt.Errorf("read %s: column %d has %d values, column 0 has %d", what, n, len(cols[n]), len(cols[0]))
		}
	}
	return cols, nil
}

// columnsQuery is a read of integer columns: their expressions, and the FROM clause onwards.
type columnsQuery struct {
	exprs []string
	from  string
}

// columnsSQL aggregates each column into one list, in the dialect's words.
func columnsSQL(dialect string, q columnsQuery) string {
	lists := make([]string, len(q.exprs))
	for n, e := range q.exprs {
		if dialect == "postgres" {
			lists[n] = "string_agg(COALESCE(CAST(" + e + " AS TEXT), ''), ',')"
		} else {
			lists[n] = "group_concat(ifnull(" + e + ", ''))"
		}
	}
	return "SELECT " + strings.Join(lists, ", ") + " FROM " + q.from
}

// parseIntList reads "12,,-3" as 12, unknown, -3.
func parseIntList(list string) ([]int64, error) {
	out := make([]int64, 0, strings.Count(list, ",")+1)
	var v int64
	digits, negative := 0, false
	for i := 0; i <= len(list); i++ {
		if i == len(list) || list[i] == ',' {
			switch {
			case digits == 0:
				out = append(out, int64(unknown))
			case negative:
				out = append(out, -v)
			default:
				out = append(out, v)
			}
			v, digits, negative = 0, 0, false
			continue
		}
		c := list[i]
		switch {
		case c >= '0' && c <= '9':
			v = v*10 + int64(c-'0')
			digits++
		case c == '-' && digits == 0 && !negative:
			negative = true
		default:
			return nil, fmt.Errorf("not an integer list at byte %d: %q", i, c)
		}
	}
	return out, nil
}

// readInsightRows is the one narrow query the insights are computed from: per incident its id,
// its severity and detection method as one small code, and its milestones as Unix seconds. It
// reads one part of the incidents, by id, so that several connections can share the work.
func (s *Store) readInsightRows(ctx context.Context, where string, args []any, part, parts int) ([]insightRow, error) {
	cols, err := s.readIntColumns(ctx, "insights", s.incidentsQuery(where, part, parts), args)
	if err != nil {
		return nil, err
	}
	rows := make([]insightRow, len(cols[0]))
	for n := range rows {
		rows[n] = insightRow{
			id: cols[0][n], severity: uint8(cols[1][n] >> 3), method: uint8(cols[1][n] & 7),
			started: instant(cols[2][n]), detected: instant(cols[3][n]), acknowledged: instant(cols[4][n]),
			mitigated: instant(cols[5][n]), resolved: instant(cols[6][n]), firstUpdate: unknown,
		}
	}
	cond := where + fmt.Sprintf(" AND i.id %% %d = %d", parts, part)
	if err := readMilestoneDays(ctx, s.scan, rows, cond, args); err != nil {
		return nil, err
	}
	return rows, nil
}

// readMilestoneDays marks the rows' milestones known only to the day. Those incidents are few,
// and the column is outside the covering index: their ids come through the partial index of
// migration 00037. cond is over incidents aliased i.
func readMilestoneDays(ctx context.Context, db *gorm.DB, rows []insightRow, cond string, args []any) error {
	var days []struct {
		ID            int64
		MilestoneDays string
	}
	q := "SELECT i.id, i.milestone_days FROM incidents i WHERE i.milestone_days <> '' AND i.deleted_at IS NULL AND " + cond
	if err := db.WithContext(ctx).Raw(q, args...).Scan(&days).Error; err != nil {
		return fmt.Errorf("read milestones known to the day: %w", err)
	}
	if len(days) == 0 {
		return nil
	}
	bits := make(map[int64]uint8, len(days))
	for _, d := range days {
		bits[d.ID] = dayBits(d.MilestoneDays)
	}
	for n := range rows {
		rows[n].days = bits[rows[n].id]
	}
	return nil
}

func (s *Store) incidentsQuery(where string, part, parts int) columnsQuery {
	codes := "(" + codeCase("i.severity", Severities) + ") * 8 + " + codeCase("i.detection_method", DetectionMethods)
	return columnsQuery{
		exprs: []string{"i.id", codes, s.epoch("i.started_at"), s.epoch("i.detected_at"), s.epoch("i.acknowledged_at"),
			s.epoch("i.mitigated_at"), s.epoch("i.resolved_at")},
		from: "incidents i" + s.indexedBy("incidents_insights_idx") + " WHERE " + where + fmt.Sprintf(" AND i.id %% %d = %d", parts, part),
	}
}

type idValue struct{ id, value int64 }

type idWindow struct {
	id       int64
	from, to int64
	open     bool // no end recorded
}

// childFilter restricts a read of timelines or windows to the chosen incidents. Unfiltered, it
// reads them all, and the merge skips those of deleted incidents: cheaper than a join.
func childFilter(where string, args []any, narrowed bool) (string, []any) {
	if !narrowed {
		return "", nil
	}
	return " AND incident_id IN (SELECT i.id FROM incidents i WHERE " + where + ")", args
}

// readFirstUpdates reads each incident's first public status update, in incident order.
func (s *Store) readFirstUpdates(ctx context.Context, where string, args []any, narrowed bool) ([]idValue, error) {
	filter, args := childFilter(where, args, narrowed)
	return s.readFirstUpdatesOf(ctx, s.scan, args, filter)
}

// readFirstUpdatesOf reads the first public status updates of the incidents the filters (" AND …"
// over timeline_events, or "") choose, in incident order, through db: the store's pool or a
// transaction.
func (s *Store) readFirstUpdatesOf(ctx context.Context, db *gorm.DB, args []any, filters ...string) ([]idValue, error) {
	cols, err := readIntColumnsOf(ctx, db, s.dialect, "first public updates", s.firstUpdatesQuery(filters...), args)
	if err != nil {
		return nil, err
	}
	out := make([]idValue, len(cols[0]))
	for n := range out {
		out[n] = idValue{cols[0][n], cols[1][n]}
	}
	slices.SortFunc(out, func(a, b idValue) int { return cmpInt64(a.id, b.id) })
	return out, nil
}

// firstUpdatesQuery reads the first public updates of the incidents each filter chooses, one
// after the other: SQLite searches its index for each of several ranges of incident ids only when
// they are apart, not joined by OR.
func (s *Store) firstUpdatesQuery(filters ...string) columnsQuery {
	arms := make([]string, len(filters))
	for n, filter := range filters {
		arms[n] = `SELECT incident_id, MIN(` + s.epoch("at") + `) AS first_at FROM timeline_events` + s.indexedBy("timeline_events_public_updates_idx") + `
			WHERE kind = 'status_update' AND public` + filter + ` GROUP BY incident_id`
	}
	return columnsQuery{
		exprs: []string{"incident_id", "first_at"},
		from:  "(" + strings.Join(arms, " UNION ALL ") + ") firsts",
	}
}

// readWindows reads the impact windows, in incident order.
func (s *Store) readWindows(ctx context.Context, where string, args []any, narrowed bool) ([]idWindow, error) {
	filter, args := childFilter(where, args, narrowed)
	return s.readWindowsOf(ctx, s.scan, filter, args)
}

// readWindowsOf reads the impact windows of the incidents filter (" AND …" over impact_windows, or
// "") chooses, in incident order, through db.
func (s *Store) readWindowsOf(ctx context.Context, db *gorm.DB, filter string, args []any) ([]idWindow, error) {
	cols, err := readIntColumnsOf(ctx, db, s.dialect, "impact windows", s.windowsQuery(filter), args)
	if err != nil {
		return nil, err
	}
	out := make([]idWindow, len(cols[0]))
	for n := range out {
		out[n] = idWindow{id: cols[0][n], from: cols[1][n], to: cols[2][n], open: cols[2][n] == int64(unknown)}
	}
	slices.SortFunc(out, func(a, b idWindow) int { return cmpInt64(a.id, b.id) })
	return out, nil
}

func (s *Store) windowsQuery(filter string) columnsQuery {
	return columnsQuery{
		exprs: []string{"incident_id", s.epoch("started_at"), s.epoch("ended_at")},
		from:  "impact_windows" + s.indexedBy("impact_windows_insights_idx") + " WHERE TRUE" + filter,
	}
}

// ExplainInsights returns the database's plan for each read of the insights, so tests can prove
// they are served by the indexes of migration 00002.
func (s *Store) ExplainInsights(ctx context.Context, f InsightsFilter) (map[string]string, error) {
	where, args, narrowed := s.insightsWhere(f)
	filter, childArgs := childFilter(where, args, narrowed)
	queries := map[string]struct {
		q    columnsQuery
		args []any
	}{
		"incidents":            {s.incidentsQuery(where, 0, 2), args},
		"first public updates": {s.firstUpdatesQuery(filter), childArgs},
		"impact windows":       {s.windowsQuery(filter), childArgs},
	}
	return s.explainColumns(ctx, queries)
}

// explainColumns returns the database's plan of each read of integer columns, by name.
func (s *Store) explainColumns(ctx context.Context, queries map[string]struct {
	q    columnsQuery
	args []any
}) (map[string]string, error) {
	prefix := "EXPLAIN QUERY PLAN "
	if s.dialect == "postgres" {
		prefix = "EXPLAIN "
	}
	plans := map[string]string{}
	for name, q := range queries {
		// On the requests' pool: a connection of the scan pool idle since before a migration plans
		// EXPLAIN with the schema it last read (a statement it runs checks the schema first).
		rows, err := s.read.WithContext(ctx).Raw(prefix+columnsSQL(s.dialect, q.q), q.args...).Rows()
		if err != nil {
			return nil, fmt.Errorf("explain %s: %w", name, err)
		}
		cols, err := rows.Columns()
		if err != nil {
			rows.Close()
			return nil, err
		}
		var plan strings.Builder
		for rows.Next() {
			values := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range values {
				ptrs[i] = &values[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				rows.Close()
				return nil, err
			}
			fmt.Fprintln(&plan, values[len(values)-1])
		}
		rows.Close()
		plans[name] = plan.String()
	}
	return plans, nil
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// sortByID puts the rows in id order, so the other reads, in incident order, join them by
// merging. Ids are mostly dense, so a slot per id sorts 100,000 rows in one pass; sparse ids are
// sorted by comparison.
func sortByID(rows []insightRow) []insightRow {
	if len(rows) < 2 {
		return rows
	}
	lo, hi := rows[0].id, rows[0].id
	for n := range rows {
		lo, hi = min(lo, rows[n].id), max(hi, rows[n].id)
	}
	if hi-lo >= int64(4*len(rows)+1024) {
		slices.SortFunc(rows, func(a, b insightRow) int { return cmpInt64(a.id, b.id) })
		return rows
	}
	slot := make([]int32, hi-lo+1) // row + 1, 0 for none
	for n := range rows {
		slot[rows[n].id-lo] = int32(n + 1)
	}
	sorted := make([]insightRow, 0, len(rows))
	for _, k := range slot {
		if k != 0 {
			sorted = append(sorted, rows[k-1])
		}
	}
	return sorted
}

// joinFirstUpdates merges the first updates, in incident order, into the rows, in id order.
func joinFirstUpdates(rows []insightRow, firsts []idValue) {
	n := 0
	for _, f := range firsts {
		for n < len(rows) && rows[n].id < f.id {
			n++
		}
		if n < len(rows) && rows[n].id == f.id {
			rows[n].firstUpdate = instant(f.value)
		}
	}
}

// joinWindows works out each incident's impact time from its windows, both in incident order.
func joinWindows(rows []insightRow, windows []idWindow) {
	n := 0
	var scratch []idWindow
	for start := 0; start < len(windows); {
		end := start + 1
		for end < len(windows) && windows[end].id == windows[start].id {
			end++
		}
		id := windows[start].id
		for n < len(rows) && rows[n].id < id {
			n++
		}
		if n < len(rows) && rows[n].id == id {
			scratch = setImpact(&rows[n], windows[start:end], scratch[:0])
		}
		start = end
	}
}

// setImpact works out an incident's impact time, the length of the union of its windows, the
// way ComputeMetrics does: an open window runs to mitigation, else resolution, else the impact is
// ongoing. kept is scratch space, returned for the next incident to reuse.
func setImpact(r *insightRow, windows []idWindow, kept []idWindow) []idWindow {
	r.impact = impactRecorded
	for _, w := range windows {
		if w.open {
			switch {
			case r.mitigated != unknown:
				w.to = int64(r.mitigated)
			case r.resolved != unknown:
				w.to = int64(r.resolved)
			default:
				r.impact = impactOngoing
				return kept
			}
		}
		if w.to < w.from {
			r.impact = impactInvalid
			continue
		}
		kept = append(kept, w)
	}
	slices.SortFunc(kept, func(a, b idWindow) int { return cmpInt64(a.from, b.from) })
	var total int64
	for n := 0; n < len(kept); {
		from, to := kept[n].from, kept[n].to
		n++
		for n < len(kept) && kept[n].from <= to {
			to = max(to, kept[n].to)
			n++
		}
		total += to - from
	}
	r.impactSeconds = total
	return kept
}
