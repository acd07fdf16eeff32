package models

import "time"

// Contradiction is a figure that disagrees with another of the incident's figures or records
// (DESIGN §2): each value may be right on its own, but not both together.
type Contradiction struct {
	Figure  string // the figure flagged, e.g. FigureFirstUpdate
	Field   string // the milestone the incident form shows it beside
	Message string
}

// Contradictions lists the figures that contradict each other: a first public update before
// detection (time to first public update shorter than time to detect), an acknowledgement before
// detection, a resolution before mitigation, and an impact window starting before impact
// started. ms are the milestones, as saved or as typed on the form; timeline and windows may be
// nil when they are not loaded, and their contradictions are then not looked for.
//
// A contradicting figure is flagged where an invalid one is (Figure.Contradicts beside
// Figure.Invalid, the same flag on the incident page, the same field warning on the form). Unlike
// an invalid one it stays in the aggregates: its value is a real, non-negative duration, and
// which of the two contradicting records is wrong is not known, so leaving one out would bias
// the numbers as much as keeping it; the flag sends someone to correct the record instead.
func Contradictions(ms Milestones, timeline []TimelineEvent, windows []ImpactWindow) []Contradiction {
	var out []Contradiction
	before := func(a, b *time.Time) bool { return a != nil && b != nil && a.Before(*b) }
	if first := firstPublicUpdate(timeline); before(first, ms.DetectedAt) {
		out = append(out, Contradiction{FigureFirstUpdate, "detected_at", "The first public update is before detection."})
	}
	if before(ms.AcknowledgedAt, ms.DetectedAt) {
		out = append(out, Contradiction{FigureAcknowledge, "acknowledged_at", "Acknowledged is before detected."})
	}
	if before(ms.ResolvedAt, ms.MitigatedAt) {
		out = append(out, Contradiction{FigureResolve, "resolved_at", "Resolved is before mitigated."})
	}
	for _, w := range windows {
		if before(&w.StartedAt, ms.StartedAt) {
			out = append(out, Contradiction{FigureImpact, "started_at", "An impact window starts before impact started."})
			break
		}
	}
	return out
}

// firstPublicUpdate is the earliest public status update, nil when there is none.
func firstPublicUpdate(timeline []TimelineEvent) *time.Time {
	var first *time.Time
	for _, ev := range timeline {
		if ev.Kind == "status_update" && ev.Public && (first == nil || ev.At.Before(*first)) {
			at := ev.At
			first = &at
		}
	}
	return first
}

// flagContradictions marks each contradicting figure that is not already invalid.
func (m *Metrics) flagContradictions(contradictions []Contradiction) {
	figures := map[string]*Figure{
		FigureFirstUpdate: &m.TimeToFirstPublicUpdate, FigureAcknowledge: &m.TimeToAcknowledge,
		FigureResolve: &m.TimeToResolve, FigureImpact: &m.Impact,
	}
	for _, c := range contradictions {
		if f := figures[c.Figure]; f != nil && f.Recorded && !f.Invalid && f.Contradicts == "" {
			f.Contradicts = c.Message
		}
	}
}

// Flagged is true for a figure people should look at twice: invalid, or contradicting another.
func (f Figure) Flagged() bool { return f.Invalid || f.Contradicts != "" }

// Contradicting names the figures that contradict another, as Invalid names the invalid ones.
func (m Metrics) Contradicting() []string {
	out := []string{}
	for _, f := range m.All() {
		if f.Contradicts != "" {
			out = append(out, f.Name)
		}
	}
	return out
}

// FormWarnings are the warnings the incident form shows beside the milestones: those out of
// order, then the contradictions of the record's timeline and windows (inc, nil for a new
// incident) with the milestones as typed. Out-of-order milestones already cover the
// contradictions of milestones alone.
func FormWarnings(ms Milestones, inc *Incident) []OrderWarning {
	warnings := ms.OrderWarnings()
	if inc == nil {
		return warnings
	}
	for _, c := range Contradictions(ms, inc.Timeline, inc.ImpactWindows) {
		if c.Figure == FigureFirstUpdate || c.Figure == FigureImpact {
			warnings = append(warnings, OrderWarning{Field: c.Field, Message: c.Message})
		}
	}
	return warnings
}
