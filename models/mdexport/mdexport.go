// Package mdexport writes an incident as a Markdown postmortem in the shape of the seeds: title,
// summary, the facts and figures, then one section per narrative field, the timeline and the
// follow-ups. Render is the whole record for the organisation; RenderPublic is what a published
// postmortem may show the public.
package mdexport

import (
	"fmt"
	"strings"
	"time"

	"hindsight/models"
)

// Render writes the whole postmortem, internal sections and events included.
func Render(inc *models.Incident) string {
	var b strings.Builder
	heading(&b, inc)
	facts(&b, inc)
	figures(&b, inc)
	customerImpact(&b, inc, true)
	section(&b, "Root Cause", userText(inc.RootCause))
	section(&b, "Trigger", userText(inc.Trigger))
	section(&b, "Detection", userText(inc.Detection))
	section(&b, "Response", userText(inc.Response))
	section(&b, "Lessons", userText(inc.Lessons))
	for _, sec := range inc.Sections {
		section(&b, inline(sec.Heading), userText(sec.Body))
	}
	timeline(&b, inc, false)
	followUps(&b, inc, false)
	return finish(&b)
}

// RenderPublic writes the public subset: summary, services, regions and the impact's start and
// end, then customer impact, root cause, detection, response, the public timeline and the
// follow-ups by title (those not dropped as won't do). Trigger, lessons, internal events,
// follow-up owners and dates, and the figures stay inside. Callers show it only for a published postmortem.
func RenderPublic(inc *models.Incident) string {
	var b strings.Builder
	heading(&b, inc)
	publicFacts(&b, inc)
	writePublicBody(&b, inc)
	return finish(&b)
}

// PublicBody is the text a status page carries as an incident's postmortem: the summary and
// RenderPublic's sections, less the timeline, which the page shows as its own updates.
func PublicBody(inc *models.Incident) string {
	var b strings.Builder
	if s := userText(inc.Summary); s != "" {
		b.WriteString(s + "\n\n")
	}
	publicSections(&b, inc, false)
	return finish(&b)
}

func writePublicBody(b *strings.Builder, inc *models.Incident) { publicSections(b, inc, true) }

func publicSections(b *strings.Builder, inc *models.Incident, withTimeline bool) {
	customerImpact(b, inc, false)
	section(b, "Root Cause", userText(inc.RootCause))
	section(b, "Detection", userText(inc.Detection))
	section(b, "Response", userText(inc.Response))
	for _, sec := range inc.Sections {
		if sec.Public {
			section(b, inline(sec.Heading), userText(sec.Body))
		}
	}
	if withTimeline {
		timeline(b, inc, true)
	}
	followUps(b, inc, true)
}

// finish ends the document. User text was made inert field by field; set in lists and under
// headings it is read once more as a whole, in case its new surroundings let anything come alive.
func finish(b *strings.Builder) string {
	return inertHTML(strings.TrimSpace(b.String())) + "\n"
}

func heading(b *strings.Builder, inc *models.Incident) {
	fmt.Fprintf(b, "# %s\n\n", inline(inc.Title))
	if s := userText(inc.Summary); s != "" {
		b.WriteString(s + "\n\n")
	}
}

func facts(b *strings.Builder, inc *models.Incident) {
	loc := inc.Location()
	fact(b, "Severity", strings.ToUpper(inc.Severity))
	fact(b, "Status", label(inc.Status))
	fact(b, "Services", names(inc.ServiceNames()))
	fact(b, "Regions", names(inc.RegionNames()))
	fact(b, "Contributing factors", factorNames(inc.Factors))
	method := "not recorded"
	if inc.DetectionMethod != "" {
		method = label(inc.DetectionMethod)
	}
	fact(b, "Detection method", method)
	for n, t := range inc.Milestones().List() {
		if t != nil {
			fact(b, models.MilestoneLabels[models.MilestoneNames[n]], When(*t, loc))
		}
	}
	postmortem := label(inc.PostmortemState)
	if inc.PostmortemState == "published" && inc.PublishedAt != nil {
		postmortem += " " + When(*inc.PublishedAt, loc)
	}
	fact(b, "Postmortem", postmortem)
	b.WriteString("\n")
}

