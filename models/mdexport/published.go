package mdexport

import (
	"fmt"
	"strings"
	"time"

	"hindsight/models"
)

// Published writes a published postmortem as the status page shows it: the summary, then the
// seeds' sections (Customer Impact, Root Cause, Detection, Response, Follow-up) with the figures
// said in words, times in the status page's zone. It reads only the public version, so what was
// reviewed is all it can show.
func Published(p models.PublicPostmortem, loc *time.Location) string {
	var b strings.Builder
	if s := userText(p.Summary); s != "" {
		b.WriteString(s + "\n\n")
	}
	inc := p.Incident()
	m := models.ComputeMetrics(inc)

	var impact strings.Builder
	paragraph(&impact, impactSentence(p, m, loc))
	paragraph(&impact, userText(p.CustomerImpact))
	if len(p.ImpactWindows) > 0 {
		impact.WriteString("Impact windows:\n\n")
		for _, w := range p.ImpactWindows {
			end := "ongoing"
			if w.EndedAt != nil {
				end = When(*w.EndedAt, loc)
			}
			fmt.Fprintf(&impact, "- %s to %s, %s", When(w.StartedAt, loc), end, label(w.Level))
			if len(w.Services) > 0 {
				fmt.Fprintf(&impact, " (%s)", names(w.Services))
			}
			impact.WriteString("\n")
		}
	}
	section(&b, "Customer Impact", impact.String())
	section(&b, "Root Cause", userText(p.RootCause))

	var detection strings.Builder
	paragraph(&detection, figureSentence(m.TimeToDetect, "Detected", "detection"))
	paragraph(&detection, userText(p.Detection))
	section(&b, "Detection", detection.String())

	var response strings.Builder
	var figures []string
	for _, f := range []struct {
		fig       models.Figure
		did, noun string
	}{
		{m.TimeToFirstPublicUpdate, "The first public update went out", "first public update"},
		{m.TimeToMitigate, "Mitigated", "mitigation"},
		{m.TimeToResolve, "Resolved", "resolution"},
	} {
		if f.fig.Recorded { // what has not happened yet, or was not recorded, goes unsaid here
			if s := figureSentence(f.fig, f.did, f.noun); s != "" {
				figures = append(figures, s)
			}
		}
	}
	paragraph(&response, strings.Join(figures, " "))
	paragraph(&response, userText(p.Response))
	section(&b, "Response", response.String())
	for _, sec := range p.Sections {
		section(&b, inline(sec.Heading), userText(sec.Body))
	}

	var followUps strings.Builder
	for _, f := range p.FollowUps {
		status := map[string]string{"done": "done", "in_progress": "in progress"}[f.Status]
		if status == "" {
			status = "planned"
		}
		fmt.Fprintf(&followUps, "- %s (%s)\n", inline(f.Title), status)
	}
	section(&b, "Follow-up", followUps.String())
	return finish(&b)
}

// PublishedDocument is Published under the postmortem's title: the text a re-publish is compared
// with, line by line.
func PublishedDocument(p models.PublicPostmortem, loc *time.Location) string {
	return "# " + inline(p.Title) + "\n\n" + Published(p, loc)
}

func paragraph(b *strings.Builder, text string) {
	if text = strings.TrimSpace(text); text != "" {
		b.WriteString(text + "\n\n")
	}
}

// impactSentence says when customer impact began and ended, and for how long it lasted in all.
func impactSentence(p models.PublicPostmortem, m models.Metrics, loc *time.Location) string {
	var parts []string
	switch {
	case p.StartedAt != nil && p.MitigatedAt != nil && !p.MitigatedAt.Before(*p.StartedAt):
		parts = append(parts, fmt.Sprintf("Customer impact began %s and ended %s.", When(*p.StartedAt, loc), When(*p.MitigatedAt, loc)))
	case p.StartedAt != nil:
		parts = append(parts, fmt.Sprintf("Customer impact began %s.", When(*p.StartedAt, loc)))
	}
	switch {
	case m.ImpactOngoing:
		parts = append(parts, "Customers are still affected.")
	case m.Impact.Recorded && m.Impact.Value > 0:
		parts = append(parts, fmt.Sprintf("Customers were affected for %s in all.", models.DurationWords(m.Impact.Value)))
	}
	return strings.Join(parts, " ")
}

// figureSentence says a figure in words: "Detected 3 days 54 minutes after impact began." A
// figure not recorded says so; one whose end is before the start of impact is not given.
func figureSentence(f models.Figure, did, noun string) string {
	switch {
	case !f.Recorded:
		return fmt.Sprintf("The time of %s was not recorded.", noun)
	case f.Invalid:
		return ""
	}
	return fmt.Sprintf("%s %s after impact began.", did, models.DurationWords(f.Value))
}
