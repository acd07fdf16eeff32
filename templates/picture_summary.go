package templates

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"hindsight/models"
)

// PictureSummary is the whole incident on one bar drawn exactly to scale: each phase as long as
// it lasted against the others, so a three-day detection gap dwarfs a fifty-minute repair as it
// did. The detailed picture beside it compresses quiet stretches; this bar never does.
type PictureSummary struct {
	From, To time.Time
	Segments []SummarySegment
	Markup   string // the bar's SVG
}

// SummarySegment is one stretch of the bar: a phase, or time no recorded phase covers.
type SummarySegment struct {
	Name     string // the phase's name, "" for a stretch no phase covers
	Label    string // "Undetected", "Phase not recorded"
	Class    string // the colour class: "phase-undetected", or "unrecorded"
	From, To time.Time
	X0, X1   float64 // on the bar, 0 to summaryWidth
}

// Duration is how long the stretch lasted.
func (s SummarySegment) Duration() time.Duration { return s.To.Sub(s.From) }

// Total is how long the bar covers.
func (p PictureSummary) Total() time.Duration { return p.To.Sub(p.From) }

// Share writes a stretch's part of the whole: "97.9 %", "< 0.1 %".
func (p PictureSummary) Share(s SummarySegment) string {
	share := 100 * s.Duration().Seconds() / p.Total().Seconds()
	if share < 0.05 {
		return "< 0.1 %"
	}
	return fmt.Sprintf("%.1f %%", share)
}

// Text is the bar in words, its text equivalent.
func (p PictureSummary) Text() string {
	parts := make([]string, len(p.Segments))
	for n, s := range p.Segments {
		parts[n] = fmt.Sprintf("%s %s (%s)", s.Label, Duration(s.Duration()), p.Share(s))
	}
	return "To scale, " + Duration(p.Total()) + " in all: " + strings.Join(parts, ", ") + "."
}

// summaryWidth is the bar's width in its own units; it stretches to the page.
const summaryWidth = 1000.0

// buildSummary lays the phases end to end over the whole incident, from its first milestone to
// its last; a stretch no phase covers (the phases after the start are unknown without a detection
// time) is shown as not recorded. Phases that overlap, from milestones out of order, are cut
// where the earlier one ends. Nil without a phase.
func buildSummary(phases []models.Phase, milestones []*time.Time) *PictureSummary {
	if len(phases) == 0 {
		return nil
	}
	phases = slices.Clone(phases)
	slices.SortStableFunc(phases, func(a, b models.Phase) int { return a.From.Compare(b.From) })
	sum := &PictureSummary{From: phases[0].From, To: phases[0].To}
	for _, p := range phases {
		sum.To = later(sum.To, p.To)
	}
	for _, t := range milestones {
		if t != nil {
			sum.To = later(sum.To, *t)
			if t.Before(sum.From) {
				sum.From = *t
			}
		}
	}
	if !sum.To.After(sum.From) {
		return nil
	}
	cursor := sum.From
	unrecorded := func(to time.Time) {
		if to.After(cursor) {
			sum.Segments = append(sum.Segments, SummarySegment{Label: "Phase not recorded", Class: "unrecorded", From: cursor, To: to})
			cursor = to
		}
	}
	for _, p := range phases {
		unrecorded(p.From)
		if p.To.After(cursor) {
			sum.Segments = append(sum.Segments, SummarySegment{Name: p.Name, Label: phaseShortName(p.Name), Class: "phase-" + p.Name, From: cursor, To: p.To})
			cursor = p.To
		}
	}
	unrecorded(sum.To)
	total := sum.Total().Seconds()
	for n := range sum.Segments {
		s := &sum.Segments[n]
		s.X0 = summaryWidth * s.From.Sub(sum.From).Seconds() / total
		s.X1 = summaryWidth * s.To.Sub(sum.From).Seconds() / total
	}
	sum.Markup = summaryMarkup(sum)
	return sum
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// summaryMarkup draws the bar. It stretches to the width of the page and keeps its height
// (preserveAspectRatio none), so it has no text of its own: its labels are the list beside it.
// A stretch no phase covers takes the text colour, faint, which follows light and dark.
func summaryMarkup(sum *PictureSummary) string {
	var w svgWriter
	w.raw(`<svg xmlns="http://www.w3.org/2000/svg" class="scale-bar" viewBox="0 0 `)
	w.num(summaryWidth)
	w.raw(` 20" preserveAspectRatio="none" width="100%" height="20" role="img" aria-labelledby="scale-bar-title"><title id="scale-bar-title">`)
	w.raw(esc(sum.Text()))
	w.raw(`</title>`)
	for _, s := range sum.Segments {
		w.raw(`<rect`)
		w.attr("class", "segment "+s.Class)
		w.attr("data-seconds", fmt.Sprint(int64(s.Duration().Seconds())))
		if s.Name == "" {
			w.raw(` fill="currentColor" fill-opacity="0.22"`)
		}
		w.nums(rectAttrs, s.X0, 0, s.X1-s.X0, 20)
		w.titled("rect", fmt.Sprintf("%s: %s (%s)", s.Label, Duration(s.Duration()), sum.Share(s)))
	}
	w.close()
	return w.String()
}
