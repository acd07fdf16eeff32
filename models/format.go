package models

import (
	"fmt"
	"strings"
	"time"
)

// FormatDuration writes a duration the way responders say it: "72 h 54 min", "20 min", "45 s".
func FormatDuration(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "−", -d
	}
	d = d.Round(time.Second)
	h := int64(d / time.Hour)
	m := int64(d % time.Hour / time.Minute)
	s := int64(d % time.Minute / time.Second)
	var parts []string
	switch {
	case h > 0:
		parts = append(parts, fmt.Sprintf("%d h", h))
		if m > 0 {
			parts = append(parts, fmt.Sprintf("%d min", m))
		}
	case m > 0:
		parts = append(parts, fmt.Sprintf("%d min", m))
		if s > 0 {
			parts = append(parts, fmt.Sprintf("%d s", s))
		}
	default:
		parts = append(parts, fmt.Sprintf("%d s", s))
	}
	return sign + strings.Join(parts, " ")
}

// FormatFigure writes a figure, or "not recorded"; one measured from or to a milestone known
// only to the day is written as the whole days it is about.
func FormatFigure(f Figure) string {
	if !f.Recorded {
		return "not recorded"
	}
	if f.Approximate {
		return ApproximateDuration(f.Value)
	}
	return FormatDuration(f.Value)
}

// ApproximateDuration writes a duration known only to within a day: "about 4 days", "about 1
// day", "less than a day". Hours and minutes would claim a precision the milestone lacks.
func ApproximateDuration(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "−", -d
	}
	days := int64((d + 12*time.Hour) / (24 * time.Hour))
	switch days {
	case 0:
		return sign + "less than a day"
	case 1:
		return sign + "about 1 day"
	}
	return fmt.Sprintf("%sabout %d days", sign, days)
}
