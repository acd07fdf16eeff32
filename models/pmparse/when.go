package pmparse

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The dates, times and zones people write in postmortems and on status pages.

const monthNames = `jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?`

var (
	// "Mar 12, 2026", "March 9, 2026", "Aug 15th", "April 5th, 2022"; and
	// "January 14-19, 2026": the first day of a range of days, with the range's year.
	monthDayRe = regexp.MustCompile(`(?i)\b(` + monthNames + `)\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:[-–]\d{1,2}(?:st|nd|rd|th)?)?\b(?:,?\s+(\d{4})\b)?`)
	// "20 February 2018", "the 5th of April 2022", "6th of April, 2022"
	dayMonthRe = regexp.MustCompile(`(?i)\b(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(` + monthNames + `)\b\.?(?:,?\s+(\d{4})\b)?`)
	// "2022-08-15"
	isoDateRe = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`)
	// "04:39 PM", "16:00", "8am", "4.30pm", "8:54 am", "09:45:12 AM"
	timeRe = regexp.MustCompile(`(?i)\b(\d{1,2})(?:([:.])(\d{2})(?::(\d{2}))?)?\s*([ap])\.?m\b\.?|\b(\d{1,2}):(\d{2})(?::(\d{2}))?\b`)
	// A zone right after a time: "UTC", "(BST)", "+01:00", "UTC+1", "America/New_York".
	zoneRe = regexp.MustCompile(`^\s*\(?\s*(?:(UTC|GMT|Z)\s*([+-]\d{1,2}(?::?\d{2})?)?|([+-]\d{2}:?\d{2})\b|([A-Z][a-z]+(?:/[A-Za-z_]+)+)|([A-Z]{2,5}))\s*\)?`)
)

// usZones are the abbreviations of the US zones with daylight saving; each is read with its IANA
// zone's rules, so "PST" written in July is the Pacific time of that day.
var namedZones = map[string]string{
	"PST": "America/Los_Angeles", "PDT": "America/Los_Angeles", "PT": "America/Los_Angeles",
	"MST": "America/Denver", "MDT": "America/Denver", "MT": "America/Denver",
	"CST": "America/Chicago", "CDT": "America/Chicago", "CT": "America/Chicago",
	"EST": "America/New_York", "EDT": "America/New_York", "ET": "America/New_York",
	"AKST": "America/Anchorage", "AKDT": "America/Anchorage",
	"HST": "Pacific/Honolulu",
	"BST": "Europe/London", "IST": "Asia/Kolkata",
	"CET": "Europe/Paris", "CEST": "Europe/Paris",
	"AEST": "Australia/Sydney", "AEDT": "Australia/Sydney",
}

// zoneAbbrevOffsets are what the abbreviations say literally, the second reading when a zone's
// rules give another offset on that day ("8:54 am PST" in March, when the Pacific zone is on PDT).
var zoneAbbrevOffsets = map[string]int{
	"PST": -8, "PDT": -7, "MST": -7, "MDT": -6, "CST": -6, "CDT": -5, "EST": -5, "EDT": -4,
	"AKST": -9, "AKDT": -8, "BST": 1, "CET": 1, "CEST": 2, "AEST": 10, "AEDT": 11,
}

// day is a calendar date with the year possibly unknown.
type day struct {
	year  int // 0 when not written
	month time.Month
	day   int
	start int // byte offsets in the line
	end   int
}

// clock is a time of day found in a line, with the zone written after it, if any.
type clock struct {
	hour, minute int
	zone         *time.Location // nil when none was written
	abbrev       string         // the abbreviation written, for the literal reading
	start, end   int            // of the time and its zone
}

func monthOf(name string) time.Month {
	name = strings.ToLower(name)
	for m := time.January; m <= time.December; m++ {
		if strings.HasPrefix(strings.ToLower(m.String()), name[:3]) {
			return m
		}
	}
	return 0
}

func findDays(line string) []day {
	var days []day
	taken := func(s, e int) bool {
		for _, d := range days {
			if s < d.end && e > d.start {
				return true
			}
		}
		return false
	}
	add := func(y, mo, d string, m time.Month, s, e int) {
		if taken(s, e) {
			return
		}
		dd, _ := strconv.Atoi(d)
		year := 0
		if y != "" {
			year, _ = strconv.Atoi(y)
		}
		if m == 0 {
			n, _ := strconv.Atoi(mo)
			m = time.Month(n)
		}
		if m < 1 || m > 12 || dd < 1 || dd > 31 {
			return
		}
		days = append(days, day{year: year, month: m, day: dd, start: s, end: e})
	}
	if !strings.ContainsAny(line, "0123456789") {
		return nil
	}
	for _, m := range isoDateRe.FindAllStringSubmatchIndex(line, -1) {
		add(line[m[2]:m[3]], line[m[4]:m[5]], line[m[6]:m[7]], 0, m[0], m[1])
	}
	// The month-name expressions run only around the words that may be months: on long lines
	// of prose they would cost most of the parse.
	lower := asciiLower(line)
	for _, at := range monthWords(lower) {
		from := max(0, at-20)
		for from > 0 && line[from-1] != ' ' {
			from--
		}
		to := min(len(line), at+40)
		for to < len(line) && line[to] != ' ' {
			to++
		}
		window := line[from:to]
		for _, m := range monthDayRe.FindAllStringSubmatchIndex(window, -1) {
			if from+m[0] > at || from+m[1] <= at {
				continue // another month's date, read from its own window
			}
			y := ""
			if m[6] >= 0 {
				y = window[m[6]:m[7]]
			}
			add(y, "", window[m[4]:m[5]], monthOf(window[m[2]:m[3]]), from+m[0], from+m[1])
		}
		for _, m := range dayMonthRe.FindAllStringSubmatchIndex(window, -1) {
			if from+m[0] > at || from+m[1] <= at {
				continue
			}
			y := ""
			if m[6] >= 0 {
				y = window[m[6]:m[7]]
			}
			add(y, "", window[m[2]:m[3]], monthOf(window[m[4]:m[5]]), from+m[0], from+m[1])
		}
	}
	sortDays(days)
	return days
}

func sortDays(days []day) {
	for i := 1; i < len(days); i++ {
		for j := i; j > 0 && days[j].start < days[j-1].start; j-- {
			days[j], days[j-1] = days[j-1], days[j]
		}
	}
}

func findClocks(line string, days []day) []clock {
	if !mayHoldClock(line) {
		return nil
	}
	var clocks []clock
	for _, m := range timeRe.FindAllStringSubmatchIndex(line, -1) {
		inDay := false
		for _, d := range days {
			if m[0] >= d.start && m[0] < d.end {
				inDay = true
			}
		}
		if inDay || (len(clocks) > 0 && m[0] < clocks[len(clocks)-1].end) {
			// Inside a date, or the "05:30" of a zone "+05:30" read already.
			continue
		}
		var c clock
		if m[10] >= 0 { // am/pm form
			if m[4] < 0 && m[0] > 0 && strings.ContainsAny(line[m[0]-1:m[0]], "0123456789.,") {
				continue
			}
			c.hour, _ = strconv.Atoi(line[m[2]:m[3]])
			if m[6] >= 0 {
				c.minute, _ = strconv.Atoi(line[m[6]:m[7]])
			}
			if c.hour < 1 || c.hour > 12 {
				continue
			}
			pm := strings.EqualFold(line[m[10]:m[11]], "p")
			if c.hour == 12 {
				c.hour = 0
			}
			if pm {
				c.hour += 12
			}
		} else {
			// A 24-hour time never sits inside a larger number ("1:2:3", "10.22:33").
			if m[0] > 0 && strings.ContainsAny(line[m[0]-1:m[0]], ":.,/") {
				continue
			}
			if m[1] < len(line) && line[m[1]] == ':' {
				continue
			}
			c.hour, _ = strconv.Atoi(line[m[12]:m[13]])
			c.minute, _ = strconv.Atoi(line[m[14]:m[15]])
		}
		if c.hour > 23 || c.minute > 59 {
			continue
		}
		c.start, c.end = m[0], m[1]
		if loc, abbrev, n := readZone(line[m[1]:]); n > 0 {
			c.zone, c.abbrev, c.end = loc, abbrev, m[1]+n
		}
		clocks = append(clocks, c)
	}
	// "05:45–08:45 UTC", "from 10:22 to 10:52 PDT": the zone after a range is both ends'.
	for i := len(clocks) - 2; i >= 0; i-- {
		if clocks[i].zone == nil && clocks[i+1].zone != nil && pairGlue(line[clocks[i].end:clocks[i+1].start]) {
			clocks[i].zone, clocks[i].abbrev = clocks[i+1].zone, clocks[i+1].abbrev
		}
	}
	return clocks
}

var rangeGlueRe = regexp.MustCompile(`^\s*(?:--?|–|—|to|until|till|through)\s*$`)

func rangeGlue(s string) bool { return rangeGlueRe.MatchString(s) }

var dayGlueRe = regexp.MustCompile(`(?i)[,()]|\bon\b`)

// rangeGlueAcrossDays tells whether line[from:to] joins two ends of a range once the dates
// written with the ends are left out: "22:30 UTC on October 29 to 05:39 UTC on October 30",
// "November 11, 16:02 UTC -- November 14, 15:02 UTC".
func rangeGlueAcrossDays(line string, from, to int, days []day) bool {
	var rest strings.Builder
	at := from
	for _, d := range days {
		if d.start >= from && d.end <= to {
			rest.WriteString(line[at:d.start])
			rest.WriteString(" ")
			at = d.end
		}
	}
	if at == from {
		return false
	}
	rest.WriteString(line[at:to])
	return rangeGlue(dayGlueRe.ReplaceAllString(rest.String(), " "))
}

// readZone reads the zone written at the start of s and how many bytes it took.
func readZone(s string) (*time.Location, string, int) {
	m := zoneRe.FindStringSubmatchIndex(s)
	if m == nil {
		return nil, "", 0
	}
	group := func(n int) string {
		if m[2*n] < 0 {
			return ""
		}
		return s[m[2*n]:m[2*n+1]]
	}
	switch {
	case group(1) != "":
		if off := group(2); off != "" {
			if loc := offsetZone(off); loc != nil {
				return loc, "", m[1]
			}
			return nil, "", 0
		}
		return time.UTC, "", m[1]
	case group(3) != "":
		if loc := offsetZone(group(3)); loc != nil {
			return loc, "", m[1]
		}
	case group(4) != "":
		if loc, err := time.LoadLocation(group(4)); err == nil {
			return loc, "", m[1]
		}
	case group(5) != "":
		name := group(5)
		if iana, ok := namedZones[name]; ok {
			if loc, err := time.LoadLocation(iana); err == nil {
				return loc, name, m[1]
			}
		}
	}
	return nil, "", 0
}

// offsetZone reads "+01:00", "+0100", "-5", "+5:30".
func offsetZone(s string) *time.Location {
	sign := 1
	if s[0] == '-' {
		sign = -1
	}
	s = strings.ReplaceAll(s[1:], ":", "")
	var hours, minutes int
	switch len(s) {
	case 1, 2:
		hours, _ = strconv.Atoi(s)
	case 3:
		hours, _ = strconv.Atoi(s[:1])
		minutes, _ = strconv.Atoi(s[1:])
	case 4:
		hours, _ = strconv.Atoi(s[:2])
		minutes, _ = strconv.Atoi(s[2:])
	default:
		return nil
	}
	if hours > 14 || minutes > 59 {
		return nil
	}
	offset := sign * (hours*3600 + minutes*60)
	return time.FixedZone(fmtOffset(offset), offset)
}

func fmtOffset(seconds int) string {
	sign := "+"
	if seconds < 0 {
		sign, seconds = "-", -seconds
	}
	return "UTC" + sign + strconv.Itoa(seconds/3600) + ":" + twoDigits(seconds%3600/60)
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// dayGlueAfter is what may stand between a time (and its zone) and the date after it.
var dayGlueAfter = regexp.MustCompile(`(?i)^[\s,(]*(?:on\s+)?(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+)?$`)

// dayGlueBefore is what may stand between a date and the time after it.
var dayGlueBefore = regexp.MustCompile(`(?i)^[\s,]*(?:at\s+|-\s*|–\s*|—\s*)?(?:around\s+|about\s+|approximately\s+|~)?$`)

// adjacentDay finds the date written just after a time or just before it.
func adjacentDay(line string, c clock, days []day) (day, bool) {
	for _, d := range days {
		if d.start >= c.end && dayGlueAfter.MatchString(line[c.end:d.start]) {
			return d, true
		}
	}
	for i := len(days) - 1; i >= 0; i-- {
		d := days[i]
		if d.end <= c.start && dayGlueBefore.MatchString(line[d.end:c.start]) {
			return d, true
		}
	}
	return day{}, false
}

// dayFor finds the date the i-th time belongs to in its line: written just after or before it,
// or beside the other end of its range ("between 10:00 and 11:00 UTC on July 1"), or earlier in
// the same sentence; else none, and the caller carries one from context.
func dayFor(line string, clocks []clock, i int, days []day, sentenceStart int) (day, bool) {
	c := clocks[i]
	if d, ok := adjacentDay(line, c, days); ok {
		return d, true
	}
	if i+1 < len(clocks) && pairGlue(line[c.end:clocks[i+1].start]) {
		if d, ok := adjacentDay(line, clocks[i+1], days); ok {
			return d, true
		}
	}
	if i > 0 && pairGlue(line[clocks[i-1].end:c.start]) {
		if d, ok := adjacentDay(line, clocks[i-1], days); ok {
			return d, true
		}
	}
	for k := len(days) - 1; k >= 0; k-- {
		d := days[k]
		if d.end <= c.start && d.start >= sentenceStart {
			return d, true
		}
	}
	return day{}, false
}

var andGlue = regexp.MustCompile(`(?i)^\s*and\s*$`)

// pairGlue is what joins the two ends of a range.
func pairGlue(s string) bool { return rangeGlue(s) || andGlue.MatchString(s) }

// inRange tells whether an instant can be kept (models.InstantInRange: years 0001 to 9999 in
// every zone, so a day inside either end).
func inRange(t time.Time) bool {
	return !t.Before(time.Date(1, time.January, 2, 0, 0, 0, 0, time.UTC)) &&
		!t.After(time.Date(9999, time.December, 30, 23, 59, 59, 999999999, time.UTC))
}

var monthPrefixes = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

// monthWords returns where the words that start like a month name begin.
func monthWords(lower string) []int {
	var at []int
	for _, prefix := range monthPrefixes {
		for off := 0; ; {
			i := strings.Index(lower[off:], prefix)
			if i < 0 {
				break
			}
			i += off
			if i == 0 || !isWordByte(lower[i-1]) {
				at = append(at, i)
			}
			off = i + len(prefix)
		}
	}
	return at
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
}

// mayHoldClock is the cheap test before timeRe runs: a digit then ":" and a digit, or a digit then
// "am" or "pm" ("8am", "4.30 pm", "8 a.m.").
func mayHoldClock(line string) bool {
	for i := 0; i+1 < len(line); i++ {
		if line[i] < '0' || line[i] > '9' {
			continue
		}
		j := i + 1
		if line[j] == ':' && j+1 < len(line) && line[j+1] >= '0' && line[j+1] <= '9' {
			return true
		}
		if line[j] == ' ' {
			j++
		}
		if j+1 < len(line) && (line[j]|0x20 == 'a' || line[j]|0x20 == 'p') {
			k := j + 1
			if line[k] == '.' {
				k++
			}
			if k < len(line) && line[k]|0x20 == 'm' {
				return true
			}
		}
	}
	return false
}

// fillYears gives a date written without a year the year of the date before it on the line
// ("November 11, 2025, 16:02 UTC -- November 14, 15:02 UTC"), or of the date after it when that
// one is not in an earlier month ("Between November 11 and November 15, 2025").
func fillYears(days []day) {
	for i := 1; i < len(days); i++ {
		if days[i].year == 0 && days[i-1].year != 0 {
			days[i].year = days[i-1].year
		}
	}
	for i := len(days) - 2; i >= 0; i-- {
		if days[i].year == 0 && days[i+1].year != 0 && days[i].month <= days[i+1].month {
			days[i].year = days[i+1].year
		}
	}
}

// monthYearRe is a month and a year with no day: "(November 2025)".
var monthYearRe = regexp.MustCompile(`(?i)\b(?:` + monthNames + `)\.?,?\s+((?:19|20)\d{2})\b`)

// yearOf is the year of a date: written with it, else the last one written before it, else the
// one year the whole document writes its dates in (a title's "(November 2025)" or a date further
// on), else 0: with two years or none, a year would be a guess.
func (p *parser) yearOf(d day) int {
	switch {
	case d.year != 0:
		return d.year
	case p.lastYr != 0:
		return p.lastYr
	}
	if !p.docYearRead {
		p.docYearRead = true
		p.docYear = p.documentYear()
	}
	return p.docYear
}

func (p *parser) documentYear() int {
	year := 0
	for _, l := range p.lines {
		if !strings.Contains(l.text, "20") && !strings.Contains(l.text, "19") {
			continue
		}
		years := []int{}
		for _, d := range findDays(l.text) {
			if d.year != 0 {
				years = append(years, d.year)
			}
		}
		for _, m := range monthYearRe.FindAllStringSubmatch(l.text, -1) {
			y, _ := strconv.Atoi(m[1])
			years = append(years, y)
		}
		for _, y := range years {
			if year != 0 && y != year {
				return 0
			}
			year = y
		}
	}
	return year
}

var (
	nextDayAfterRe  = regexp.MustCompile(`(?i)^[\s,]*(?:on\s+)?the\s+(?:following|next)\s+(?:morning|day|evening|night)\b`)
	nextDayBeforeRe = regexp.MustCompile(`(?i)\b(?:the\s+)?(?:following|next)\s+(?:morning|day|evening|night),?\s*(?:at\s+)?(?:around\s+|about\s+|~)?$`)
)

// nextDay tells whether a time without a date is said to be on the day after the one carried:
// "at 4:11 AM UTC the following morning", "the next day at 09:00".
func nextDay(line string, c clock) bool {
	if strings.Contains(line, "ollowing") || strings.Contains(line, "next") {
		return nextDayAfterRe.MatchString(line[c.end:]) || nextDayBeforeRe.MatchString(line[max(0, c.start-40):c.start])
	}
	return false
}

// dayAfter is the calendar day after d; a year it does not know stays unknown.
func dayAfter(d day) day {
	year := d.year
	if year == 0 {
		year = 2000 // a leap year: February 29 has a day after it
	}
	t := time.Date(year, d.month, d.day+1, 0, 0, 0, 0, time.UTC)
	next := d
	next.month, next.day = t.Month(), t.Day()
	if d.year != 0 {
		next.year = t.Year()
	}
	return next
}
