// Package pmparse reads a pasted postmortem or status-page history into a draft incident,
// keeping for each suggested value the words it came from.
package pmparse

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // zone names must resolve on machines without a zoneinfo database
	"unicode/utf8"
)

// ErrEmpty is returned for text with nothing to read.
var ErrEmpty = errors.New("pmparse: no text")

// Draft is what the text suggests for a new incident. Nothing in it is saved.
type Draft struct {
	Incident Incident
	// Evidence holds, for each suggested field ("title", "started_at", "timeline[2]",
	// "follow_ups[0]"), the words it was read from.
	Evidence map[string]string
	// Alternatives are other readings of a milestone the text also supports, by field.
	Alternatives map[string][]Reading
}

// Incident is an IncidentInput-shaped suggestion; an empty value was not stated.
type Incident struct {
	Title           string
	Summary         string
	Status          string // the last status update's status
	DetectionMethod string
	CustomerImpact  string
	RootCause       string
	Trigger         string
	Detection       string
	Response        string
	Lessons         string
	// Milestones are UTC instants keyed by "triggered_at", "started_at", "detected_at",
	// "acknowledged_at", "mitigated_at" and "resolved_at".
	Milestones map[string]time.Time
	// MilestoneDays names the milestones the text states only to the day; their instant is the
	// day's midnight in the text's zone.
	MilestoneDays []string
	Timeline      []Entry
	FollowUps     []FollowUp
	// Windows are stretches of customer impact the text states ("between A and B", "most
	// severe window: A–B"), and the whole impact from its stated start to its stated end.
	Windows []Window
}

// Window is an impact window the text states; its level is read from its words, degraded
// unless they say outage.
type Window struct {
	StartedAt time.Time
	EndedAt   time.Time
	Level     string // degraded, partial_outage or major_outage
	Note      string
}

// Entry is a timeline entry: a status update as the status page showed it, or a note.
type Entry struct {
	At     time.Time
	Kind   string // status_update or note
	Status string
	Body   string
	Public bool
}

// FollowUp is a follow-up action the text lists.
type FollowUp struct {
	Title       string
	Description string
}

// Reading is one reading of a milestone and the words it came from.
type Reading struct {
	At    time.Time
	Words string
}

// Limits of IncidentInput: longer values are cut rather than refused later.
const (
	titleMax   = 200
	summaryMax = 5000
	sectionMax = 100000
)

// Parse reads text; times that name no zone are read in zone (UTC when nil).
func Parse(text string, zone *time.Location) (Draft, error) {
	if zone == nil {
		zone = time.UTC
	}
	if strings.TrimSpace(text) == "" {
		return Draft{}, ErrEmpty
	}
	p := &parser{
		zone:  zone,
		draft: Draft{Incident: Incident{Milestones: map[string]time.Time{}}, Evidence: map[string]string{}, Alternatives: map[string][]Reading{}},
		cands: map[string][]candidate{},
	}
	p.run(normalize(text))
	return p.draft, nil
}

// candidate is one milestone value found, with how firmly the text states it.
type candidate struct {
	at       time.Time
	words    string
	strength int
	literal  *time.Time // the other reading of a zone abbreviation whose rules disagree
	day      bool       // known only to the day: at is the day's midnight in the text's zone
}

const (
	fromDay      = iota + 1 // "On the 1st of April we deployed a change": a date, no time
	fromDuration            // "detected within 20 minutes"
	fromWindow              // an end of "between A and B"
	fromSentence            // "Impact start: …", "detected at …"
	fromStatus              // a posted status update: when it was declared resolved
)

type line struct {
	text     string
	consumed bool // an update header or stamp, read already
	heading  bool // a heading, as the sections read it
}

type parser struct {
	zone    *time.Location
	draft   Draft
	cands   map[string][]candidate
	lines   []line
	lastDay day // the last complete date seen, carried to times that name none
	hasDay  bool
	lastYr  int
	// docYear is the one year the document's dates are written in, 0 for none or several; read
	// once, when a date without a year comes before any with one.
	docYear     int
	docYearRead bool
	log         logState
	lastZ       *time.Location // the last zone written, carried to times that name none
	lastAbb     string
}

var (
	escapeRe = regexp.MustCompile(`\\([()\[\]*_#.~>-])`)
)

