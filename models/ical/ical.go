// Package ical writes iCalendar (RFC 5545): the follow-up feeds' calendars and the debrief's
// meeting invitation.
package ical

import (
	"fmt"
	"net/mail"
	"strings"
	"time"
)

// Text escapes a TEXT value (RFC 5545 §3.3.11): backslash, semicolon, comma and line breaks.
func Text(s string) string {
	return strings.NewReplacer(`\`, `\\`, ";", `\;`, ",", `\,`, "\r\n", `\n`, "\n", `\n`, "\r", `\n`).Replace(s)
}

// Line ends a content line with CRLF, folding it at 75 octets without splitting a character
// (§3.1): each continuation starts with one space.
func Line(s string) string {
	var b strings.Builder
	width := 0
	for _, r := range s {
		size := len(string(r))
		if width+size > 75 {
			b.WriteString("\r\n ")
			width = 1
		}
		b.WriteRune(r)
		width += size
	}
	b.WriteString("\r\n")
	return b.String()
}

// UTC formats an instant as a UTC DATE-TIME (§3.3.5, form #2).
func UTC(t time.Time) string { return t.UTC().Format("20060102T150405Z") }

// Person is an organizer or attendee.
type Person struct {
	Name  string
	Email string
	Role  string // REQ-PARTICIPANT, CHAIR, OPT-PARTICIPANT; empty for the organizer
}

// Event is one meeting.
type Event struct {
	UID         string
	Sequence    int
	Stamp       time.Time
	Start, End  time.Time
	Summary     string
	Description string
	URL         string
	Organizer   Person
	Attendees   []Person
}

// param quotes a parameter value (§3.2): a name with a comma, colon or semicolon needs quotes,
// and a double quote cannot appear in one at all.
func param(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '"' || r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	return `"` + s + `"`
}

func address(p Person) string {
	if a, err := mail.ParseAddress(p.Email); err == nil {
		return "mailto:" + a.Address
	}
	return "mailto:" + p.Email
}

// Request writes a calendar with one event whose METHOD is REQUEST: an invitation a mail client
// offers to accept, and that updates the one accepted before when it has the same UID and a
// higher SEQUENCE.
func Request(e Event) string {
	var b strings.Builder
	line := func(s string) { b.WriteString(Line(s)) }
	line("BEGIN:VCALENDAR")
	line("VERSION:2.0")
	line("PRODID:-//Hindsight//Debrief//EN")
	line("CALSCALE:GREGORIAN")
	line("METHOD:REQUEST")
	line("BEGIN:VEVENT")
	line("UID:" + e.UID)
	line(fmt.Sprintf("SEQUENCE:%d", e.Sequence))
	line("DTSTAMP:" + UTC(e.Stamp))
	line("DTSTART:" + UTC(e.Start))
	line("DTEND:" + UTC(e.End))
	line("SUMMARY:" + Text(e.Summary))
	line("DESCRIPTION:" + Text(e.Description))
	if e.URL != "" {
		line("URL:" + e.URL)
	}
	line("ORGANIZER;CN=" + param(e.Organizer.Name) + ":" + address(e.Organizer))
	for _, a := range e.Attendees {
		role := a.Role
		if role == "" {
			role = "REQ-PARTICIPANT"
		}
		line("ATTENDEE;CN=" + param(a.Name) + ";ROLE=" + role + ";PARTSTAT=NEEDS-ACTION;RSVP=TRUE:" + address(a))
	}
	line("STATUS:CONFIRMED")
	line("END:VEVENT")
	line("END:VCALENDAR")
	return b.String()
}
