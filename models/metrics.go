package models

import (
	"sort"
	"time"
)

// Figure names, as the API and the invalid list call them.
const (
	FigureDetect      = "time_to_detect"
	FigureAcknowledge = "time_to_acknowledge"
	FigureMitigate    = "time_to_mitigate"
	FigureResolve     = "time_to_resolve"
	FigureLatent      = "latent"
	FigureFirstUpdate = "time_to_first_public_update"
	FigureImpact      = "impact"
)

// Figure is one duration of DESIGN §2. Recorded is false when a milestone it needs is missing;
// Invalid is true when its end is before its start (the value is then negative and kept), and
// Contradicts when it disagrees with another figure.
type Figure struct {
	Name     string
	Value    time.Duration
	Recorded bool
	Invalid  bool
	// Contradicts says how the figure disagrees with another (Contradictions), "" when it does
	// not. It is flagged like Invalid, but the figure stays in aggregates.
	Contradicts string
	// Approximate is true when a milestone the figure is measured from or to is known only to
	// the day: it is shown as "about 4 days" and counted apart in aggregates.
	Approximate bool
}

// Seconds returns the figure in whole seconds, or nil when not recorded.
func (f Figure) Seconds() *int64 {
	if !f.Recorded {
		return nil
	}
	s := int64(f.Value / time.Second)
	return &s
}

// Metrics are an incident's figures, each measured from the start of customer impact.
type Metrics struct {
	TimeToDetect            Figure
	TimeToAcknowledge       Figure
	TimeToMitigate          Figure
	TimeToResolve           Figure
	Latent                  Figure
	TimeToFirstPublicUpdate Figure
	Impact                  Figure
	// ImpactOngoing is true when a window has no end and neither mitigation nor resolution is known.
	ImpactOngoing bool
	// FirstPublicUpdate is the first public status update, if any.
	FirstPublicUpdate *time.Time
}

// All returns the figures in the order pages show them.
func (m Metrics) All() []Figure {
	return []Figure{m.TimeToDetect, m.TimeToAcknowledge, m.TimeToMitigate, m.TimeToResolve, m.Latent, m.TimeToFirstPublicUpdate, m.Impact}
}

// Invalid names the figures whose end is before their start.
func (m Metrics) Invalid() []string {
	invalid := []string{}
	for _, f := range m.All() {
		if f.Invalid {
			invalid = append(invalid, f.Name)
		}
	}
	return invalid
}

func span(name string, from, to *time.Time) Figure {
	if from == nil || to == nil {
		return Figure{Name: name}
	}
	d := to.Sub(*from)
	return Figure{Name: name, Value: d, Recorded: true, Invalid: d < 0}
}

// ComputeMetrics works out an incident's figures from its milestones, timeline and impact windows.
// The incident's Timeline and ImpactWindows must be loaded for the last two figures.
func ComputeMetrics(inc *Incident) Metrics {
	m := MilestoneMetrics(inc)
	m.FirstPublicUpdate = firstPublicUpdate(inc.Timeline)
	m.TimeToFirstPublicUpdate = span(FigureFirstUpdate, inc.StartedAt, m.FirstPublicUpdate)
	m.TimeToFirstPublicUpdate.Approximate = m.TimeToFirstPublicUpdate.Recorded && inc.DayOnly("started_at")
	m.Impact, m.ImpactOngoing = impactTime(inc)
	m.flagContradictions(Contradictions(inc.Milestones(), inc.Timeline, inc.ImpactWindows))
	return m
}

