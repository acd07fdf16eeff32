// Package cstate reads cState status page incidents (one Markdown file per incident, with YAML
// front matter) into Hindsight's incidents for import.
package cstate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"hindsight/models"
	"hindsight/models/importer"
)

// Source marks incidents imported from cState; their external id is the file name without .md.
const Source = "cstate"

// ParseOptions change what Parse imports.
type ParseOptions struct {
	// IncludeMaintenance imports planned maintenance and informational posts as incidents, as
	// Hindsight did before it kept maintenance; by default planned maintenance becomes a
	// maintenance record (Record.Maintenance) and informational posts are skipped.
	IncludeMaintenance bool
}

// severity maps cState's severities to Hindsight's and to the level of the impact window.
var severity = map[string]struct{ severity, level string }{
	"down":      {"sev1", "major_outage"},
	"disrupted": {"sev2", "partial_outage"},
	"notice":    {"sev4", "degraded"},
}

// frontMatter is what Parse reads from the header; cState ignores what it does not know, and so
// does Parse.
type frontMatter struct {
	values map[string]string
	lists  map[string][]string
}

// ParseDir reads every incident file (*.md, Hugo's _index.md excepted) in a folder, in name order.
func ParseDir(dir string, opts ParseOptions) ([]importer.Record, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var records []importer.Record
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.EqualFold(filepath.Ext(name), ".md") || strings.HasPrefix(name, "_") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		records = append(records, Parse(data, name, opts))
	}
	return records, nil
}

// Parse reads one cState incident file. name is the file's name: the record's external id is
// the name without its extension, the id cState's own URL uses. Problems are in the record's
// Errors; a file cannot fail to parse as a whole.
func Parse(data []byte, name string, opts ParseOptions) importer.Record {
	base := filepath.Base(name)
	rec := importer.Record{File: name, FieldNames: map[string]string{"services": "affected"}}
	in := &rec.Input
	in.Source, in.ExternalID = Source, strings.TrimSuffix(base, filepath.Ext(base))
	in.TimeZone, in.Public, in.PostmortemState = "UTC", true, "none"

	fm, body, err := splitFrontMatter(data)
	if err != nil {
		rec.Errors.Add("front matter", err.Error())
		return rec
	}
	in.Title = strings.TrimSpace(fm.values["title"])

	if reason := planned(fm, base); reason != "" && !opts.IncludeMaintenance {
		if strings.HasPrefix(reason, "informational") {
			rec.Skip = reason
			return rec
		}
		rec.MaintenanceReason = reason
		rec.Maintenance = maintenance(&rec, fm, body)
		return rec
	}

	start, ok := ParseDate(fm.values["date"])
	switch {
	case fm.values["date"] == "":
		rec.Errors.Add("date", "This field is required.")
	case !ok:
		rec.Errors.Add("date", badDate(fm.values["date"]))
	}
	resolved, ok := parseBool(fm.values["resolved"])
	if !ok {
		rec.Errors.Add("resolved", fmt.Sprintf("Cannot read %q as true or false.", fm.values["resolved"]))
	}
	var end *time.Time
	if raw := fm.values["resolvedWhen"]; raw != "" {
		t, ok := ParseDate(raw)
		switch {
		case !ok:
			rec.Errors.Add("resolvedWhen", badDate(raw))
		case resolved:
			end = t
		default:
			rec.Warnings = append(rec.Warnings, "resolvedWhen is given but resolved is false: the incident is imported as unresolved")
		}
	}
	if resolved && end == nil && fm.values["resolvedWhen"] == "" {
		rec.Warnings = append(rec.Warnings, "resolved without resolvedWhen: the time to resolve is not recorded")
	}

	sev := strings.ToLower(strings.TrimSpace(fm.values["severity"]))
	mapped, known := severity[sev]
	switch {
	case sev == "":
		rec.Errors.Add("severity", "This field is required; want down, disrupted or notice.")
	case !known:
		rec.Errors.Add("severity", fmt.Sprintf("Unknown severity %q; want down, disrupted or notice.", fm.values["severity"]))
	}
	in.Severity = mapped.severity
	in.Status = "investigating"
	if resolved {
		in.Status = "resolved"
	}
	in.Services = fm.lists["affected"]
	in.Milestones.StartedAt = start
	in.Milestones.ResolvedAt = end
	if start != nil && end != nil && end.Before(*start) {
		rec.Warnings = append(rec.Warnings, "resolvedWhen is before date: kept as given, and the time to resolve is flagged invalid")
	}

	windows := []models.WindowInput{}
	if start != nil && mapped.level != "" {
		if end != nil && end.Before(*start) {
			rec.Warnings = append(rec.Warnings, "the impact window would end before it starts: it is left out")
		} else {
			windows = append(windows, models.WindowInput{
				StartedAt: *start, EndedAt: end, Level: mapped.level, Services: in.Services,
				Note: fmt.Sprintf("From the cState severity %q.", sev),
			})
		}
	}
	rec.Children.ImpactWindows = &windows

	timeline := []models.EventInput{}
	if start != nil {
		timeline = messages(&rec, body, *start, end)
	}
	rec.Children.Timeline = &timeline
	return rec
}

