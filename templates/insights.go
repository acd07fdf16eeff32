package templates

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"hindsight/models"
)

// InsightsForm is the insights filter exactly as typed, so a bad date comes back as it was.
type InsightsForm struct {
	From, To, Severity, Service, Region, DetectionMethod, Factor string
	Interval, GroupBy, Figure                                    string
	// Sources is "machine" to keep the figures whose milestones no person typed.
	Sources    string
	NearMisses string // "", "include" or "only"
}

// Query is the filter as URL parameters, empty ones left out: the CSV links and the API carry it.
func (f InsightsForm) Query() url.Values {
	q := url.Values{}
	for _, kv := range [][2]string{
		{"from", f.From}, {"to", f.To}, {"severity", f.Severity}, {"service", f.Service}, {"region", f.Region},
		{"detection_method", f.DetectionMethod}, {"factor", f.Factor}, {"interval", f.Interval}, {"group_by", f.GroupBy}, {"figure", f.Figure},
		{"milestone_sources", f.Sources},
		{"near_misses", f.NearMisses},
	} {
		if kv[1] != "" {
			q.Set(kv[0], kv[1])
		}
	}
	return q
}

// Filtered tells whether anything narrows the incidents.
func (f InsightsForm) Filtered() bool {
	return f.From != "" || f.To != "" || f.Severity != "" || f.Service != "" || f.Region != "" || f.DetectionMethod != "" || f.Factor != "" || f.Sources != ""
}

// SourceOptions are the insights' milestone-source filter's choices.
var SourceOptions = []Option{{models.SourcesMachine, "Set by imports or alerts"}}

// Preset is a ready-made period.
type Preset struct {
	Label, URL string
	Current    bool
}

// InsightsView is the insights page.
type InsightsView struct {
	Page
	Form     InsightsForm
	Errors   models.FieldErrors
	Services []string
	Regions  []string
	Factors  []Option // slug and name
	Presets  []Preset
	// Result is nil when the filter could not be read.
	Result *models.Insights
}

// Interval is the trend's interval as chosen, month by default.
func (v InsightsView) Interval() string {
	if v.Form.Interval == "" {
		return "month"
	}
	return v.Form.Interval
}

// GroupBy is the grouping as chosen, severity by default.
func (v InsightsView) GroupBy() string {
	if v.Form.GroupBy == "" {
		return "severity"
	}
	return v.Form.GroupBy
}

// GroupFigure is the figure the group chart shows, time to detect by default.
func (v InsightsView) GroupFigure() string {
	if v.Form.Figure == "" {
		return models.FigureDetect
	}
	return v.Form.Figure
}

// CSVURL is the address of one table's CSV download under the current filter.
func (v InsightsView) CSVURL(table string) templ.SafeURL {
	q := v.Form.Query()
	q.Set("table", table)
	return templ.URL("/insights.csv?" + q.Encode())
}

// APIURL is the same numbers as JSON.
func (v InsightsView) APIURL() templ.SafeURL {
	if q := v.Form.Query().Encode(); q != "" {
		return templ.URL("/api/v1/insights?" + q)
	}
	return "/api/v1/insights"
}

// PeriodText says which incidents the page covers.
func (v InsightsView) PeriodText() string {
	switch {
	case v.Form.From != "" && v.Form.To != "":
		return "started " + v.Form.From + " to " + v.Form.To + " (UTC)"
	case v.Form.From != "":
		return "started on or after " + v.Form.From + " (UTC)"
	case v.Form.To != "":
		return "started up to " + v.Form.To + " (UTC)"
	}
	return "all time"
}

// GroupingOptions are the groupings the box plot offers.
var GroupingOptions = []Option{{"severity", "Severity"}, {"detection_method", "Detection method"}, {"service", "Service"}, {"region", "Region"}, {"factor", "Contributing factor"}}

// IntervalOptions are the trend intervals on offer.
var IntervalOptions = []Option{{"month", "Month"}, {"quarter", "Quarter"}}

// FigureOptions are the aggregated figures, for the group chart's select.
func FigureOptions() []Option {
	out := make([]Option, len(models.InsightFigures))
	for n, f := range models.InsightFigures {
		out[n] = Option{f, FigureLabel(f)}
	}
	return out
}

// DetectionOptions are the detection methods, unknown included, for the filter.
func DetectionOptions() []Option {
	return append(Options(models.DetectionMethods), Option{models.DetectionUnknown, "Unknown"})
}