func publicFacts(b *strings.Builder, inc *models.Incident) {
	loc := inc.Location()
	fact(b, "Services", names(inc.ServiceNames()))
	fact(b, "Regions", names(inc.RegionNames()))
	if inc.StartedAt != nil {
		fact(b, "Impact started", When(*inc.StartedAt, loc))
	}
	if inc.MitigatedAt != nil {
		fact(b, "Impact ended", When(*inc.MitigatedAt, loc))
	}
	if inc.ResolvedAt != nil {
		fact(b, "Resolved", When(*inc.ResolvedAt, loc))
	}
	b.WriteString("\n")
}

func fact(b *strings.Builder, name, value string) {
	if value != "" {
		fmt.Fprintf(b, "- **%s:** %s\n", name, value)
	}
}

// figures says each figure in words, measured from the start of customer impact.
func figures(b *strings.Builder, inc *models.Incident) {
	m := models.ComputeMetrics(inc)
	var lines, missing []string
	// A figure measured from or to a milestone known only to the day is said in whole days.
	words := func(f models.Figure, d time.Duration) string {
		if f.Approximate {
			return models.ApproximateDuration(d)
		}
		return Words(d)
	}
	phrase := func(f models.Figure, did, name, noun string) {
		switch {
		case !f.Recorded:
			missing = append(missing, name)
		case f.Invalid:
			lines = append(lines, fmt.Sprintf("%s %s before impact began: invalid, the %s is recorded before the start.", did, words(f, -f.Value), noun))
		default:
			lines = append(lines, fmt.Sprintf("%s %s after impact began.", did, words(f, f.Value)))
		}
	}
	phrase(m.TimeToDetect, "Detected", "time to detect", "detection")
	phrase(m.TimeToAcknowledge, "Acknowledged", "time to acknowledge", "acknowledgement")
	phrase(m.TimeToMitigate, "Mitigated", "time to mitigate", "mitigation")
	phrase(m.TimeToResolve, "Resolved", "time to resolve", "resolution")
	phrase(m.TimeToFirstPublicUpdate, "First public update", "time to first public update", "first public update")
	switch {
	case m.Latent.Invalid:
		lines = append(lines, fmt.Sprintf("The trigger is recorded %s after impact began: invalid.", words(m.Latent, -m.Latent.Value)))
	case m.Latent.Recorded:
		lines = append(lines, fmt.Sprintf("Impact began %s after the trigger.", words(m.Latent, m.Latent.Value)))
	default:
		missing = append(missing, "latent period")
	}
	switch {
	case m.ImpactOngoing:
		lines = append(lines, "Customers are still affected.")
	case m.Impact.Recorded:
		line := fmt.Sprintf("Customers were affected for %s in all.", Words(m.Impact.Value))
		if m.Impact.Invalid {
			line += " An impact window that ends before it starts is left out."
		}
		lines = append(lines, line)
	default:
		missing = append(missing, "impact time")
	}
	if len(missing) > 0 {
		lines = append(lines, "Not recorded: "+strings.Join(missing, ", ")+".")
	}
	b.WriteString("**Figures**, measured from the start of customer impact:\n\n")
	for _, line := range lines {
		b.WriteString("- " + line + "\n")
	}
	b.WriteString("\n")
}

func customerImpact(b *strings.Builder, inc *models.Incident, withWindows bool) {
	text := userText(inc.CustomerImpact)
	if !withWindows || len(inc.ImpactWindows) == 0 {
		section(b, "Customer Impact", text)
		return
	}
	loc := inc.Location()
	var w strings.Builder
	if text != "" {
		w.WriteString(text + "\n\n")
	}
	w.WriteString("Impact windows:\n\n")
	for _, win := range inc.ImpactWindows {
		end := "ongoing"
		if win.EndedAt != nil {
			end = When(*win.EndedAt, loc)
		}
		fmt.Fprintf(&w, "- %s to %s, %s", When(win.StartedAt, loc), end, label(win.Level))
		if services := win.ServiceNames(); len(services) > 0 {
			fmt.Fprintf(&w, " (%s)", names(services))
		}
		if note := strings.TrimSpace(win.Note); note != "" {
			w.WriteString(": " + indent(inline(note)))
		}
		w.WriteString("\n")
	}
	section(b, "Customer Impact", w.String())
}

