package templates

import (
	"strings"
	"time"

	"hindsight/models"
)

// UnderstoodText says what a time field's text reads as in zone, a time of day alone falling on
// day ("2006-01-02" or ""): "12 Mar 2026 16:54 UTC". Empty for an empty field; a short
// complaint for text that reads as no time.
func UnderstoodText(value, zone, day string) string {
	value = strings.TrimSpace(value)
	if value == "" {
		return ""
	}
	loc, err := time.LoadLocation(zone)
	if err != nil || zone == "" {
		loc = time.UTC
	}
	var ref *time.Time
	if d, err := time.ParseInLocation(time.DateOnly, day, loc); err == nil {
		ref = &d
	}
	t, p, err := models.ParseTyped(value, loc, ref)
	if err != nil {
		return "Not read as a time yet"
	}
	return "Read as " + models.Understood(t, p, loc)
}

// DayOf writes the date of an instant in a zone, for time fields that take a time of day alone.
func DayOf(t *time.Time, loc *time.Location) string {
	if t == nil {
		return ""
	}
	return t.In(loc).Format(time.DateOnly)
}

// IncidentDay is the incident's own date in its zone: the start, else the first milestone known.
func IncidentDay(inc *models.Incident, loc *time.Location) string {
	if inc == nil {
		return ""
	}
	if inc.StartedAt != nil {
		return DayOf(inc.StartedAt, loc)
	}
	for _, t := range inc.Milestones().List() {
		if t != nil {
			return DayOf(t, loc)
		}
	}
	return ""
}

// DayOfTyped is the date a typed time falls on, in zone, or "" when it reads as none.
func DayOfTyped(value, zone string) string {
	loc, err := time.LoadLocation(zone)
	if err != nil || zone == "" {
		loc = time.UTC
	}
	t, _, err := models.ParseTyped(value, loc, nil)
	if err != nil {
		return ""
	}
	return t.In(loc).Format(time.DateOnly)
}
