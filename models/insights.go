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

// InsightFigures are the figures the insights aggregate, in the order pages and the API show them.
var InsightFigures = []string{FigureDetect, FigureAcknowledge, FigureMitigate, FigureResolve, FigureImpact, FigureFirstUpdate}

// Insight groupings and trend intervals, as the filters name them.
var (
	InsightGroupings = []string{"severity", "detection_method", "service", "region", "factor"}
	InsightIntervals = []string{"month", "quarter"}
)

// DetectionUnknown is the filter and group value for incidents whose detection method nobody
// recorded (stored as an empty string).
const DetectionUnknown = "unknown"

// NoGroup is the group of incidents that carry no service, region or contributing factor.
const NoGroup = ""

// HistogramEdges split a figure's values into the bins the distribution charts show, in seconds:
// under 1 min, 1–5 min, 5–15 min, … and a week or more. The bins follow how responders talk
// about time, not a fixed width, because incident durations span four orders of magnitude.
var HistogramEdges = []int64{60, 300, 900, 1800, 3600, 7200, 14400, 28800, 86400, 259200, 604800}

// InsightsFilter chooses the incidents the insights cover. Empty fields do not filter.
type InsightsFilter struct {
	// From and To bound the start of impact: From inclusive, To exclusive. Incidents without a
	// start fall outside any bounded period.
	From, To        *time.Time
	Severity        string
	Service         string
	Region          string
	DetectionMethod string // a DetectionMethods value, or DetectionUnknown
	Factor          string // a contributing factor's slug
	Interval        string // "month" (default) or "quarter", for the trend
	GroupBy         string // an InsightGroupings value; "severity" by default
	// KeepValues keeps each group's sorted values when the group has at most this many, for strip
	// plots; 0 keeps none.
	KeepValues int
	// SlowestListed and InvalidListed bound the incidents listed by name; 0 means the defaults,
	// SlowestListed and MaxInvalidListed.
	SlowestListed, InvalidListed int
}

// Stats summarise one figure over a set of incidents. The seconds fields mean something only when
// N() > 0. Percentiles interpolate linearly between the closest ranks, as PostgreSQL's
// percentile_cont does.
type Stats struct {
	Figure   string
	Total    int // incidents in the set
	Recorded int // incidents whose figure has both milestones, invalid ones included
	Invalid  int // recorded but ending before it starts: counted here, left out of the numbers
	Min      float64
	P25      float64
	Median   float64
	Mean     float64
	P75      float64
	P90      float64
	Max      float64
	// Values are the aggregated values in seconds, ascending, when the filter asked to keep them.
	Values []int64
	// Histogram counts the aggregated values per HistogramEdges bin (overall figures only).
	Histogram []int
}

// N is how many values the numbers are computed from: recorded and valid.
func (s Stats) N() int { return s.Recorded - s.Invalid }

// NotRecorded is how many incidents lack a milestone the figure needs.
func (s Stats) NotRecorded() int { return s.Total - s.Recorded }

// InsightGroup is one group of incidents (a severity, a detection method, a service…) with its
// figures in InsightFigures order.
type InsightGroup struct {
	Key       string
	Incidents int
	Figures   []Stats
}

// Figure returns the group's stats for a figure name.
func (g InsightGroup) Figure(name string) Stats { return figureStats(g.Figures, name) }

// TrendPeriod is one month or quarter of the trend.
type TrendPeriod struct {
	Start     time.Time // first instant of the period, UTC
	Label     string    // "2026-03" or "2026-Q1"
	Incidents int
	Figures   []Stats
}

// Figure returns the period's stats for a figure name.
func (p TrendPeriod) Figure(name string) Stats { return figureStats(p.Figures, name) }

// IncidentRef is an incident named in the insights: a slow detection or an invalid figure.
type IncidentRef struct {
	ID              int64
	Title           string
	Severity        string
	DetectionMethod string
	StartedAt       *time.Time
	TimeZone        string
	// TimeToDetect is set for the slowest detections.
	TimeToDetect time.Duration
	// Invalid names the figures that end before they start.
	Invalid []string
}

