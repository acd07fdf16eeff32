package models

import (
	"errors"
	"regexp"
	"strings"
	"time"
)

// Precision says how much of a typed time was known: the minute, or only the day.
type Precision int

const (
	// PrecisionMinute is a date with a time of day.
	PrecisionMinute Precision = iota
	// PrecisionDay is a date alone: "2022-04-01", "1 April 2022".
	PrecisionDay
)

// ErrTypedTime is returned for text that reads as no date or time.
var ErrTypedTime = errors.New("not a date or time")

// TypedTimeHint is the message beside a time field whose text could not be read.
const TypedTimeHint = "Not a date and time; write it as 2026-03-12 16:54, Mar 12, 2026 4:54 PM, or 16:54 on the incident's day."

var (
	typedSpaces = regexp.MustCompile(`\s+`)
	// A trailing zone written in the text itself: "UTC", "GMT", "Z", "+01:00".
	typedZoneRe = regexp.MustCompile(`(?i)\s*(?:\b(UTC|GMT)|(?:^|[\d\s])(Z)|([+-]\d{2}:?\d{2}))$`)
	ordinalRe   = regexp.MustCompile(`(?i)(\d)(st|nd|rd|th)\b`)
)

// Layouts tried in order; ones without a time of day are PrecisionDay.
var typedLayouts = []struct {
	layout string
	day    bool
}{
	{"2006-01-02T15:04", false}, {"2006-01-02T15:04:05", false}, {"2006-01-02 15:04", false},
	{"2006-01-02 15:04:05", false}, {"2006-01-02 3:04 PM", false}, {"2006/01/02 15:04", false},
	{"Jan 2, 2006, 3:04 PM", false}, {"Jan 2, 2006 3:04 PM", false}, {"Jan 2 2006 3:04 PM", false},
	{"Jan 2, 2006, 15:04", false}, {"Jan 2, 2006 15:04", false}, {"Jan 2 2006 15:04", false},
	{"January 2, 2006, 3:04 PM", false}, {"January 2, 2006 3:04 PM", false}, {"January 2 2006 3:04 PM", false},
	{"January 2, 2006, 15:04", false}, {"January 2, 2006 15:04", false}, {"January 2 2006 15:04", false},
	{"2 Jan 2006 15:04", false}, {"2 January 2006 15:04", false}, {"2 Jan 2006 3:04 PM", false},
	{"2 January 2006 3:04 PM", false}, {"2 Jan 2006, 15:04", false}, {"2 January 2006, 15:04", false},
	{"15:04 Jan 2, 2006", false}, {"15:04 January 2, 2006", false}, {"15:04 2 Jan 2006", false},
	{"15:04 2 January 2006", false}, {"15:04 on Jan 2, 2006", false}, {"15:04 on January 2, 2006", false},
	{"15:04 on 2 January 2006", false}, {"Mon, 2 Jan 2006 15:04", false}, {"Mon Jan 2, 2006 15:04", false},
	{"2006-01-02", true}, {"Jan 2, 2006", true}, {"Jan 2 2006", true}, {"January 2, 2006", true},
	{"January 2 2006", true}, {"2 Jan 2006", true}, {"2 January 2006", true}, {"2006/01/02", true},
}

var clockLayouts = []string{"15:04", "15:04:05", "3:04 PM", "3:04PM", "3 PM", "3PM"}

// ParseTyped reads a time as people type or paste it: "2026-03-12 16:54", "Mar 12, 2026 4:54 PM",
// "12 March 2026 16:54 UTC", or a time of day alone ("16:54"), which falls on day (the
// incident's own date, in loc) when one is given. A date alone is PrecisionDay, at midnight in
// loc. A zone written in the text ("UTC", "+01:00") wins over loc.
func ParseTyped(text string, loc *time.Location, day *time.Time) (time.Time, Precision, error) {
	if loc == nil {
		loc = time.UTC
	}
	s := strings.TrimSpace(typedSpaces.ReplaceAllString(text, " "))
	if s == "" {
		return time.Time{}, PrecisionMinute, ErrTypedTime
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, PrecisionMinute, nil
	}
	s = ordinalRe.ReplaceAllString(s, "$1")
	s = strings.ReplaceAll(s, " at ", " ")
	s = strings.ReplaceAll(s, "Sept ", "Sep ")
	if m := typedZoneRe.FindStringSubmatchIndex(s); m != nil {
		switch {
		case m[2] >= 0 || m[4] >= 0:
			loc = time.UTC
		case m[6] >= 0:
			off := strings.ReplaceAll(s[m[6]:m[7]], ":", "")
			if z, err := time.Parse("-0700", off); err == nil {
				loc = z.Location()
			}
		}
		cut := m[0]
		if m[4] >= 0 { // the Z came after a digit, which stays
			cut = m[4]
		}
		s = strings.TrimSpace(s[:cut])
	}
	upper := upperMeridiem(s)
	for _, l := range typedLayouts {
		if t, err := time.ParseInLocation(l.layout, upper, loc); err == nil {
			if l.day {
				return t, PrecisionDay, nil
			}
			return t, PrecisionMinute, nil
		}
	}
	if day != nil {
		d := day.In(loc)
		for _, l := range clockLayouts {
			if c, err := time.Parse(l, upper); err == nil {
				return time.Date(d.Year(), d.Month(), d.Day(), c.Hour(), c.Minute(), c.Second(), 0, loc), PrecisionMinute, nil
			}
		}
	}
	return time.Time{}, PrecisionMinute, ErrTypedTime
}

// upperMeridiem writes "am"/"pm" as Go's layouts read them, and month names capitalised.
func upperMeridiem(s string) string {
	fields := strings.Fields(s)
	for n, f := range fields {
		lower := strings.ToLower(f)
		switch {
		case lower == "am" || lower == "pm" || lower == "a.m." || lower == "p.m.":
			fields[n] = strings.ToUpper(strings.ReplaceAll(lower, ".", ""))
		case strings.HasSuffix(lower, "am") || strings.HasSuffix(lower, "pm"):
			if len(lower) > 2 && lower[len(lower)-3] >= '0' && lower[len(lower)-3] <= '9' {
				fields[n] = f[:len(f)-2] + strings.ToUpper(lower[len(lower)-2:])
			}
		default:
			if len(f) > 2 && f[0] >= 'a' && f[0] <= 'z' {
				fields[n] = strings.ToUpper(f[:1]) + lower[1:]
			}
		}
	}
	return strings.Join(fields, " ")
}

// Understood writes a typed time back as it was read, for the line beside the field:
// "12 Mar 2026 16:54 UTC", "5 Apr 2022 08:00 Europe/London", or "1 Apr 2022 (the day only)".
func Understood(t time.Time, p Precision, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	t = t.In(loc)
	if p == PrecisionDay {
		return t.Format("2 Jan 2006") + " (the day only)"
	}
	return t.Format("2 Jan 2006 15:04") + " " + loc.String()
}