// GroupLabel names a group for people: "SEV1", "Customer report", a service, or "None".
func GroupLabel(groupBy, key string) string {
	switch {
	case key == models.NoGroup && (groupBy == "service" || groupBy == "region" || groupBy == "factor"):
		return "No " + groupBy
	case key == models.DetectionUnknown:
		return "Unknown"
	case key == "other" && groupBy == "severity":
		return "Other"
	}
	return Label(key)
}

// Seconds writes a statistic in seconds as a duration, or "—" when there is no value.
func Seconds(st models.Stats, value float64) string {
	if st.N() == 0 {
		return "—"
	}
	return Duration(time.Duration(math.Round(value)) * time.Second)
}

// RecordedText is "5 of 7 recorded".
func RecordedText(st models.Stats) string {
	return fmt.Sprintf("%d of %d recorded", st.Recorded, st.Total)
}

// ApproximateText is "2 known only to the day, left out".
func ApproximateText(st models.Stats) string {
	return fmt.Sprintf("%d known only to the day, left out", st.Approximate)
}

// Percent writes a share.
func Percent(part, whole int) string {
	if whole == 0 {
		return "—"
	}
	return strconv.FormatFloat(100*float64(part)/float64(whole), 'f', 0, 64) + " %"
}

// HistogramLabels name the bins of models.HistogramEdges.
var HistogramLabels = []string{"under 1 min", "1–5 min", "5–15 min", "15–30 min", "30–60 min", "1–2 h", "2–4 h", "4–8 h", "8–24 h", "1–3 d", "3–7 d", "a week or more"}

var histogramShort = []string{"<1m", "1m", "5m", "15m", "30m", "1h", "2h", "4h", "8h", "1d", "3d", "1w+"}

// HistogramChart draws one figure's distribution over the bins, with its median and p90 marked.
func HistogramChart(st models.Stats) templ.Component {
	// top leaves room for the count written over the tallest bar.
	const width, height, left, right, top, bottom = 320.0, 132.0, 6.0, 6.0, 16.0, 20.0
	var w svgWriter
	w.open("hist-"+st.Figure, "chart small-multiple fig-"+st.Figure, width, height,
		FigureLabel(st.Figure)+": distribution",
		fmt.Sprintf("%d values in %d bins from under a minute to a week or more; median %s, p90 %s.", st.N(), len(HistogramLabels), Seconds(st, st.Median), Seconds(st, st.P90)))
	peak := 0
	for _, n := range st.Histogram {
		peak = max(peak, n)
	}
	bins := float64(len(HistogramLabels))
	binW := (width - left - right) / bins
	plotH := height - top - bottom
	w.line("axis", left, top+plotH, width-right, top+plotH, "")
	for n, count := range st.Histogram {
		x := left + float64(n)*binW
		h := 0.0
		if peak > 0 {
			h = plotH * float64(count) / float64(peak)
		}
		class := "hist"
		if count == 0 {
			class, h = "bar empty", 1
		}
		w.rect(class, x+1, top+plotH-h, binW-2, h, fmt.Sprintf("%s: %d incident%s", HistogramLabels[n], count, plural(count, "", "s")))
		if count > 0 {
			// The count as text: a bar's height alone does not say how many incidents it holds.
			w.text("value-label count", x+binW/2, top+plotH-h-4, "middle", strconv.Itoa(count))
		}
		if n%2 == 0 {
			w.text("axis-label", x+binW/2, height-5, "middle", histogramShort[n])
		}
	}
	if st.N() > 0 {
		for _, m := range []struct {
			class string
			value float64
			name  string
		}{{"marker median", st.Median, "Median"}, {"marker p90", st.P90, "p90"}} {
			x := left + binPosition(m.value)*binW
			w.line(m.class, x, top-4, x, top+plotH, m.name+": "+Seconds(st, m.value))
		}
	}
	w.close()
	return svgComponent(w.String())
}

// binPosition places a value inside its histogram bin, on a log scale within the bin.
func binPosition(seconds float64) float64 {
	edges := models.HistogramEdges
	n, _ := slices.BinarySearch(edges, int64(seconds)+1)
	lo, hi := 1.0, float64(edges[0])
	switch {
	case n == len(edges):
		lo, hi = float64(edges[n-1]), float64(edges[n-1])*4
	case n > 0:
		lo, hi = float64(edges[n-1]), float64(edges[n])
	}
	frac := 0.0
	if seconds > lo {
		frac = math.Log(seconds/lo) / math.Log(hi/lo)
	}
	return float64(n) + min(max(frac, 0), 1)
}