// Insights are the figures of DESIGN §2 aggregated over the incidents a filter chooses.
type Insights struct {
	Filter    InsightsFilter
	Incidents int
	Figures   []Stats // InsightFigures order
	Trend     []TrendPeriod
	Groups    []InsightGroup // by Filter.GroupBy
	Detection []InsightGroup // by detection method, always: how incidents were found
	// Slowest are the longest valid detections, slowest first.
	Slowest []IncidentRef
	// InvalidIncidents lists incidents with an invalid figure, newest filed first, up to the
	// filter's InvalidListed; InvalidTotal counts them all.
	InvalidIncidents []IncidentRef
	InvalidTotal     int
}

// Figure returns the overall stats for a figure name.
func (in *Insights) Figure(name string) Stats { return figureStats(in.Figures, name) }

func figureStats(list []Stats, name string) Stats {
	for _, s := range list {
		if s.Figure == name {
			return s
		}
	}
	return Stats{Figure: name}
}

// ErrTooMany says a filter chose more incidents than one aggregate covers.
var ErrTooMany = errors.New("too many incidents")

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
)

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

// value returns the incident's figure number n of InsightFigures.
func (r *insightRow) value(n int) (int64, uint8) {
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
	return strings.Join(where, " AND "), args, len(where) > 1
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
	return out, nil
}

