package models

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
)

// The insights' aggregation in memory: groups, collectors, percentiles, histograms and trends.

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
	approximate              int // recorded, valid, but measured from or to a day-only milestone
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
	case approximateValue:
		c.recorded++
		c.approximate++
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
	st := Stats{Figure: figure, Total: c.total, Recorded: c.recorded, Invalid: c.invalid, Approximate: c.approximate, Values: c.values, Histogram: c.histogram}
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