// logTicks are round durations for log-scale axes, in seconds, with their labels.
var logTicks = []struct {
	seconds float64
	label   string
}{
	{10, "10 s"}, {60, "1 min"}, {300, "5 min"}, {900, "15 min"}, {3600, "1 h"}, {14400, "4 h"}, {43200, "12 h"},
	{86400, "1 d"}, {259200, "3 d"}, {604800, "1 w"}, {2592000, "30 d"}, {7776000, "90 d"}, {31536000, "1 y"},
}

// logAxis maps seconds to x (or y) on a log scale between two round ticks.
type logAxis struct {
	lo, hi   float64
	from, to float64 // pixel range
}

func newLogAxis(minSeconds, maxSeconds, from, to float64) logAxis {
	lo, hi := logTicks[0].seconds, logTicks[len(logTicks)-1].seconds
	for _, t := range logTicks {
		if t.seconds <= max(minSeconds, logTicks[0].seconds) {
			lo = t.seconds
		}
	}
	for k := len(logTicks) - 1; k >= 0; k-- {
		if logTicks[k].seconds >= maxSeconds {
			hi = logTicks[k].seconds
		}
	}
	if hi <= lo {
		hi = lo * 6
	}
	return logAxis{lo, hi, from, to}
}

func (a logAxis) pos(seconds float64) float64 {
	seconds = min(max(seconds, a.lo), a.hi)
	return a.from + (a.to-a.from)*math.Log(seconds/a.lo)/math.Log(a.hi/a.lo)
}

// BoxRow is one group of a box plot.
type BoxRow struct {
	Label string
	Stats models.Stats
}