// readIntColumns reads a query's integer columns, NULL as unknown, column by column. The result
// comes back as one row holding a comma-separated list per column: drawing 100,000 rows one at a
// time through database/sql costs more than the scan itself (on the pure-Go SQLite a lock, a type
// switch and an allocation for every value), where a list per column costs one string. Every
// aggregate of one query steps through the same rows in the same order, so the lists line up;
// PostgreSQL's parallel workers combine their partial lists tuple by tuple, which keeps them so.
func (s *Store) readIntColumns(ctx context.Context, what string, q columnsQuery, args []any) ([][]int64, error) {
	return readIntColumnsOf(ctx, s.read, s.dialect, what, q, args)
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
	return rows, nil
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
	return s.readFirstUpdatesOf(ctx, s.read, args, filter)
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
	return s.readWindowsOf(ctx, s.read, filter, args)
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

// groups assigns incidents to groups, compressed: the groups of row n are
// ids[start[n]:start[n+1]], indexes into keys.
type groups struct {
	keys  []string
	start []int32
	ids   []int32
}

func (g *groups) of(n int) []int32 { return g.ids[g.start[n]:g.start[n+1]] }

// groupsOf assigns each row its groups: one severity or detection method, any number of services
// or regions, which a second narrow query reads.
func (s *Store) groupsOf(ctx context.Context, rows []insightRow, groupBy, where string, args []any) (groups, error) {
	switch groupBy {
	case "service", "region", "factor":
		return s.tagGroups(ctx, rows, groupBy, where, args)
	}
	return singleGroups(rows, groupBy), nil
}

// singleGroups puts each row in one group: its detection method, or else its severity.
func singleGroups(rows []insightRow, groupBy string) groups {
	single := func(keys []string, of func(r *insightRow) uint8) groups {
		g := groups{keys: keys, start: make([]int32, len(rows)+1), ids: make([]int32, len(rows))}
		for n := range rows {
			g.start[n+1] = int32(n + 1)
			g.ids[n] = int32(of(&rows[n]))
		}
		return g
	}
	if groupBy == "detection_method" {
		return single(append(slices.Clone(DetectionMethods), DetectionUnknown), func(r *insightRow) uint8 { return r.method })
	}
	return single(append(slices.Clone(Severities), "other"), func(r *insightRow) uint8 { return r.severity })
}

// tagGroups reads the services, regions or contributing factors of the chosen incidents. An
// incident counts once in each of its groups; those with none make a group of their own, last.
func (s *Store) tagGroups(ctx context.Context, rows []insightRow, groupBy, where string, args []any) (groups, error) {
	table, link, column := "services", "incident_services", "service_id"
	switch groupBy {
	case "region":
		table, link, column = "regions", "incident_regions", "region_id"
	case "factor":
		table, link, column = "factors", "incident_factors", "factor_id"
	}
	cols, err := s.readIntColumns(ctx, table, columnsQuery{
		exprs: []string{"l.incident_id", "l." + column},
		from:  link + " l JOIN incidents i ON i.id = l.incident_id WHERE " + where,
	}, args)
	if err != nil {
		return groups{}, err
	}
	links := make([]idValue, len(cols[0]))
	for n := range links {
		links[n] = idValue{cols[0][n], cols[1][n]}
	}
	slices.SortFunc(links, func(a, b idValue) int { return cmpInt64(a.id, b.id) })
	var tags []Service // a service, a region or a factor: each has an id and a name
	if err := s.read.WithContext(ctx).Table(table).Select("id", "name").Find(&tags).Error; err != nil {
		return groups{}, fmt.Errorf("read %s: %w", table, err)
	}
	names := make([]tagName, len(tags))
	for n, tag := range tags {
		names[n] = tagName{id: tag.ID, name: tag.Name}
	}
	g, position, none := startTagGroups(names, len(rows))
	k := 0
	for n := range rows {
		for k < len(links) && links[k].id < rows[n].id {
			k++
		}
		first := len(g.ids)
		for ; k < len(links) && links[k].id == rows[n].id; k++ {
			g.ids = append(g.ids, position[links[k].value])
		}
		if len(g.ids) == first {
			g.ids = append(g.ids, none)
		}
		g.start[n+1] = int32(len(g.ids))
	}
	return g, nil
}

// startTagGroups makes the groups of len(rows) rows by tag: one per name, in compareTagNames
// order, then NoGroup for rows with none. It sorts names in place, and returns each tag id's
// group and NoGroup's, for the caller to assign the rows.
func startTagGroups(names []tagName, rows int) (g groups, position map[int64]int32, none int32) {
	slices.SortFunc(names, func(a, b tagName) int { return compareTagNames(a.name, b.name) })
	position = make(map[int64]int32, len(names))
	g = groups{start: make([]int32, rows+1)}
	for n, name := range names {
		position[name.id] = int32(n)
		g.keys = append(g.keys, name.name)
	}
	g.keys = append(g.keys, NoGroup)
	return g, position, int32(len(names))
}

// compareTagNames orders the groups of services, regions and factors: by name regardless of case,
// and names that differ only in case by their bytes, so the order never depends on how the
// database returned them.
func compareTagNames(a, b string) int {
	if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// collector accumulates one figure over one set of incidents. Values arrive in ascending order, so
// it needs to remember only the values at the ranks the percentiles interpolate between.
type collector struct {
	total, recorded, invalid int
	n, seen                  int // aggregated values expected, and seen so far
	sum                      float64
	min, max                 int64
	rank                     [4]int // lower rank of p25, p50, p75, p90
	lo, hi                   [4]int64
	keep                     int
	values                   []int64
	histogram                []int
}

var percentiles = [4]float64{0.25, 0.5, 0.75, 0.9}

// count tallies one incident of the set, before any value arrives.
func (c *collector) count(state uint8) {
	c.total++
	switch state {
	case valid:
		c.recorded++
		c.n++
	case invalidValue:
		c.recorded++
		c.invalid++
	}
}

func (c *collector) start() {
	for k, p := range percentiles {
		c.rank[k] = int(math.Floor(p * float64(c.n-1)))
	}
	if c.keep > 0 && c.n <= c.keep {
		c.values = make([]int64, 0, c.n)
	}
}

func (c *collector) add(v int64) {
	pos := c.seen
	c.seen++
	if pos == 0 {
		c.min = v
	}
	c.max = v
	c.sum += float64(v)
	for k, r := range c.rank {
		if pos == r {
			c.lo[k] = v
			c.hi[k] = v
		} else if pos == r+1 {
			c.hi[k] = v
		}
	}
	if c.values != nil {
		c.values = append(c.values, v)
	}
	if c.histogram != nil {
		c.histogram[histogramBin(v)]++
	}
}

func histogramBin(v int64) int {
	n, _ := slices.BinarySearch(HistogramEdges, v+1)
	return n
}

// round keeps a millisecond, which hides float noise such as 4559.999999999999.
func round(seconds float64) float64 { return math.Round(seconds*1000) / 1000 }

func (c *collector) stats(figure string) Stats {
	st := Stats{Figure: figure, Total: c.total, Recorded: c.recorded, Invalid: c.invalid, Values: c.values, Histogram: c.histogram}
	if c.n == 0 {
		return st
	}
	interp := func(k int) float64 {
		frac := percentiles[k]*float64(c.n-1) - float64(c.rank[k])
		return round(float64(c.lo[k]) + frac*float64(c.hi[k]-c.lo[k]))
	}
	st.Min, st.Max = float64(c.min), float64(c.max)
	st.P25, st.Median, st.P75, st.P90 = interp(0), interp(1), interp(2), interp(3)
	st.Mean = round(c.sum / float64(c.n))
	return st
}

// packBits is how many low bits of a sort key hold the row index; the value sits above them, so
// sorting plain integers sorts by value and then by row. Dates run from year 0 to 9999, so a
// duration needs at most 39 bits beside the row's 24.
const packBits = 24

// MaxInsightIncidents is the most incidents one aggregate covers; a wider filter is refused.
const MaxInsightIncidents = 1<<packBits - 1

// figureResult is one figure worked out over every set the insights show.
type figureResult struct {
	overall collector
	periods []collector
	groups  []collector
	methods []collector
	invalid []int // rows whose figure is invalid
	slowest []int // rows with the largest values, largest first (time to detect only)
}

// aggregate computes every number of the insights from the rows. Each figure's valid values are
// sorted once, and every group, period and method receives them in that order, so no set is
// sorted again; the figures are independent and are worked out two at a time. sorted, when not
// nil, holds each figure's sort keys already sorted (see sortKeys), which aggregate only reads.
func aggregate(rows []insightRow, f InsightsFilter, g groups, sorted [][]int64) *Insights {
	out := &Insights{Filter: f, Incidents: len(rows)}

	// Periods of the trend, from the first start to the last, empty ones included.
	periodOf := make([]int32, len(rows))
	first, last := math.MaxInt, math.MinInt
	for n := range rows {
		periodOf[n] = -1
		if rows[n].started != unknown {
			p := periodIndex(int64(rows[n].started), f.Interval)
			first, last = min(first, p), max(last, p)
			periodOf[n] = int32(p)
		}
	}
	var periods []TrendPeriod
	if first <= last {
		for p := first; p <= last; p++ {
			start, label := periodStart(p, f.Interval)
			periods = append(periods, TrendPeriod{Start: start, Label: label})
		}
		for n := range periodOf {
			if periodOf[n] >= 0 {
				periodOf[n] -= int32(first)
				periods[periodOf[n]].Incidents++
			}
		}
	}
	methodKeys := append(slices.Clone(DetectionMethods), DetectionUnknown)
	groupIncidents := make([]int, len(g.keys))
	methodIncidents := make([]int, len(methodKeys))
	for n := range rows {
		for _, k := range g.of(n) {
			groupIncidents[k]++
		}
		methodIncidents[rows[n].method]++
	}

	results := make([]figureResult, len(InsightFigures))
	var wg sync.WaitGroup
	const workers = 2
	var panics [workers]error
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			panics[w] = Safely(func() error {
				var scratch []int64
				for fig := w; fig < len(InsightFigures); fig += workers {
					var keys []int64
					if sorted != nil {
						keys = sorted[fig]
					} else {
						keys = sortKeys(rows, fig, scratch[:0])
						scratch = keys
					}
					aggregateFigure(&results[fig], fig, rows, f, g, periodOf, len(periods), len(methodKeys), keys)
				}
				return nil
			})
		}()
	}
	wg.Wait()
	// A panic in a worker goes on in the caller's goroutine, where the request's recovery sees it.
	if err := errors.Join(panics[:]...); err != nil {
		panic(fmt.Errorf("aggregate insights: %w", err))
	}

	names := InsightFigures
	for fig := range results {
		out.Figures = append(out.Figures, results[fig].overall.stats(names[fig]))
	}
	for p := range periods {
		for fig := range results {
			periods[p].Figures = append(periods[p].Figures, results[fig].periods[p].stats(names[fig]))
		}
	}
	out.Trend = periods
	out.Groups = groupList(g.keys, groupIncidents, results, func(r *figureResult) []collector { return r.groups })
	out.Detection = groupList(methodKeys, methodIncidents, results, func(r *figureResult) []collector { return r.methods })

	for _, n := range results[0].slowest {
		v, _ := rows[n].value(0)
		out.Slowest = append(out.Slowest, IncidentRef{ID: rows[n].id, TimeToDetect: time.Duration(v) * time.Second})
	}
	invalid := map[int][]string{}
	for fig := range results {
		for _, n := range results[fig].invalid {
			invalid[n] = append(invalid[n], names[fig])
		}
	}
	out.InvalidTotal = len(invalid)
	invalidRows := make([]int, 0, len(invalid))
	for n := range invalid {
		invalidRows = append(invalidRows, n)
	}
	// Newest filed first: the ones someone may still be typing in.
	slices.SortFunc(invalidRows, func(a, b int) int { return cmpInt64(rows[b].id, rows[a].id) })
	for _, n := range invalidRows[:min(len(invalidRows), f.InvalidListed)] {
		out.InvalidIncidents = append(out.InvalidIncidents, IncidentRef{ID: rows[n].id, Invalid: invalid[n]})
	}
	return out
}

