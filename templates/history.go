package templates

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"hindsight/models"
)

// HistoryItem is one line of a history as people read it: who did what when, with the changed
// fields under their labels. Records created together (an incident with its timeline, an import)
// are one item.
type HistoryItem struct {
	At      time.Time
	Actor   string
	Summary string
	Changes []HistoryChange
}

// HistoryChange is one changed field: short values side by side, long texts as a line diff.
type HistoryChange struct {
	Label         string
	Before, After string
	// Diff, when set, holds the changed lines of a long text, with a little context.
	Diff    []models.DiffLine
	Removed int
	Added   int
}

// createdTogether is how close in time records must be created, by the same person, to be told
// as one creation: an import or a filing writes them within one transaction.
const createdTogether = time.Minute

// HistoryItems turns audit entries, newest first, into the items of a history, newest first.
func HistoryItems(entries []models.AuditEntry, loc *time.Location) []HistoryItem {
	var items []groupedItem
	// Walk oldest first, so that records created right after their incident join its creation.
	for n := len(entries) - 1; n >= 0; n-- {
		e := entries[n]
		if e.Action == models.ActionCreate && len(items) > 0 {
			last := &items[len(items)-1]
			if g := last.group; g != nil && g.actor == e.Actor && e.At.Sub(g.at) <= createdTogether && e.At.Sub(g.at) >= 0 &&
				(g.entity == models.EntityIncident || g.entity == e.Entity) && e.Entity != models.EntityIncident {
				g.counts[e.Entity]++
				last.Summary = g.summary()
				last.Changes = nil
				continue
			}
		}
		items = append(items, historyItem(e, loc))
	}
	out := make([]HistoryItem, len(items))
	for n, it := range items {
		out[len(items)-1-n] = it.HistoryItem
	}
	return out
}

// historyGroup counts what was created together with the first record of a group.
type historyGroup struct {
	actor, entity string
	at            time.Time
	head          string   // what the first creation said: "created the incident (SEV2, Resolved)"
	parts         []string // what it was created with: "6 milestones"
	counts        map[string]int
}

type groupedItem struct {
	HistoryItem
	group *historyGroup
}

var entityNouns = map[string][2]string{
	models.EntityEvent:    {"timeline entry", "timeline entries"},
	models.EntityWindow:   {"impact window", "impact windows"},
	models.EntityFollowUp: {"follow-up", "follow-ups"},
	models.EntityLink:     {"link", "links"},
}

func (g *historyGroup) summary() string {
	parts := append([]string(nil), g.parts...)
	for _, entity := range []string{models.EntityEvent, models.EntityWindow, models.EntityFollowUp, models.EntityLink} {
		n := g.counts[entity]
		if n == 0 {
			continue
		}
		noun := entityNouns[entity]
		parts = append(parts, Plural(n, noun[0], noun[1]))
	}
	if g.entity != models.EntityIncident && g.counts[g.entity] == 1 {
		return g.head
	}
	if g.entity != models.EntityIncident {
		// Several records of one kind added at once: "added 7 timeline entries".
		noun := entityNouns[g.entity]
		return "added " + Plural(g.counts[g.entity], noun[0], noun[1])
	}
	if len(parts) == 0 {
		return g.head
	}
	return g.head + " with " + listJoin(parts)
}