// BoxChart draws one box plot per group on a shared log time axis: the box spans p25 to p75, the
// thick line is the median, the diamond the p90, the circle the mean, the whiskers run from the
// fastest to the slowest; small groups show every incident as a dot.
func BoxChart(id, title string, rows []BoxRow) templ.Component {
	const width, labelW, right, rowH, top = 1100.0, 250.0, 20.0, 32.0, 8.0
	height := top + float64(len(rows))*rowH + 30
	lo, hi := math.Inf(1), 0.0
	for _, r := range rows {
		if r.Stats.N() > 0 {
			lo, hi = min(lo, r.Stats.Min), max(hi, r.Stats.Max)
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 60, 3600
	}
	axis := newLogAxis(lo, hi, labelW+10, width-right)
	var w svgWriter
	w.open(id, "chart boxplot", width, height, title,
		fmt.Sprintf("%d groups on a logarithmic time axis from %s to %s. Each box spans the middle half; the thick line is the median, the diamond the p90.", len(rows), logLabel(axis.lo), logLabel(axis.hi)))
	axisY := top + float64(len(rows))*rowH
	for _, t := range logTicks {
		if t.seconds < axis.lo || t.seconds > axis.hi {
			continue
		}
		x := axis.pos(t.seconds)
		w.line("grid", x, top, x, axisY, "")
		w.text("axis-label", x, axisY+16, "middle", t.label)
	}
	w.line("axis", axis.from, axisY, axis.to, axisY, "")
	for n, r := range rows {
		st := r.Stats
		y := top + float64(n)*rowH
		mid := y + rowH/2
		w.text("row-label strong", labelW, mid-2, "end", fitText(r.Label, (labelW-8)/boldWidth))
		w.text("row-label", labelW, mid+11, "end", fmt.Sprintf("%d of %d", st.N(), st.Total))
		if st.N() == 0 {
			w.text("value-label", axis.from+4, mid+4, "start", "no recorded values")
			continue
		}
		title := fmt.Sprintf("%s: median %s, p90 %s, mean %s, middle half %s to %s, fastest %s, slowest %s; %s, %d invalid",
			r.Label, Seconds(st, st.Median), Seconds(st, st.P90), Seconds(st, st.Mean), Seconds(st, st.P25), Seconds(st, st.P75),
			Seconds(st, st.Min), Seconds(st, st.Max), RecordedText(st), st.Invalid)
		w.group("box-row", title)
		w.line("whisker", axis.pos(st.Min), mid, axis.pos(st.Max), mid, "")
		w.line("whisker", axis.pos(st.Min), mid-5, axis.pos(st.Min), mid+5, "")
		w.line("whisker", axis.pos(st.Max), mid-5, axis.pos(st.Max), mid+5, "")
		w.rect("box", axis.pos(st.P25), mid-8, max(axis.pos(st.P75)-axis.pos(st.P25), 1.5), 16, "")
		for k, v := range st.Values {
			// A fixed jitter spreads equal values apart without randomness: the page is stable.
			jitter := float64((k*7)%9-4) * 1.4
			w.circle("dot", axis.pos(float64(v)), mid+jitter, 2.2, "")
		}
		w.line("median", axis.pos(st.Median), mid-9, axis.pos(st.Median), mid+9, "")
		w.circle("mean", axis.pos(st.Mean), mid, 3.5, "")
		px := axis.pos(st.P90)
		w.path("p90", fmt.Sprintf("M%s %s l5 5 l-5 5 l-5 -5 z", num(px), num(mid-5)), "")
		w.endGroup()
	}
	w.close()
	return svgComponent(w.String())
}

func logLabel(seconds float64) string {
	for _, t := range logTicks {
		if t.seconds == seconds {
			return t.label
		}
	}
	return Duration(time.Duration(seconds) * time.Second)
}

// TrendFigures are the figures the trend chart draws, each in the colour of its phase.
var TrendFigures = []string{models.FigureDetect, models.FigureAcknowledge, models.FigureMitigate, models.FigureResolve}

// TrendChart draws the median of each figure per period on a log time axis, with the number of
// incidents per period as bars underneath.
func TrendChart(periods []models.TrendPeriod, interval string) templ.Component {
	const width, height, left, right, top = 1100.0, 300.0, 64.0, 16.0, 10.0
	const plotBottom, countTop, countBottom = 200.0, 214.0, 262.0
	lo, hi := math.Inf(1), 0.0
	peak := 0
	for _, p := range periods {
		peak = max(peak, p.Incidents)
		for _, f := range TrendFigures {
			if st := p.Figure(f); st.N() > 0 {
				lo, hi = min(lo, st.Median), max(hi, st.Median)
			}
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 60, 3600
	}
	axis := newLogAxis(lo, hi, plotBottom, top)
	var w svgWriter
	w.open("trend", "chart trend", width, height, "Median figures by "+interval,
		fmt.Sprintf("%d %ss. Lines: the median time to detect, acknowledge, mitigate and resolve, on a logarithmic axis. Bars: incidents per %s.", len(periods), interval, interval))
	for _, t := range logTicks {
		if t.seconds < axis.lo || t.seconds > axis.hi {
			continue
		}
		y := axis.pos(t.seconds)
		w.line("grid", left, y, width-right, y, "")
		w.text("axis-label", left-6, y+4, "end", t.label)
	}
	w.text("axis-label", left-6, countTop+12, "end", "incidents")
	slot := (width - left - right) / float64(max(len(periods), 1))
	x := func(n int) float64 { return left + slot*(float64(n)+0.5) }
	every := int(math.Ceil(56 / slot))
	for n, p := range periods {
		h := 0.0
		if peak > 0 {
			h = (countBottom - countTop) * float64(p.Incidents) / float64(peak)
		}
		w.rect("bar", x(n)-max(slot*0.35, 0.5), countBottom-h, max(slot*0.7, 1), h, fmt.Sprintf("%s: %d incident%s", p.Label, p.Incidents, plural(p.Incidents, "", "s")))
		if n%every == 0 {
			w.text("axis-label", x(n), height-20, "middle", p.Label)
		}
	}
	w.line("axis", left, countBottom, width-right, countBottom, "")
	for _, f := range TrendFigures {
		w.group("fig-"+f, "")
		var d []byte
		pen := "M"
		for n, p := range periods {
			st := p.Figure(f)
			if st.N() == 0 {
				pen = "M" // a period without values breaks the line
				continue
			}
			d = fmt.Appendf(d, "%s%s %s ", pen, num(x(n)), num(axis.pos(st.Median)))
			pen = "L"
		}
		if len(d) > 0 {
			w.path("series", string(d), FigureLabel(f)+", median by "+interval)
		}
		if slot >= 6 {
			for n, p := range periods {
				if st := p.Figure(f); st.N() > 0 {
					w.circle("point", x(n), axis.pos(st.Median), trendPointRadius(slot), fmt.Sprintf("%s, %s: median %s, p90 %s (%s)", p.Label, FigureLabel(f), Seconds(st, st.Median), Seconds(st, st.P90), RecordedText(st)))
				}
			}
		}
		w.endGroup()
	}
	w.close()
	return svgComponent(w.String())
}

// trendPointRadius sizes a median's marker: large enough to see and to point at, since a period
// between two without values has no line to show it, and never wider than its period's slot.
func trendPointRadius(slot float64) float64 { return min(6, max(3, slot/4)) }

// CountChart draws how many incidents each group holds, as horizontal bars with their share.
func CountChart(id, title string, labels []string, counts []int) templ.Component {
	const width, labelW, right, rowH, top = 1100.0, 250.0, 90.0, 24.0, 4.0
	height := top + float64(len(labels))*rowH + 4
	total, peak := 0, 0
	for _, c := range counts {
		total += c
		peak = max(peak, c)
	}
	var w svgWriter
	w.open(id, "chart counts", width, height, title, fmt.Sprintf("%d incidents in %d groups.", total, len(labels)))
	for n, label := range labels {
		y := top + float64(n)*rowH
		w.text("row-label strong", labelW, y+rowH/2+4, "end", fitText(label, (labelW-8)/boldWidth))
		bw := 0.0
		if peak > 0 {
			bw = (width - labelW - 10 - right) * float64(counts[n]) / float64(peak)
		}
		w.rect("bar", labelW+10, y+4, max(bw, 1), rowH-8, fmt.Sprintf("%s: %d incident%s, %s", label, counts[n], plural(counts[n], "", "s"), Percent(counts[n], total)))
		w.text("value-label", labelW+10+bw+6, y+rowH/2+4, "start", fmt.Sprintf("%d · %s", counts[n], Percent(counts[n], total)))
	}
	w.close()
	return svgComponent(w.String())
}

// GroupRows are the group chart's rows for one figure.
func (v InsightsView) GroupRows() []BoxRow {
	var rows []BoxRow
	for _, g := range v.Result.Groups {
		rows = append(rows, BoxRow{GroupLabel(v.GroupBy(), g.Key), g.Figure(v.GroupFigure())})
	}
	return rows
}

// DetectionRows are the time to detect of each detection method.
func (v InsightsView) DetectionRows() []BoxRow {
	var rows []BoxRow
	for _, g := range v.Result.Detection {
		rows = append(rows, BoxRow{GroupLabel("detection_method", g.Key), g.Figure(models.FigureDetect)})
	}
	return rows
}

// DetectionCounts are the labels and incident counts of the detection methods.
func (v InsightsView) DetectionCounts() ([]string, []int) {
	var labels []string
	var counts []int
	for _, g := range v.Result.Detection {
		labels = append(labels, GroupLabel("detection_method", g.Key))
		counts = append(counts, g.Incidents)
	}
	return labels, counts
}

// GroupTitle names the group chart: "Time to detect by severity".
func (v InsightsView) GroupTitle() string {
	for _, o := range GroupingOptions {
		if o.Value == v.GroupBy() {
			return FigureLabel(v.GroupFigure()) + " by " + lowerFirst(o.Label)
		}
	}
	return FigureLabel(v.GroupFigure())
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]|0x20) + s[1:]
}