// normalize makes copied text regular: one kind of line end and space, Markdown escapes
// removed, and headings or lists run together on one line (as a status page's postmortem
// block copies) split onto lines of their own.
func normalize(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	text = strings.ReplaceAll(text, "\u00a0", " ")
	text = strings.ReplaceAll(text, "\u200b", "")
	text = escapeRe.ReplaceAllString(text, "$1")
	text = splitInlineHeadings(text)
	raw := strings.Split(text, "\n")
	out := make([]string, 0, len(raw))
	fence := false
	for _, l := range raw {
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = !fence
			out = append(out, "")
			continue
		}
		if fence || strings.HasPrefix(trimmed, "<img") {
			out = append(out, "")
			continue
		}
		if len(l) > 200 {
			out = append(out, splitInlineList(l)...)
			continue
		}
		out = append(out, strings.TrimRight(l, " \t"))
	}
	setextHeadings(out)
	return out
}

// setextHeadings rewrites a line underlined with "===" or "---" (Markdown's other heading form,
// as the PostHog postmortems write theirs) as "# Line" or "## Line", and blanks the underline.
func setextHeadings(lines []string) {
	first := 1
	if len(lines) > 0 && strings.TrimSpace(lines[0]) == "---" {
		// A cState header's closing "---" underlines its last key, not a heading.
		for first < len(lines) && strings.TrimSpace(lines[first]) != "---" {
			first++
		}
		first++
	}
	for n := first; n < len(lines); n++ {
		u := strings.TrimSpace(lines[n])
		if len(u) < 3 || (u[0] != '=' && u[0] != '-') || strings.Trim(u, u[:1]) != "" {
			continue
		}
		prev := strings.TrimSpace(lines[n-1])
		if prev == "" || strings.HasPrefix(prev, "#") || strings.HasPrefix(prev, "|") || listItemRe.MatchString(prev) {
			continue
		}
		level := "## "
		if u[0] == '=' {
			level = "# "
		}
		lines[n-1], lines[n] = level+prev, ""
	}
}

var (
	inlineBulletRe   = regexp.MustCompile(`\s+[*•]\s+(\*\*|[A-Z])`)
	inlineNumberedRe = regexp.MustCompile(`\s(\d{1,2})\.\s+(\*\*|[A-Z])`)
)

// splitInlineList puts each item of a list written on one long line on its own line.
func splitInlineList(l string) []string {
	if (strings.Count(l, "* ")+strings.Count(l, "• ")) >= 2 && len(inlineBulletRe.FindAllStringIndex(l, 3)) >= 2 {
		l = inlineBulletRe.ReplaceAllString(l, "\n* $1")
	}
	// Numbered items only when they count up from 1, so "section 3. The" stays.
	if !strings.Contains(l, " 1. ") {
		return strings.Split(l, "\n")
	}
	matches := inlineNumberedRe.FindAllStringSubmatchIndex(l, -1)
	want := 1
	var cuts []int
	for _, m := range matches {
		if l[m[2]:m[3]] == strconv.Itoa(want) {
			cuts = append(cuts, m[0])
			want++
		}
	}
	if len(cuts) >= 2 {
		var b strings.Builder
		prev := 0
		for _, c := range cuts {
			b.WriteString(l[prev:c])
			b.WriteString("\n")
			prev = c + 1
		}
		b.WriteString(l[prev:])
		l = b.String()
	}
	return strings.Split(l, "\n")
}

func (p *parser) run(lines []string) {
	p.lines = make([]line, len(lines))
	for n, l := range lines {
		p.lines[n] = line{text: l}
	}
	start := p.frontMatter()
	p.updates(start)
	p.sections(start)
	p.milestones(start)
	p.detectionMethod()
	p.decide()
	p.detectionFromMilestone()
	p.wholeWindow()
}

// frontMatter reads a cState incident's YAML header and returns the first line after it.
func (p *parser) frontMatter() int {
	if len(p.lines) == 0 || strings.TrimSpace(p.lines[0].text) != "---" {
		return 0
	}
	for n := 1; n < len(p.lines); n++ {
		l := strings.TrimSpace(p.lines[n].text)
		if l == "---" {
			return n + 1
		}
		key, value, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		value = strings.Trim(strings.TrimSpace(value), `"'`)
		switch strings.TrimSpace(key) {
		case "title":
			p.setTitle(value, l)
		case "date":
			if t, err := time.Parse(time.RFC3339, value); err == nil && inRange(t) {
				p.add("started_at", candidate{at: t.UTC(), words: l, strength: fromSentence})
			}
		case "resolvedWhen":
			if t, err := time.Parse(time.RFC3339, value); err == nil && inRange(t) {
				p.add("resolved_at", candidate{at: t.UTC(), words: l, strength: fromStatus})
			}
		}
	}
	return 0
}