// MilestoneMetrics works out the figures that need only the incident's own milestones; list pages
// use it so that they never load timelines.
func MilestoneMetrics(inc *Incident) Metrics {
	m := Metrics{
		TimeToDetect:            span(FigureDetect, inc.StartedAt, inc.DetectedAt),
		TimeToAcknowledge:       span(FigureAcknowledge, inc.StartedAt, inc.AcknowledgedAt),
		TimeToMitigate:          span(FigureMitigate, inc.StartedAt, inc.MitigatedAt),
		TimeToResolve:           span(FigureResolve, inc.StartedAt, inc.ResolvedAt),
		Latent:                  span(FigureLatent, inc.TriggeredAt, inc.StartedAt),
		TimeToFirstPublicUpdate: Figure{Name: FigureFirstUpdate},
		Impact:                  Figure{Name: FigureImpact},
	}
	if inc.MilestoneDays != "" {
		for _, f := range []struct {
			fig      *Figure
			from, to string
		}{
			{&m.TimeToDetect, "started_at", "detected_at"}, {&m.TimeToAcknowledge, "started_at", "acknowledged_at"},
			{&m.TimeToMitigate, "started_at", "mitigated_at"}, {&m.TimeToResolve, "started_at", "resolved_at"},
			{&m.Latent, "triggered_at", "started_at"},
		} {
			f.fig.Approximate = f.fig.Recorded && (inc.DayOnly(f.from) || inc.DayOnly(f.to))
		}
	}
	m.flagContradictions(Contradictions(inc.Milestones(), nil, nil))
	return m
}

// Approximate names the recorded figures measured from or to a milestone known only to the day.
func (m Metrics) Approximate() []string {
	out := []string{}
	for _, f := range m.All() {
		if f.Approximate {
			out = append(out, f.Name)
		}
	}
	return out
}

// WindowEnd is where an impact window stops counting: its own end, else mitigation, else
// resolution. It is nil while the impact is ongoing.
func WindowEnd(w ImpactWindow, inc *Incident) *time.Time {
	switch {
	case w.EndedAt != nil:
		return w.EndedAt
	case inc.MitigatedAt != nil:
		return inc.MitigatedAt
	default:
		return inc.ResolvedAt
	}
}

// impactTime is the length of the union of the impact windows.
func impactTime(inc *Incident) (Figure, bool) {
	fig := Figure{Name: FigureImpact}
	if len(inc.ImpactWindows) == 0 {
		return fig, false
	}
	type interval struct{ from, to time.Time }
	intervals := make([]interval, 0, len(inc.ImpactWindows))
	for _, w := range inc.ImpactWindows {
		end := WindowEnd(w, inc)
		if end == nil {
			return fig, true
		}
		if end.Before(w.StartedAt) {
			fig.Invalid = true
			continue
		}
		intervals = append(intervals, interval{w.StartedAt, *end})
	}
	sort.Slice(intervals, func(a, b int) bool { return intervals[a].from.Before(intervals[b].from) })
	var total time.Duration
	var cur *interval
	for n := range intervals {
		iv := intervals[n]
		if cur != nil && !iv.from.After(cur.to) {
			if iv.to.After(cur.to) {
				cur.to = iv.to
			}
			continue
		}
		if cur != nil {
			total += cur.to.Sub(cur.from)
		}
		cur = &iv
	}
	if cur != nil {
		total += cur.to.Sub(cur.from)
	}
	fig.Value, fig.Recorded = total, true
	return fig, false
}

// Phase is a stretch of the incident between two milestones, as the picture shades it.
type Phase struct {
	Name     string // undetected, unacknowledged, repairing, recovering, latent
	Label    string
	From, To time.Time
}

// Duration is the length of the phase.
func (p Phase) Duration() time.Duration { return p.To.Sub(p.From) }

// Phases returns the incident's phases that both ends of are known and in order.
func Phases(inc *Incident) []Phase {
	var phases []Phase
	add := func(name, label string, from, to *time.Time) {
		if from != nil && to != nil && !to.Before(*from) {
			phases = append(phases, Phase{name, label, *from, *to})
		}
	}
	add("latent", "Latent: the change waiting to bite", inc.TriggeredAt, inc.StartedAt)
	add("undetected", "Undetected: the detection gap", inc.StartedAt, inc.DetectedAt)
	add("unacknowledged", "Detected, not yet acknowledged", inc.DetectedAt, inc.AcknowledgedAt)
	repairFrom := inc.AcknowledgedAt
	if repairFrom == nil {
		repairFrom = inc.DetectedAt
	}
	add("repairing", "Being repaired", repairFrom, inc.MitigatedAt)
	recoverFrom := inc.MitigatedAt
	if recoverFrom == nil {
		recoverFrom = repairFrom
	}
	add("recovering", "Recovering until declared over", recoverFrom, inc.ResolvedAt)
	return phases
}