// sortKeys appends to keys the sort keys of a figure's valid values, value<<packBits | row, and
// sorts them: by value, then by row.
func sortKeys(rows []insightRow, fig int, keys []int64) []int64 {
	for n := range rows {
		if v, state := rows[n].value(fig); state == valid {
			keys = append(keys, v<<packBits|int64(n))
		}
	}
	slices.Sort(keys)
	return keys
}

// aggregateFigure works out one figure over every set, from the figure's sorted keys.
func aggregateFigure(res *figureResult, fig int, rows []insightRow, f InsightsFilter, g groups, periodOf []int32, periods, methods int, keys []int64) {
	res.overall.histogram = make([]int, len(HistogramEdges)+1)
	res.periods = make([]collector, periods)
	res.groups = make([]collector, len(g.keys))
	res.methods = make([]collector, methods)
	for n := range res.groups {
		res.groups[n].keep = f.KeepValues
	}
	for n := range res.methods {
		res.methods[n].keep = f.KeepValues
	}
	for n := range rows {
		r := &rows[n]
		_, state := r.value(fig)
		res.overall.count(state)
		if p := periodOf[n]; p >= 0 {
			res.periods[p].count(state)
		}
		for _, k := range g.of(n) {
			res.groups[k].count(state)
		}
		res.methods[r.method].count(state)
		if state == invalidValue {
			res.invalid = append(res.invalid, n)
		}
	}
	res.overall.start()
	for _, set := range [][]collector{res.periods, res.groups, res.methods} {
		for n := range set {
			set[n].start()
		}
	}
	const rowMask = 1<<packBits - 1
	for _, key := range keys {
		v, n := key>>packBits, int(key&rowMask)
		res.overall.add(v)
		if p := periodOf[n]; p >= 0 {
			res.periods[p].add(v)
		}
		for _, k := range g.of(n) {
			res.groups[k].add(v)
		}
		res.methods[rows[n].method].add(v)
	}
	if fig == 0 {
		for k := len(keys) - 1; k >= 0 && len(res.slowest) < f.SlowestListed; k-- {
			res.slowest = append(res.slowest, int(keys[k]&rowMask))
		}
	}
}