// FigureNames lists the names of invalid figures for people.
func FigureNames(names []string) string {
	labels := make([]string, len(names))
	for n, name := range names {
		labels[n] = FigureLabel(name)
	}
	return Join(labels)
}

// IncidentHref links to an incident.
func IncidentHref(id int64) templ.SafeURL { return templ.URL("/incidents/" + Itoa(id)) }

// StartedText writes when a listed incident started, in its zone.
func StartedText(r models.IncidentRef) string {
	if r.StartedAt == nil {
		return "not recorded"
	}
	return When(*r.StartedAt, models.LoadLocation(r.TimeZone))
}

// namesOptions offers known names, keeping a typed one that is not (or no longer) among them.
func namesOptions(names []string, current string) []Option {
	out := make([]Option, 0, len(names)+1)
	if current != "" && !slices.Contains(names, current) {
		out = append(out, Option{current, current})
	}
	for _, n := range names {
		out = append(out, Option{n, n})
	}
	return out
}

// factorOptions offers the factors, keeping a typed slug that is not among them.
func factorOptions(factors []Option, current string) []Option {
	if current == "" || slices.ContainsFunc(factors, func(o Option) bool { return o.Value == current }) {
		return factors
	}
	return append([]Option{{current, current}}, factors...)
}

// boldWidth is how much wider bold labels run than textWidth's estimate.
const boldWidth = 1.14

// fitText shortens a label with an ellipsis to fit a width; the full text stays in the mark's
// title and in the table beside the chart.
func fitText(s string, width float64) string {
	if textWidth(s) <= width {
		return s
	}
	r := []rune(s)
	for len(r) > 1 && textWidth(string(r)+"…") > width {
		r = r[:len(r)-1]
	}
	return strings.TrimSpace(string(r)) + "…"
}

// WithNearMisses is the filter's address with near misses counted in the figures.
func (f InsightsForm) WithNearMisses() string {
	q := f.Query()
	q.Set("near_misses", "include")
	return "/insights?" + q.Encode()
}