func (p *parser) setTitle(title, words string) {
	title = strings.TrimSpace(strings.Trim(strings.TrimSpace(title), "#*"))
	if title == "" || p.draft.Incident.Title != "" {
		return
	}
	p.draft.Incident.Title = cut(title, titleMax)
	p.draft.Evidence["title"] = words
}

// cut shortens s to at most max bytes on a rune boundary.
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.TrimSpace(s[:n])
}

// The words status pages post updates under, and the status each means.
var statusWords = map[string]string{
	"investigating": "investigating", "issue reported": "investigating", "identified": "identified",
	"monitoring": "monitoring", "resolved": "resolved", "update": "", "updated": "",
	"postmortem": "note", "post-mortem": "note", "follow-up": "note", "follow up": "note",
	"completed": "resolved", "verifying": "monitoring", "in progress": "identified", "scheduled": "note",
}

var (
	// "1. investigating Mar 12, 2026, 04:39 PM UTC", "Update (2022-08-15 23:09 UTC)"
	headerRe = regexp.MustCompile(`(?i)^\s*(?:\d+\.\s+)?\**(investigating|issue reported|identified|monitoring|resolved|updated?|post-?mortem|follow[- ]up|completed|verifying|in progress|scheduled)\**\s*[-–:]?\s*(.*)$`)
	// "Posted 3 days ago. Mar 12, 2026 - 18:28 UTC"
	postedRe    = regexp.MustCompile(`(?i)^\s*posted\b[^.]*\.\s*`)
	stampRestRe = regexp.MustCompile(`(?i)^[\s()\[\],.\-–—:|at]*$`)
)

// stamp reads a line that is a date and a time and nothing more ("Mar 12, 2026 - 18:28 UTC").
func (p *parser) stamp(s string) (time.Time, bool) {
	s = postedRe.ReplaceAllString(s, "")
	days := findDays(s)
	clocks := findClocks(s, days)
	if len(days) != 1 || len(clocks) != 1 {
		return time.Time{}, false
	}
	rest := s[:min(days[0].start, clocks[0].start)] + s[min(days[0].end, clocks[0].end):max(days[0].start, clocks[0].start)] + s[max(days[0].end, clocks[0].end):]
	if !stampRestRe.MatchString(rest) {
		return time.Time{}, false
	}
	return p.instant(days[0], clocks[0])
}

// statusFromBody reads the status an update without one ("Update") reports.
func statusFromBody(body string) string {
	lower := strings.ToLower(body)
	switch {
	case strings.Contains(lower, "has been resolved") || strings.Contains(lower, "is resolved") || strings.Contains(lower, "been fixed"):
		return "resolved"
	case strings.Contains(lower, "monitoring"):
		return "monitoring"
	case strings.Contains(lower, "identified"):
		return "identified"
	case strings.Contains(lower, "investigating"):
		return "investigating"
	}
	return ""
}

// gcpRowRe is a Google Cloud dashboard row: date, time, description (tabs or pipes between).
var gcpRowRe = regexp.MustCompile(`^\s*\|?\s*(\d{1,2}\s+[A-Za-z]{3,9}\s+\d{4}|[A-Za-z]{3,9}\.?\s+\d{1,2},?\s+\d{4}|\d{4}-\d{2}-\d{2})\s*[\t|]\s*(\d{1,2}:\d{2}(?:\s*[AaPp][Mm])?(?:\s*[A-Z]{2,5})?)\s*[\t|]\s*(.+?)\s*\|?\s*$`)