// groupList keeps the groups that hold at least one incident, in key order.
func groupList(keys []string, incidents []int, results []figureResult, set func(*figureResult) []collector) []InsightGroup {
	var out []InsightGroup
	for k, key := range keys {
		if incidents[k] == 0 {
			continue
		}
		group := InsightGroup{Key: key, Incidents: incidents[k]}
		for fig, name := range InsightFigures {
			group.Figures = append(group.Figures, set(&results[fig])[k].stats(name))
		}
		out = append(out, group)
	}
	return out
}

// periodIndex numbers months or quarters since year 0, in UTC.
func periodIndex(unix int64, interval string) int {
	y, m, _ := time.Unix(unix, 0).UTC().Date()
	if interval == "quarter" {
		return y*4 + (int(m)-1)/3
	}
	return y*12 + int(m) - 1
}

func periodStart(p int, interval string) (time.Time, string) {
	if interval == "quarter" {
		y, q := p/4, p%4
		return time.Date(y, time.Month(q*3+1), 1, 0, 0, 0, 0, time.UTC), fmt.Sprintf("%d-Q%d", y, q+1)
	}
	y, m := p/12, p%12
	start := time.Date(y, time.Month(m+1), 1, 0, 0, 0, 0, time.UTC)
	return start, start.Format("2006-01")
}

