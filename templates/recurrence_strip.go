package templates

import (
	"fmt"
	"html"
	"strings"
	"time"

	"hindsight/models"
)

// recurrenceStrip draws a factor's incidents on one time line as SVG: a tick per incident, red
// when it came back after a fix. Its text equivalent is the list beside it; each tick has a title.
func recurrenceStrip(r models.FactorRecurrence) string {
	var first, last time.Time
	for _, inc := range r.Incidents {
		if inc.StartedAt == nil {
			continue
		}
		if first.IsZero() || inc.StartedAt.Before(first) {
			first = *inc.StartedAt
		}
		if inc.StartedAt.After(last) {
			last = *inc.StartedAt
		}
	}
	if first.IsZero() {
		return ""
	}
	const width, height, pad = 1000.0, 40.0, 8.0
	span := last.Sub(first).Seconds()
	var b strings.Builder
	id := "strip-" + html.EscapeString(r.Factor.Slug)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="recurrence-strip" viewBox="0 0 %.0f %.0f" role="img" aria-labelledby="%s-t"><title id="%s-t">%s: %d incidents from %s to %s</title>`,
		width, height, id, id, html.EscapeString(r.Factor.Name), len(r.Incidents), first.Format(time.DateOnly), last.Format(time.DateOnly))
	fmt.Fprintf(&b, `<line class="axis" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/>`, pad, height-8, width-pad, height-8)
	// At most a few hundred ticks: beyond that they overlap anyway.
	step := 1
	if len(r.Incidents) > 400 {
		step = len(r.Incidents) / 400
	}
	for n := 0; n < len(r.Incidents); n += step {
		inc := r.Incidents[n]
		if inc.StartedAt == nil {
			continue
		}
		x := pad + (width-2*pad)/2
		if span > 0 {
			x = pad + (width-2*pad)*inc.StartedAt.Sub(first).Seconds()/span
		}
		class := "tick"
		if inc.CameBackAfter != 0 {
			class = "tick came-back"
		}
		fmt.Fprintf(&b, `<line class="%s" x1="%.1f" y1="6" x2="%.1f" y2="%.0f"><title>%s · %s</title></line>`,
			class, x, x, height-8, html.EscapeString(inc.Title), inc.StartedAt.Format(time.DateOnly))
	}
	fmt.Fprintf(&b, `<text class="axis-label" x="%.0f" y="%.0f">%s</text><text class="axis-label end" x="%.0f" y="%.0f" text-anchor="end">%s</text></svg>`,
		pad, height, first.Format("Jan 2006"), width-pad, height, last.Format("Jan 2006"))
	return b.String()
}
