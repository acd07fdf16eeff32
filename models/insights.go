package models

import (
	"errors"
	"time"
)

// The insights' result types and filter: what ComputeInsights answers and what it takes.

// InsightFigures are the figures the insights aggregate, in the order pages and the API show them.
var InsightFigures = []string{FigureDetect, FigureAcknowledge, FigureMitigate, FigureResolve, FigureImpact, FigureFirstUpdate}

// Insight groupings and trend intervals, as the filters name them.
var (
	InsightGroupings = []string{"severity", "detection_method", "service", "region", "factor"}
	InsightIntervals = []string{"month", "quarter"}
)

// The InsightsFilter.NearMisses choices besides leaving near misses out.
const (
	NearMissesInclude = "include"
	NearMissesOnly    = "only"
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

// SourcesMachine is the InsightsFilter.Sources value for figures whose milestones came from machines.
const SourcesMachine = "machine"

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
	// Sources, when SourcesMachine, keeps the incidents each of whose recorded milestones an
	// import or an alert set: figures nobody typed.
	Sources string
	// NearMisses says what the figures do with near misses (incidents without customer impact):
	// "" leaves them out and counts them apart, NearMissesInclude counts them in, NearMissesOnly
	// takes them alone.
	NearMisses string
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
	// Approximate counts the recorded, valid figures measured from or to a milestone known only
	// to the day: counted here, left out of the numbers, since a value up to a day out would
	// swamp percentiles of minutes and hours.
	Approximate int
	Min         float64
	P25         float64
	Median      float64
	Mean        float64
	P75         float64
	P90         float64
	Max         float64
	// Values are the aggregated values in seconds, ascending, when the filter asked to keep them.
	Values []int64
	// Histogram counts the aggregated values per HistogramEdges bin (overall figures only).
	Histogram []int
}

// N is how many values the numbers are computed from: recorded, valid and exact.
func (s Stats) N() int { return s.Recorded - s.Invalid - s.Approximate }

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
	// NearMisses counts the near misses the rest of the filter chooses that the figures leave out
	// (Filter.NearMisses empty); 0 otherwise.
	NearMisses int
	Figures    []Stats // InsightFigures order
	Trend      []TrendPeriod
	Groups     []InsightGroup // by Filter.GroupBy
	Detection  []InsightGroup // by detection method, always: how incidents were found
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