func listJoin(parts []string) string {
	if len(parts) <= 1 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func historyItem(e models.AuditEntry, loc *time.Location) groupedItem {
	changes := e.ChangeList()
	it := groupedItem{HistoryItem: HistoryItem{At: e.At, Actor: e.Actor}}
	switch e.Action {
	case models.ActionCreate:
		g := &historyGroup{actor: e.Actor, entity: e.Entity, at: e.At, counts: map[string]int{}}
		g.head, g.parts = createdSummary(e, changes, loc)
		if e.Entity != models.EntityIncident {
			g.counts[e.Entity] = 1
		}
		it.group = g
		it.Summary = g.summary()
	case models.ActionDelete:
		it.Summary = "deleted " + entityName(e) + describe(e.Entity, changes, loc, "before")
	case models.ActionRestore:
		it.Summary = "restored " + entityName(e)
	default:
		it.Summary = "changed " + entityName(e)
		for _, c := range changes {
			it.Changes = append(it.Changes, historyChange(e.Entity, c, loc))
		}
	}
	return it
}

func entityName(e models.AuditEntry) string {
	if e.Entity == models.EntityIncident {
		return "the incident"
	}
	if noun, ok := entityNouns[e.Entity]; ok {
		return fmt.Sprintf("%s #%d", noun[0], e.EntityID)
	}
	return fmt.Sprintf("%s #%d", Humanize(e.Entity), e.EntityID)
}

// createdSummary tells a creation in one line, leaving out every field that was left empty: what
// was created, and what it was created with.
func createdSummary(e models.AuditEntry, changes []models.Change, loc *time.Location) (string, []string) {
	if e.Entity != models.EntityIncident {
		return "created " + entityName(e) + describe(e.Entity, changes, loc, "after"), nil
	}
	values := map[string]any{}
	for _, c := range changes {
		values[c.Field] = c.After
	}
	var facts []string
	if s, _ := values["severity"].(string); s != "" {
		facts = append(facts, Label(s))
	}
	if s, _ := values["status"].(string); s != "" {
		facts = append(facts, Label(s))
	}
	head := "created the incident"
	if len(facts) > 0 {
		head += " (" + strings.Join(facts, ", ") + ")"
	}
	var parts []string
	milestones := 0
	for _, f := range []string{"triggered_at", "started_at", "detected_at", "acknowledged_at", "mitigated_at", "resolved_at"} {
		if values[f] != nil {
			milestones++
		}
	}
	if milestones > 0 {
		parts = append(parts, Plural(milestones, "milestone", "milestones"))
	}
	for _, f := range []struct{ field, one, many string }{
		{"services", "service", "services"}, {"regions", "region", "regions"}, {"factors", "factor", "factors"},
	} {
		if list, _ := values[f.field].([]any); len(list) > 0 {
			parts = append(parts, Plural(len(list), f.one, f.many))
		}
	}
	sections := 0
	for _, f := range []string{"summary", "customer_impact", "root_cause", "trigger", "detection", "response", "lessons"} {
		if s, _ := values[f].(string); s != "" {
			sections++
		}
	}
	if sections > 0 {
		parts = append(parts, Plural(sections, "written section", "written sections"))
	}
	return head, parts
}

// describe names a timeline entry, window, follow-up or link by what identifies it to a reader.
func describe(entity string, changes []models.Change, loc *time.Location, side string) string {
	values := map[string]any{}
	for _, c := range changes {
		if side == "before" {
			values[c.Field] = c.Before
		} else {
			values[c.Field] = c.After
		}
	}
	str := func(name string) string { s, _ := values[name].(string); return s }
	var bits []string
	switch entity {
	case models.EntityEvent:
		bits = append(bits, Label(str("kind")), historyTime(str("at"), loc))
	case models.EntityWindow:
		bits = append(bits, Label(str("level")), "from "+historyTime(str("started_at"), loc))
	case models.EntityFollowUp:
		bits = append(bits, fmt.Sprintf("%q", str("title")))
	case models.EntityLink:
		if to, ok := values["to_id"].(float64); ok {
			bits = append(bits, fmt.Sprintf("%s #%d", Label(str("kind")), int64(to)))
		}
	}
	var kept []string
	for _, b := range bits {
		if b != "" && b != `""` && b != "from " {
			kept = append(kept, b)
		}
	}
	if len(kept) == 0 {
		return ""
	}
	return ": " + strings.Join(kept, ", ")
}

// historyTime writes a recorded instant in the incident's zone, the way every page writes times.
func historyTime(value string, loc *time.Location) string {
	t, err := time.Parse(time.RFC3339, value)
	if err != nil {
		return value
	}
	return When(t, loc)
}

// fieldLabels name the recorded fields as the forms do; per entity where a name means another
// thing there.
var fieldLabels = map[string]string{
	"title": "Title", "summary": "Summary", "severity": "Severity", "status": "Status",
	"detection_method": "Detection method", "customer_impact": "Customer impact",
	"root_cause": "Root cause", "trigger": "Trigger", "detection": "Detection", "response": "Response",
	"lessons": "Lessons", "time_zone": "Time zone", "triggered_at": "Triggered",
	"started_at": "Impact started", "detected_at": "Detected", "acknowledged_at": "Acknowledged",
	"mitigated_at": "Mitigated", "resolved_at": "Resolved", "postmortem_state": "Postmortem",
	"published_at": "Published", "published_version": "Published version", "public": "On the status page",
	"services": "Services", "regions": "Regions", "factors": "Contributing factors",
	"at": "At", "kind": "Kind", "body": "Text", "level": "Level", "note": "Note", "ended_at": "Ended",
	"description": "Description", "priority": "Priority", "owner": "Owner", "due_on": "Due",
	"done_at": "Done", "tracker_url": "Tracker link", "verification": "How we will know it worked",
	"to_id": "Linked incident",
	// Where a milestone's time came from, recorded when a person's time replaces a machine's.
	"triggered_at_source": "Triggered: source", "started_at_source": "Impact started: source",
	"detected_at_source": "Detected: source", "acknowledged_at_source": "Acknowledged: source",
	"mitigated_at_source": "Mitigated: source", "resolved_at_source": "Resolved: source",
}

var entityFieldLabels = map[string]map[string]string{
	models.EntityWindow: {"started_at": "Started", "services": "Affected services"},
	models.EntityEvent:  {"public": "Shown to customers", "status": "Status posted"},
}

// FieldLabel names a recorded field for a reader: "root_cause" is "Root cause".
func FieldLabel(entity, field string) string {
	if l, ok := entityFieldLabels[entity][field]; ok {
		return l
	}
	if l, ok := fieldLabels[field]; ok {
		return l
	}
	return Humanize(field)
}

// Humanize turns a snake_case name into words: "follow_up" is "Follow up".
func Humanize(name string) string {
	s := strings.ReplaceAll(name, "_", " ")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// enumFields hold a value from a fixed vocabulary, shown by its label.
var enumFields = map[string]bool{
	"severity": true, "status": true, "detection_method": true, "postmortem_state": true,
	"kind": true, "level": true, "priority": true,
}

// longText is where a value is better read as the lines that changed.
func longText(v any) bool {
	s, _ := v.(string)
	return len(s) > 120 || strings.Contains(s, "\n")
}

func historyChange(entity string, c models.Change, loc *time.Location) HistoryChange {
	hc := HistoryChange{Label: FieldLabel(entity, c.Field)}
	if longText(c.Before) || longText(c.After) {
		before, _ := c.Before.(string)
		after, _ := c.After.(string)
		lines := models.LineDiff(before, after)
		for _, l := range lines {
			switch l.Op {
			case '-':
				hc.Removed++
			case '+':
				hc.Added++
			}
		}
		hc.Diff = models.DiffContext(lines, 1)
		return hc
	}
	hc.Before, hc.After = historyValue(c.Field, c.Before, loc), historyValue(c.Field, c.After, loc)
	return hc
}

func historyValue(field string, v any, loc *time.Location) string {
	switch x := v.(type) {
	case nil:
		return "—"
	case bool:
		if x {
			return "Yes"
		}
		return "No"
	case string:
		if enumFields[field] {
			if x == "" {
				return "—"
			}
			return Label(x)
		}
		if strings.HasSuffix(field, "_at") || field == "at" {
			return historyTime(x, loc)
		}
		if x == "" {
			return "(empty)"
		}
		return x
	case []any:
		parts := make([]string, len(x))
		for n, p := range x {
			parts[n] = fmt.Sprint(p)
		}
		sort.Strings(parts)
		if len(parts) == 0 {
			return "(none)"
		}
		return strings.Join(parts, ", ")
	case float64:
		if x == float64(int64(x)) {
			return fmt.Sprintf("%d", int64(x))
		}
	}
	return fmt.Sprint(v)
}

// DiffSummary says how many lines a long text's change removed and added.
func (c HistoryChange) DiffSummary() string {
	switch {
	case c.Removed == 0:
		return Plural(c.Added, "line", "lines") + " added"
	case c.Added == 0:
		return Plural(c.Removed, "line", "lines") + " removed"
	}
	return Plural(c.Removed, "line", "lines") + fmt.Sprintf(" removed, %d added", c.Added)
}

// Plural writes a count with its noun: "1 milestone", "6 milestones".
func Plural(n int, one, many string) string { return fmt.Sprintf("%d %s", n, plural(n, one, many)) }