// maintenance maps a planned maintenance file to Hindsight's maintenance record: scheduled
// from date to resolvedWhen (else date plus duration minutes, as cState's own maintenance
// posts give it), its affected components, and its messages as updates: the first scheduled,
// the final completed, those between in progress.
func maintenance(rec *importer.Record, fm frontMatter, body []byte) *models.MaintenanceImport {
	mi := &models.MaintenanceImport{Source: Source, ExternalID: rec.Input.ExternalID, ComponentNames: fm.lists["affected"]}
	mi.Input.Title, mi.Input.Public = rec.Input.Title, true
	start, ok := ParseDate(fm.values["date"])
	switch {
	case fm.values["date"] == "":
		rec.Errors.Add("date", "This field is required.")
	case !ok:
		rec.Errors.Add("date", badDate(fm.values["date"]))
	}
	if start == nil {
		return mi
	}
	mi.Input.ScheduledFor, mi.Input.ScheduledUntil = *start, *start
	resolved, _ := parseBool(fm.values["resolved"])
	var end *time.Time
	if raw := fm.values["resolvedWhen"]; raw != "" {
		if t, ok := ParseDate(raw); ok {
			end = t
			mi.Input.ScheduledUntil = *t
		} else {
			rec.Errors.Add("resolvedWhen", badDate(raw))
		}
	} else if minutes, err := strconv.Atoi(strings.TrimSpace(fm.values["duration"])); err == nil && minutes > 0 {
		mi.Input.ScheduledUntil = start.Add(time.Duration(minutes) * time.Minute)
	} else {
		rec.Warnings = append(rec.Warnings, "maintenance without resolvedWhen or duration: its end is taken to be its start")
	}
	if !resolved {
		end = nil
	}
	for n, ev := range messages(rec, body, *start, end) {
		status := models.MaintenanceInProgress
		switch {
		case ev.Status == "resolved":
			status = models.MaintenanceCompleted
		case n == 0:
			status = models.MaintenanceScheduled
		}
		mi.Updates = append(mi.Updates, models.MaintenanceUpdateInput{Status: status, Body: ev.Body, At: ev.At})
	}
	if resolved && (len(mi.Updates) == 0 || mi.Updates[len(mi.Updates)-1].Status != models.MaintenanceCompleted) {
		mi.Updates = append(mi.Updates, models.MaintenanceUpdateInput{Status: models.MaintenanceCompleted, At: mi.Input.ScheduledUntil})
	}
	if len(mi.Updates) == 0 {
		mi.Updates = []models.MaintenanceUpdateInput{{Status: models.MaintenanceScheduled, At: *start}}
	}
	return mi
}

var maintenanceWord = regexp.MustCompile(`(?i)\bmaintenances?\b`)