func section(b *strings.Builder, title, body string) {
	body = strings.TrimSpace(body)
	if body == "" {
		return
	}
	fmt.Fprintf(b, "## %s\n\n%s\n\n", title, body)
}

func timeline(b *strings.Builder, inc *models.Incident, public bool) {
	loc := inc.Location()
	var w strings.Builder
	for _, ev := range inc.Timeline {
		if public && !ev.Public {
			continue
		}
		kind := label(ev.Kind)
		if ev.Kind == "status_update" && ev.Status != "" {
			kind += " (" + label(ev.Status) + ")"
		}
		if !public && !ev.Public {
			kind += ", internal"
		}
		fmt.Fprintf(&w, "- **%s**, %s", When(ev.At, loc), kind)
		if body := userText(ev.Body); body != "" {
			w.WriteString(": " + indent(body))
		}
		w.WriteString("\n")
	}
	section(b, "Timeline", w.String())
}

func followUps(b *strings.Builder, inc *models.Incident, public bool) {
	var w strings.Builder
	for _, f := range inc.FollowUps {
		if public {
			if f.Status != "wont_do" { // a promise not kept is not one to show
				fmt.Fprintf(&w, "- %s\n", inline(f.Title))
			}
			continue
		}
		box := "[ ]"
		if f.Status == "done" {
			box = "[x]"
		}
		details := []string{label(f.Status), f.Priority, label(f.Kind)}
		if f.Owner != "" {
			details = append(details, "owner "+inline(f.Owner))
		}
		if f.DueOn != nil {
			details = append(details, "due "+f.DueOn.UTC().Format(time.DateOnly))
		}
		if f.DoneAt != nil && f.Status == "done" {
			details = append(details, "done "+f.DoneAt.In(inc.Location()).Format(time.DateOnly))
		}
		if len(f.Factors) > 0 {
			details = append(details, "addresses "+factorNames(f.Factors))
		}
		fmt.Fprintf(&w, "- %s **%s** (%s)\n", box, inline(f.Title), strings.Join(details, ", "))
		for _, extra := range []struct{ name, text string }{
			{"", f.Description}, {"Verification: ", f.Verification}, {"Tracker: ", f.TrackerURL},
		} {
			if text := userText(extra.text); text != "" {
				w.WriteString("  " + extra.name + indent(text) + "\n")
			}
		}
	}
	section(b, "Follow-up", w.String())
}

// When writes an instant in a zone the way the postmortem shows it: "Mon 9 Mar 2026 16:00 UTC".
func When(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("Mon 2 Jan 2006 15:04 MST")
}

// Words writes a duration in words, hours and minutes above an hour: "72 hours 54 minutes",
// "20 minutes 5 seconds", "0 seconds".
func Words(d time.Duration) string {
	if d < 0 {
		return "minus " + Words(-d)
	}
	d = d.Round(time.Second)
	h, m, s := int64(d/time.Hour), int64(d%time.Hour/time.Minute), int64(d%time.Minute/time.Second)
	unit := func(n int64, one string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %ss", n, one)
	}
	switch {
	case h > 0 && m > 0:
		return unit(h, "hour") + " " + unit(m, "minute")
	case h > 0:
		return unit(h, "hour")
	case m > 0 && s > 0:
		return unit(m, "minute") + " " + unit(s, "second")
	case m > 0:
		return unit(m, "minute")
	}
	return unit(s, "second")
}

// label turns a vocabulary word into words: partial_outage → partial outage.
func label(word string) string { return strings.ReplaceAll(word, "_", " ") }

func factorNames(factors []models.Factor) string {
	list := make([]string, len(factors))
	for n, f := range factors {
		list[n] = f.Name
	}
	return names(list)
}

func names(list []string) string {
	out := make([]string, len(list))
	for n, name := range list {
		out[n] = inline(name)
	}
	return strings.Join(out, ", ")
}

// inline makes a one-line value safe inside a heading or list item: no line breaks, and no
// Markdown it did not mean.
var inlineEscaper = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", `\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "<", `\<`)

func inline(s string) string { return inlineEscaper.Replace(strings.TrimSpace(s)) }

// indent keeps a multi-line body inside its list item.
func indent(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n  ") }