// nameIncidents fills in the titles of the incidents the insights list, in one query.
func (s *Store) nameIncidents(ctx context.Context, out *Insights) error {
	var ids []int64
	for _, r := range out.Slowest {
		ids = append(ids, r.ID)
	}
	for _, r := range out.InvalidIncidents {
		ids = append(ids, r.ID)
	}
	if len(ids) == 0 {
		return nil
	}
	var incidents []Incident
	err := s.read.WithContext(ctx).Select("id", "title", "severity", "detection_method", "started_at", "time_zone").
		Where("id IN ?", ids).Find(&incidents).Error
	if err != nil {
		return fmt.Errorf("name incidents: %w", err)
	}
	byID := make(map[int64]*Incident, len(incidents))
	for n := range incidents {
		byID[incidents[n].ID] = &incidents[n]
	}
	fill := func(refs []IncidentRef) {
		for n := range refs {
			if inc := byID[refs[n].ID]; inc != nil {
				refs[n].Title, refs[n].Severity, refs[n].DetectionMethod = inc.Title, inc.Severity, inc.DetectionMethod
				refs[n].StartedAt, refs[n].TimeZone = inc.StartedAt, inc.TimeZone
			}
		}
	}
	fill(out.Slowest)
	fill(out.InvalidIncidents)
	return nil
}

// OperationalCounts are the live numbers the Prometheus endpoint exposes.
type OperationalCounts struct {
	OpenIncidents    map[string]int64 // by severity, every severity present
	OverdueFollowUps map[string]int64 // by priority, every priority present
}

// Operational counts the incidents not yet resolved and the follow-ups still open past their due
// date (as FollowUp.Overdue decides it), leaving out those of deleted incidents.
func (s *Store) Operational(ctx context.Context, now time.Time) (OperationalCounts, error) {
	out := OperationalCounts{OpenIncidents: map[string]int64{}, OverdueFollowUps: map[string]int64{}}
	for _, sev := range Severities {
		out.OpenIncidents[sev] = 0
	}
	for _, p := range FollowUpPriorities {
		out.OverdueFollowUps[p] = 0
	}
	count := func(into map[string]int64, query string, args ...any) error {
		rows, err := s.read.WithContext(ctx).Raw(query, args...).Rows()
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var key string
			var n int64
			if err := rows.Scan(&key, &n); err != nil {
				return err
			}
			into[key] = n
		}
		return rows.Err()
	}
	if err := count(out.OpenIncidents, `SELECT severity, COUNT(*) FROM incidents
		WHERE deleted_at IS NULL AND status <> 'resolved' GROUP BY severity`); err != nil {
		return out, fmt.Errorf("count open incidents: %w", err)
	}
	today := time.Date(now.UTC().Year(), now.UTC().Month(), now.UTC().Day(), 0, 0, 0, 0, time.UTC)
	if err := count(out.OverdueFollowUps, `SELECT f.priority, COUNT(*) FROM follow_ups f
		JOIN incidents i ON i.id = f.incident_id
		WHERE i.deleted_at IS NULL AND f.status IN ('open', 'in_progress') AND f.due_on < ?
		GROUP BY f.priority`, today); err != nil {
		return out, fmt.Errorf("count overdue follow-ups: %w", err)
	}
	return out, nil
}
