package cstate

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"hindsight/models"
)

// cState's front matter dates, as its own example files write them.
const dateLayout = "2006-01-02T15:04:05-07:00"

var levelSeverity = map[string]string{"major_outage": "down", "partial_outage": "disrupted", "degraded": "notice"}

// exportSeverity is the cState severity of an incident: from its worst impact window, as Parse
// reads it back, or from its severity when it has none.
func exportSeverity(inc *models.Incident) string {
	rank := map[string]int{"degraded": 1, "partial_outage": 2, "major_outage": 3}
	worst := ""
	for _, w := range inc.ImpactWindows {
		if rank[w.Level] > rank[worst] {
			worst = w.Level
		}
	}
	if worst != "" {
		return levelSeverity[worst]
	}
	switch inc.Severity {
	case "sev1":
		return "down"
	case "sev2":
		return "disrupted"
	}
	return "notice"
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// FileName is the file an incident is exported to: its start date and its title, as cState's own
// files are named, with the incident's id so two incidents of one day and title stay apart.
func FileName(inc *models.Incident) string {
	day := inc.CreatedAt
	if inc.StartedAt != nil {
		day = *inc.StartedAt
	}
	slug := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(inc.Title), "-"), "-")
	if len(slug) > 60 {
		slug = strings.TrimRight(slug[:60], "-")
	}
	if slug == "" {
		slug = "incident"
	}
	return fmt.Sprintf("%s-%s-%d.md", day.UTC().Format("2006-01-02"), slug, inc.ID)
}

// quote writes a YAML scalar in double quotes, which cState's Hugo reads and Parse too.
func quote(s string) string { return strconv.Quote(strings.ReplaceAll(s, "\n", " ")) }

// Export writes a public incident as a cState Markdown file: the front matter cState reads
// (title, date, resolved, resolvedWhen, severity, affected, section) and the public status
// updates, newest first, each under the marker Parse reads back. cState keeps no time for an
// update, nor anything internal: the narrative, private entries and follow-ups stay behind.
func Export(inc *models.Incident) []byte {
	var b strings.Builder
	start := inc.CreatedAt
	if inc.StartedAt != nil {
		start = *inc.StartedAt
	}
	b.WriteString("---\n")
	fmt.Fprintf(&b, "title: %s\n", quote(inc.Title))
	fmt.Fprintf(&b, "date: %s\n", start.UTC().Format(dateLayout))
	resolved := inc.Status == "resolved"
	fmt.Fprintf(&b, "resolved: %t\n", resolved)
	if resolved && inc.ResolvedAt != nil {
		fmt.Fprintf(&b, "resolvedWhen: %s\n", inc.ResolvedAt.UTC().Format(dateLayout))
	}
	b.WriteString("# Possible severity levels: down, disrupted, notice\n")
	fmt.Fprintf(&b, "severity: %s\n", exportSeverity(inc))
	if names := inc.ServiceNames(); len(names) == 0 {
		b.WriteString("affected: []\n")
	} else {
		b.WriteString("affected:\n")
		for _, name := range names {
			fmt.Fprintf(&b, "  - %s\n", quote(name))
		}
	}
	b.WriteString("section: issue\n---\n")

	var updates []models.TimelineEvent
	for _, ev := range inc.Timeline {
		if ev.Public && ev.Kind == "status_update" {
			updates = append(updates, ev)
		}
	}
	slices.SortStableFunc(updates, func(a, b models.TimelineEvent) int { return a.At.Compare(b.At) })
	for n, ev := range slices.Backward(updates) {
		marker := "[Update]"
		switch {
		case ev.Status == "resolved":
			marker = "[Resolved]"
		case ev.Status == "identified" || ev.Status == "monitoring":
			marker = "[" + strings.ToUpper(ev.Status[:1]) + ev.Status[1:] + "]"
		case n == 0:
			marker = "[Initial message]"
		}
		fmt.Fprintf(&b, "\n%s\n\n%s\n", marker, strings.TrimSpace(escapeMarkers(ev.Body)))
	}
	return []byte(b.String())
}

// escapeMarkers keeps a line of an update that reads like a block marker ("[Update]") from
// starting a block when the file is read again: its bracket is escaped, which Markdown shows as
// the same text.
func escapeMarkers(body string) string {
	lines := strings.Split(body, "\n")
	for n, line := range lines {
		if messageMarker.MatchString(line) {
			lines[n] = "\\" + strings.TrimSpace(line)
		}
	}
	return strings.Join(lines, "\n")
}
