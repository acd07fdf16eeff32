package pmparse

import (
	"regexp"
	"strings"
	"time"
)

// A postmortem's own timeline is a log: one line per moment, the time first ("- **16:58 UTC** -
// Writer database begins…", "16:58 UTC: …", "| Jan 14, 10:18 AM | A customer reached out… |").
// Each line is an internal note at that time: what the team did or saw, not what the status
// page told customers; only a line that is a posted update, its status word first, is one.

var (
	// logLeadRe is what may stand before the time: a list mark or a table cell, and bold.
	logLeadRe = regexp.MustCompile(`^\s*(?:(?:[-*•+▪]|\d{1,2}[.)])\s+|\|\s*)?(?:\*\*|__)?\s*\[?\s*`)
	// logHeadRestRe is what else the head may hold once its date is left out.
	logHeadRestRe = regexp.MustCompile(`(?i)^[\s,*]*(?:at\s*)?$`)
	// logDayGlueRe joins a time to the date written after it: "22:30 UTC (Oct 29)", "10:18, Jan 14".
	logDayGlueRe = regexp.MustCompile(`(?i)^[\s,(]*(?:on\s+)?$`)
	// logSepRe ends the head: a closing bold, a dash, a colon or a table's bar.
	logSepRe = regexp.MustCompile(`^\s*\)?\s*(\*\*|__|\])?\s*(--|[-–—:|])?\s*`)
	// logStatusRe is a log line that is a status update as posted: "16:39 UTC - Investigating - We
	// are looking into it".
	logStatusRe = regexp.MustCompile(`(?i)^\**(investigating|identified|monitoring|resolved)\**\s*(?:[-–—:]|\*\*)\s*(\S.*)$`)
	// tableZoneRe is a table's heading that names the zone of its times: "Time (UTC)".
	tableZoneRe = regexp.MustCompile(`(?i)\btimes?\s*\(\s*([A-Za-z/_+:\d-]+)\s*\)`)
)

// logState is the date a log's lines without one are on: the date of the heading above them
// ("### October 28, 2025 - …") or of the log's last line that wrote one ("22:30 UTC (Oct 29)"),
// not a date mentioned in passing in the prose between ("the same root cause as October 21").
// It carries a run of times over midnight: "23:50 …" then "00:10 …" is the next day.
type logState struct {
	day    day
	hasDay bool
	prev   time.Time // the last entry's instant
	shift  int       // days added to day after the log ran past midnight
}

// headingDay makes the date a heading line writes the day of the log lines under it.
func (p *parser) headingDay(n int, days []day) {
	if len(days) == 0 || !p.lines[n].heading {
		return
	}
	d := days[len(days)-1]
	if d.year = p.yearOf(d); d.year != 0 {
		p.log = logState{day: d, hasDay: true}
	}
}

// logEntry reads line l as a log line and adds its note, telling whether it was one; times are
// the line's instants, whose first is moved to the log's day when its date was carried from the
// prose.
func (p *parser) logEntry(l string, days []day, clocks []clock, times []found) bool {
	if len(clocks) == 0 || len(times) == 0 || times[0].start != clocks[0].start {
		return false
	}
	body, ok := logBody(l, days, clocks)
	if !ok {
		return false
	}
	f := &times[0]
	switch {
	case f.dayAt >= 0:
		p.log = logState{day: f.day, hasDay: true}
		p.log.day.year = p.yearOf(f.day)
	case p.log.hasDay:
		at, literal, ok := p.instantReadings(p.log.day, f.clock)
		if !ok {
			return false
		}
		f.at, f.literal = at.Add(time.Duration(p.log.shift)*24*time.Hour), nil
		if literal != nil {
			l := literal.Add(time.Duration(p.log.shift) * 24 * time.Hour)
			f.literal = &l
		}
		if prev := p.log.prev; !prev.IsZero() && f.at.Before(prev) && f.at.Add(24*time.Hour).Sub(prev) <= maxOvernight {
			p.log.shift++
			f.at = f.at.Add(24 * time.Hour)
			if f.literal != nil {
				l := f.literal.Add(24 * time.Hour)
				f.literal = &l
			}
		}
	}
	if !inRange(f.at) {
		return false
	}
	p.log.prev = f.at
	entry := Entry{At: f.at, Kind: "note", Body: body}
	if m := logStatusRe.FindStringSubmatch(body); m != nil {
		entry = Entry{At: f.at, Kind: "status_update", Status: strings.ToLower(m[1]), Body: m[2], Public: true}
	}
	p.addEntry(entry, evidenceWords(l))
	return true
}

// logBody returns the text after a log line's head, the time (and its date) at its start; ok is
// false for a line that does not start with a time.
func logBody(l string, days []day, clocks []clock) (string, bool) {
	lead := logLeadRe.FindStringIndex(l)
	first := clocks[0]
	if lead == nil || lead[1] > first.start {
		return "", false
	}
	head := l[lead[1]:first.start]
	if head != "" {
		var rest strings.Builder
		at := lead[1]
		for _, d := range days {
			if d.start >= at && d.end <= first.start {
				rest.WriteString(l[at:d.start])
				at = d.end
			}
		}
		rest.WriteString(l[at:first.start])
		if !logHeadRestRe.MatchString(rest.String()) {
			return "", false
		}
	}
	pos := first.end
	if len(clocks) > 1 && rangeGlue(l[pos:clocks[1].start]) {
		pos = clocks[1].end // "16:58–17:05 UTC": the entry is at its start
	}
	for _, d := range days {
		if d.start >= pos && logDayGlueRe.MatchString(l[pos:d.start]) {
			pos = d.end
			break
		}
	}
	sep := logSepRe.FindStringSubmatchIndex(l[pos:])
	if sep[2] < 0 && sep[4] < 0 {
		return "", false
	}
	body := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(l[pos+sep[1]:]), "|"))
	if !hasLetter(body) {
		return "", false
	}
	return body, true
}
