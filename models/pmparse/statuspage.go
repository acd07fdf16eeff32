package pmparse

import (
	"strconv"
	"strings"
	"time"

	"hindsight/models/statuspage"
)

// ParseStatuspage reads one incident of a Statuspage page's public API (GET
// /api/v2/incidents.json's elements, or an incident.json) pasted as JSON into a draft, its
// updates as status updates. ok is false when the text is not Statuspage JSON, so the caller
// reads it as prose instead.
func ParseStatuspage(text string) (d Draft, ok bool) {
	trimmed := strings.TrimSpace(text)
	if !strings.HasPrefix(trimmed, "{") && !strings.HasPrefix(trimmed, "[") {
		return Draft{}, false
	}
	records, err := statuspage.Parse([]byte(trimmed), "pasted", statuspage.ParseOptions{IncludeMaintenance: true})
	if err != nil || len(records) == 0 {
		return Draft{}, false
	}
	rec := records[0]
	in := rec.Input
	d = Draft{Incident: Incident{Milestones: map[string]time.Time{}}, Evidence: map[string]string{}, Alternatives: map[string][]Reading{}}
	inc := &d.Incident
	where := "the pasted Statuspage JSON"
	if in.ExternalID != "" {
		where += " (incident " + in.ExternalID + ")"
	}
	if in.Title != "" {
		inc.Title, d.Evidence["title"] = cut(in.Title, titleMax), "name: "+in.Title
	}
	if in.Status != "" {
		inc.Status, d.Evidence["status"] = in.Status, "status in "+where
	}
	if in.RootCause != "" {
		inc.RootCause, d.Evidence["root_cause"] = cut(in.RootCause, sectionMax), "postmortem_body in "+where
	}
	for _, m := range []struct {
		name, words string
		at          *time.Time
	}{
		{"started_at", "started_at (or created_at)", in.Milestones.StartedAt},
		{"mitigated_at", "monitoring_at", in.Milestones.MitigatedAt},
		{"resolved_at", "resolved_at", in.Milestones.ResolvedAt},
	} {
		if m.at != nil {
			inc.Milestones[m.name], d.Evidence[m.name] = m.at.UTC(), m.words+" in "+where
		}
	}
	if rec.Children.Timeline != nil {
		for n, ev := range *rec.Children.Timeline {
			inc.Timeline = append(inc.Timeline, Entry{At: ev.At.UTC(), Kind: ev.Kind, Status: ev.Status, Body: cut(ev.Body, sectionMax), Public: ev.Public})
			d.Evidence["timeline["+strconv.Itoa(n)+"]"] = "incident_updates in " + where
		}
	}
	if rec.Children.ImpactWindows != nil {
		for n, w := range *rec.Children.ImpactWindows {
			if w.EndedAt == nil {
				continue
			}
			inc.Windows = append(inc.Windows, Window{StartedAt: w.StartedAt.UTC(), EndedAt: w.EndedAt.UTC(), Level: w.Level, Note: w.Note})
			d.Evidence["windows["+strconv.Itoa(n)+"]"] = "affected components in " + where
		}
	}
	return d, true
}
