package models

import (
	"fmt"
	"strings"
	"time"
)

// DurationWords writes a duration the way a public postmortem says it: days, hours and minutes,
// leaving out the parts that are zero ("3 days 54 minutes", "3 hours 54 minutes"), and seconds
// only under an hour ("12 minutes 31 seconds", "45 seconds").
func DurationWords(d time.Duration) string {
	if d < 0 {
		return "minus " + DurationWords(-d)
	}
	d = d.Round(time.Second)
	days := int64(d / (24 * time.Hour))
	hours := int64(d % (24 * time.Hour) / time.Hour)
	minutes := int64(d % time.Hour / time.Minute)
	seconds := int64(d % time.Minute / time.Second)
	var parts []string
	add := func(n int64, unit string) {
		if n == 1 {
			parts = append(parts, "1 "+unit)
		} else if n > 1 {
			parts = append(parts, fmt.Sprintf("%d %ss", n, unit))
		}
	}
	add(days, "day")
	add(hours, "hour")
	add(minutes, "minute")
	if d < time.Hour {
		add(seconds, "second")
	}
	if len(parts) == 0 {
		return "0 seconds"
	}
	return strings.Join(parts, " ")
}
