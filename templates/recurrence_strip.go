package templates

import (
	"fmt"
	"html"
	"strings"
	"time"

	"hindsight/models"
)

// unlisted is how many of total the page leaves out when it shows at most shown of the listed.
func unlisted(total, listed, shown int) int {
	return max(total-min(listed, shown), 0)
}

// recurrenceStrip draws a factor's time line as SVG: a tick per span of the time line (per start
// when incidents are few), as tall as its share of the busiest span, red for the part that came
// back after a fix. Its text equivalent is the list beside it; each tick has a title.
func recurrenceStrip(r models.FactorRecurrence) string {
	if r.FirstOccurrence == nil || r.LastOccurrence == nil || len(r.Timeline) == 0 {
		return ""
	}
	first, last := *r.FirstOccurrence, *r.LastOccurrence
	const width, height, pad, top = 1000.0, 40.0, 8.0, 6.0
	base := height - 8
	span := last.Sub(first).Seconds()
	busiest := 0
	for _, b := range r.Timeline {
		busiest = max(busiest, b.Incidents)
	}
	// A span holding one listed incident is titled with it.
	titles := map[int64]string{}
	for _, inc := range r.Incidents {
		if inc.StartedAt != nil {
			titles[inc.StartedAt.Unix()] = inc.Title
		}
	}
	var b strings.Builder
	id := "strip-" + html.EscapeString(r.Factor.Slug)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="recurrence-strip" viewBox="0 0 %.0f %.0f" role="img" aria-labelledby="%s-t"><title id="%s-t">%s: %d incidents from %s to %s</title>`,
		width, height, id, id, html.EscapeString(r.Factor.Name), r.IncidentCount, first.Format(time.DateOnly), last.Format(time.DateOnly))
	fmt.Fprintf(&b, `<line class="axis" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/>`, pad, base, width-pad, base)
	for _, bucket := range r.Timeline {
		// A span's incidents started between its start and its end or the last incident.
		end := bucket.To.Add(-time.Second)
		if end.After(last) {
			end = last
		}
		middle := bucket.From.Add(end.Sub(bucket.From) / 2)
		x := pad + (width-2*pad)/2
		if span > 0 {
			x = pad + (width-2*pad)*middle.Sub(first).Seconds()/span
		}
		// Every tick stays visible: at least a fifth of the full height.
		full := base - top
		tall := max(full*float64(bucket.Incidents)/float64(busiest), full/5)
		label := spanLabel(bucket, end, titles)
		stayed := bucket.Incidents - bucket.CameBack
		split := base - tall*float64(stayed)/float64(bucket.Incidents)
		if stayed > 0 {
			fmt.Fprintf(&b, `<line class="tick" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.0f"><title>%s</title></line>`,
				x, split, x, base, html.EscapeString(label))
		}
		if bucket.CameBack > 0 {
			fmt.Fprintf(&b, `<line class="tick came-back" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"><title>%s</title></line>`,
				x, base-tall, x, split, html.EscapeString(label))
		}
	}
	fmt.Fprintf(&b, `<text class="axis-label" x="%.0f" y="%.0f">%s</text><text class="axis-label end" x="%.0f" y="%.0f" text-anchor="end">%s</text></svg>`,
		pad, height, first.Format("Jan 2006"), width-pad, height, last.Format("Jan 2006"))
	return b.String()
}

// spanLabel titles a tick: the incident and its date when it is one listed incident, else how
// many incidents started on which dates, and how many came back.
func spanLabel(bucket models.RecurrenceBucket, end time.Time, titles map[int64]string) string {
	dates := bucket.From.Format(time.DateOnly)
	if last := end.Format(time.DateOnly); last != dates {
		dates += " to " + last
	}
	var label string
	title, known := titles[bucket.From.Unix()]
	switch {
	case known && bucket.Incidents == 1 && end.Equal(bucket.From):
		label = title + " · " + dates
	case bucket.Incidents == 1:
		label = "1 incident · " + dates
	default:
		label = fmt.Sprintf("%d incidents · %s", bucket.Incidents, dates)
	}
	switch {
	case bucket.CameBack == 0:
	case bucket.Incidents == 1:
		label += " · came back after its fix"
	default:
		label += fmt.Sprintf(" · %d came back after its fix", bucket.CameBack)
	}
	return label
}