// planned says why a file is planned work rather than an incident, or "".
func planned(fm frontMatter, base string) string {
	if informational, _ := parseBool(fm.values["informational"]); informational {
		return "informational post, not an incident (informational: true)"
	}
	if section := fm.values["section"]; strings.Contains(strings.ToLower(section), "maint") {
		return fmt.Sprintf("planned maintenance (section %q)", section)
	}
	if maintenanceWord.MatchString(fm.values["title"]) {
		return "planned maintenance (the title says maintenance)"
	}
	if maintenanceWord.MatchString(strings.NewReplacer("-", " ", "_", " ", ".", " ").Replace(base)) {
		return "planned maintenance (the file name says maintenance)"
	}
	return ""
}

// messageMarker is a line like [Initial message], [Update] or [Final Message] that starts a
// block of a cState incident's body.
var messageMarker = regexp.MustCompile(`(?i)^\s*\[\s*(initial|update|updated|final|investigating|identified|monitoring|resolved)(\s+(message|update))?\s*\]\s*$`)

// messages turns the body into public status updates. Files list their blocks newest first. The
// first message is posted at the start and the final one at the resolution; cState gives the
// updates in between no time, so they are placed at the start too, in their order, and a warning
// says so. A body without markers is one message at the start.
func messages(rec *importer.Record, body []byte, start time.Time, end *time.Time) []models.EventInput {
	type block struct {
		kind string
		text strings.Builder
	}
	var blocks []*block
	current := &block{kind: "initial"}
	for _, line := range strings.Split(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n") {
		if m := messageMarker.FindStringSubmatch(line); m != nil {
			current = &block{kind: strings.ToLower(m[1])}
			blocks = append(blocks, current)
			continue
		}
		if len(blocks) == 0 && strings.TrimSpace(line) == "" && current.text.Len() == 0 {
			continue
		}
		if len(blocks) == 0 {
			blocks = append(blocks, current)
		}
		current.text.WriteString(line + "\n")
	}
	var out []models.EventInput
	untimed := 0
	// Oldest first: the reverse of the file's order.
	for _, b := range slices.Backward(blocks) {
		text := strings.TrimSpace(b.text.String())
		if text == "" {
			continue
		}
		ev := models.EventInput{At: start, Kind: "status_update", Status: "investigating", Body: text, Public: true}
		switch b.kind {
		case "final", "resolved":
			if end != nil {
				ev.At, ev.Status = *end, "resolved"
			} else {
				untimed++
			}
		case "initial":
		case "identified", "monitoring":
			ev.Status = b.kind
			untimed++
		default:
			untimed++
		}
		out = append(out, ev)
	}
	if untimed > 0 {
		rec.Warnings = append(rec.Warnings, "cState gives updates no time: updates between the first and the final message are placed at the start")
	}
	return out
}

// splitFrontMatter separates the YAML header from the body. It reads the simple YAML cState
// writes (key: value, quoted or not, and lists of "- item" lines or [a, b]) and nothing more.
func splitFrontMatter(data []byte) (frontMatter, []byte, error) {
	fm := frontMatter{values: map[string]string{}, lists: map[string][]string{}}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	trimmed := strings.TrimLeft(text, " \t\n")
	if strings.HasPrefix(trimmed, "+++") {
		return fm, nil, fmt.Errorf("TOML front matter (+++) is not supported; cState writes YAML between --- lines")
	}
	if !strings.HasPrefix(trimmed, "---") {
		return fm, nil, fmt.Errorf("the file does not start with front matter between --- lines")
	}
	lines := strings.Split(trimmed, "\n")
	closing := -1
	for n := 1; n < len(lines); n++ {
		if strings.TrimRight(lines[n], " \t") == "---" || strings.TrimRight(lines[n], " \t") == "..." {
			closing = n
			break
		}
	}
	if closing < 0 {
		return fm, nil, fmt.Errorf("the front matter has no closing --- line")
	}
	listKey := ""
	for n, line := range lines[1:closing] {
		content := strings.TrimRight(line, " \t")
		stripped := strings.TrimSpace(content)
		if stripped == "" || strings.HasPrefix(stripped, "#") {
			continue
		}
		if strings.HasPrefix(stripped, "- ") || stripped == "-" {
			if listKey == "" {
				return fm, nil, fmt.Errorf("line %d: a list item outside a list", n+2)
			}
			if item := scalar(strings.TrimPrefix(stripped, "-")); item != "" {
				fm.lists[listKey] = append(fm.lists[listKey], item)
			}
			continue
		}
		if strings.HasPrefix(content, " ") || strings.HasPrefix(content, "\t") {
			continue // a nested value cState does not use
		}
		key, value, found := strings.Cut(content, ":")
		if !found {
			return fm, nil, fmt.Errorf("line %d: cannot read %q; want key: value", n+2, stripped)
		}
		key = strings.TrimSpace(key)
		value = strings.TrimSpace(value)
		listKey = ""
		switch {
		case value == "":
			listKey = key
			fm.lists[key] = nil
		case strings.HasPrefix(value, "[") && strings.HasSuffix(value, "]"):
			for _, item := range strings.Split(value[1:len(value)-1], ",") {
				if item = scalar(item); item != "" {
					fm.lists[key] = append(fm.lists[key], item)
				}
			}
		default:
			fm.values[key] = scalar(value)
		}
	}
	return fm, []byte(strings.Join(lines[closing+1:], "\n")), nil
}