// updates finds the status updates: a header line with status and time and the message after
// it, a status word with the message and a "Posted" stamp after it, or a dashboard row.
func (p *parser) updates(start int) {
	type block struct {
		status, words, message string
		at                     time.Time
		line                   int
		timed, bare            bool
	}
	var blocks []*block
	var waiting *block // a bare status line whose stamp has not come yet
	for n := start; n < len(p.lines); n++ {
		text := strings.TrimSpace(p.lines[n].text)
		if text == "" {
			continue
		}
		if m := gcpRowRe.FindStringSubmatch(text); m != nil {
			if at, ok := p.stamp(m[1] + " " + m[2]); ok {
				p.lines[n].consumed = true
				status := statusFromBody(m[3])
				if status == "" {
					status = "investigating"
				}
				p.addEntry(Entry{At: at, Kind: "status_update", Status: status, Body: m[3], Public: true}, text)
				continue
			}
		}
		if m := headerRe.FindStringSubmatch(text); m != nil && m[2] != "" {
			if at, ok := p.stamp(m[2]); ok {
				p.lines[n].consumed = true
				blocks = append(blocks, &block{status: statusWords[strings.ToLower(m[1])], words: text, at: at, line: n, timed: true})
				waiting = nil
				continue
			}
		}
		if m := bareRe.FindStringSubmatch(text); m != nil {
			waiting = &block{status: statusWords[strings.ToLower(m[1])], words: text, message: m[2], line: n, bare: true}
			blocks = append(blocks, waiting)
			continue
		}
		if waiting != nil && n-waiting.line <= 40 {
			if at, ok := p.stamp(text); ok {
				waiting.at, waiting.timed = at, true
				waiting.words += " … " + text
				msg := []string{}
				if waiting.message != "" {
					msg = append(msg, waiting.message)
				}
				msg = append(msg, p.texts(waiting.line, n)...)
				waiting.message = strings.Join(msg, "\n")
				for k := waiting.line; k <= n; k++ {
					p.lines[k].consumed = true
				}
				waiting = nil
			}
		}
	}
	for b, blk := range blocks {
		if !blk.timed {
			continue
		}
		status, body := blk.status, blk.message
		if !blk.bare {
			// The message runs from the header to the next header or heading.
			end := len(p.lines)
			if b+1 < len(blocks) {
				end = blocks[b+1].line
			}
			var msg []string
			for k := blk.line + 1; k < end; k++ {
				t := strings.TrimSpace(p.lines[k].text)
				if isHeading(t) || (t == "" && len(msg) > 0 && status == "note") {
					break
				}
				if t != "" {
					msg = append(msg, t)
				}
				if status != "note" {
					p.lines[k].consumed = true
				}
			}
			body = strings.Join(msg, "\n")
		}
		body = strings.TrimSpace(body)
		if status == "" {
			status = statusFromBody(body)
		}
		entry := Entry{At: blk.at, Kind: "status_update", Status: status, Body: body, Public: true}
		if status == "note" {
			// A note is internal, whatever the status page showed: the postmortem itself reaches
			// the public only as a reviewed publication.
			entry.Kind, entry.Status, entry.Public = "note", "", false
			if entry.Body == "" {
				entry.Body = noteBody(headerRe.FindStringSubmatch(strings.TrimSpace(p.lines[blk.line].text))[1])
			}
		}
		if entry.Kind == "status_update" && entry.Status == "" {
			entry.Status = "investigating"
		}
		p.addEntry(entry, blk.words)
	}
}

// bareRe is a status word alone on its line, or before the message: "Resolved - This incident
// has been resolved."
var bareRe = regexp.MustCompile(`(?i)^\**(investigating|identified|monitoring|resolved|update|postmortem|completed|verifying|in progress|scheduled)\**(?:\s+[-–]\s+(.+))?$`)

func (p *parser) texts(from, to int) []string {
	var out []string
	for k := from + 1; k < to; k++ {
		if t := strings.TrimSpace(p.lines[k].text); t != "" {
			out = append(out, t)
		}
	}
	return out
}

func (p *parser) addEntry(e Entry, words string) {
	words = strings.Join(strings.Fields(words), " ")
	key := "timeline[" + strconv.Itoa(len(p.draft.Incident.Timeline)) + "]"
	p.draft.Incident.Timeline = append(p.draft.Incident.Timeline, e)
	p.draft.Evidence[key] = words
	if e.Kind == "status_update" {
		p.draft.Incident.Status = e.Status
		p.draft.Evidence["status"] = words
		if e.Status == "resolved" {
			// The last resolved update is when it was declared over.
			p.cands["resolved_at"] = append(p.cands["resolved_at"], candidate{at: e.At, words: words, strength: fromStatus})
		}
	}
}

// noteBody says what a bodiless postmortem or follow-up block posted.
func noteBody(word string) string {
	if strings.HasPrefix(strings.ToLower(word), "post") {
		return "Postmortem posted."
	}
	return "Follow-up posted."
}

// splitInlineHeadings starts a new line before each " ## Heading" inside a line.
func splitInlineHeadings(text string) string {
	if !strings.Contains(text, " ##") {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + 64)
	for {
		i := strings.Index(text, " ##")
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		j := i + 1
		for j < len(text) && text[j] == '#' {
			j++
		}
		hashes := j - i - 1
		lineStart := strings.LastIndexByte(text[:i], '\n') + 1
		if hashes >= 2 && hashes <= 6 && j+1 < len(text) && text[j] == ' ' && text[j+1] >= 'A' && text[j+1] <= 'Z' &&
			strings.TrimSpace(text[lineStart:i]) != "" {
			b.WriteString(strings.TrimRight(text[:i], " \t"))
			b.WriteString("\n")
			text = text[i+1:]
			continue
		}
		b.WriteString(text[:j])
		text = text[j:]
	}
}