// scalar reads a YAML scalar: quotes removed (with their escapes), and a trailing comment dropped
// from a plain value.
func scalar(s string) string {
	s = strings.TrimSpace(s)
	switch {
	case len(s) >= 2 && s[0] == '"' && strings.LastIndexByte(s, '"') > 0:
		inner := s[:strings.LastIndexByte(s, '"')+1]
		if unquoted, err := strconv.Unquote(inner); err == nil {
			return unquoted
		}
		return inner[1 : len(inner)-1]
	case len(s) >= 2 && s[0] == '\'' && strings.LastIndexByte(s, '\'') > 0:
		return strings.ReplaceAll(s[1:strings.LastIndexByte(s, '\'')], "''", "'")
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

func parseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off", "":
		return false, true
	}
	return false, false
}

// dateForm matches the dates cState files carry: 2023-03-09T09:00:00-00:00, 2023-03-09 9:00:00,
// 2019-10-04 18:05:00 UTC, 2023-03-09T09:00Z, 2023-03-09 and the like.
var dateForm = regexp.MustCompile(`^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:T|\s+)(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$`)

// ParseDate reads a cState date in any of the forms its files use. A date without an offset is
// UTC, as Hugo reads it by default.
func ParseDate(value string) (*time.Time, bool) {
	m := dateForm.FindStringSubmatch(strings.TrimSpace(value))
	if m == nil {
		return nil, false
	}
	num := func(s string) int {
		n, _ := strconv.Atoi(s)
		return n
	}
	year, month, day := num(m[1]), num(m[2]), num(m[3])
	hour, minute, second := num(m[4]), num(m[5]), num(m[6])
	nanos := 0
	if m[7] != "" {
		nanos = num((m[7] + "000000000")[:9])
	}
	if month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60 {
		return nil, false
	}
	offset := 0
	if zone := m[8]; zone != "" && zone != "Z" && zone != "UTC" && zone != "GMT" {
		digits := strings.ReplaceAll(zone[1:], ":", "")
		h, mins := num(digits[:2]), 0
		if len(digits) == 4 {
			mins = num(digits[2:])
		}
		if h > 14 || mins > 59 {
			return nil, false
		}
		offset = (h*60 + mins) * 60
		if zone[0] == '-' {
			offset = -offset
		}
	}
	t := time.Date(year, time.Month(month), day, hour, minute, second, nanos, time.FixedZone("", offset))
	if t.Day() != day { // 31 February and the like
		return nil, false
	}
	t = t.UTC()
	return &t, true
}

func badDate(value string) string {
	return fmt.Sprintf("Cannot read %q as a date; want a form like 2023-03-09T09:00:00Z or 2023-03-09 09:00 UTC.", value)
}
