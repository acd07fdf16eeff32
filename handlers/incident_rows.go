package handlers

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"hindsight/models"
	"hindsight/templates"
)

// maxPastedRows bounds each list the new-incident form carries from pasted text; the timeline's
// own limit still applies when it is saved.
const maxPastedRows = 1000

// pastedRows reads the status updates, impact windows and follow-ups the new-incident form
// carries from pasted text into the values shown again on failure and the children saved with
// the incident. A row whose "Keep" box is unticked is shown but not saved; a list the form does
// not carry stays nil, so nothing is replaced. Times are read in loc, a time of day alone on the
// day of start.
func pastedRows(form url.Values, loc *time.Location, start *time.Time, values *templates.IncidentFormValues, errs *models.FieldErrors) models.Children {
	var children models.Children
	row := func(list string, n int, field string) string { return list + "." + strconv.Itoa(n) + "." + field }
	present := func(list string, n int) bool { return form.Get(row(list, n, "row")) != "" }

	var events []models.EventInput
	for n := 0; n < maxPastedRows && present("timeline", n); n++ {
		get := func(f string) string { return form.Get(row("timeline", n, f)) }
		r := templates.EventRow{At: get("at"), Kind: get("kind"), Status: get("status"), Body: get("body"),
			Public: checked(form, row("timeline", n, "public")), Keep: checked(form, row("timeline", n, "keep"))}
		values.Timeline = append(values.Timeline, r)
		if !r.Keep {
			continue
		}
		in := models.EventInput{Kind: r.Kind, Status: r.Status, Body: r.Body, Public: r.Public}
		if at, _ := typedTime(r.At, loc, start, row("timeline", n, "at"), errs); at != nil {
			in.At = *at
		} else if strings.TrimSpace(r.At) == "" {
			errs.Add(row("timeline", n, "at"), "When was it posted? Write a time, or untick Keep.")
		}
		*errs = mergeErrors(*errs, models.ValidateEvent(in).Prefixed(row("timeline", n, "")))
		events = append(events, in)
	}
	if len(values.Timeline) > 0 {
		children.Timeline = &events
	}

	var windows []models.WindowInput
	for n := 0; n < maxPastedRows && present("windows", n); n++ {
		get := func(f string) string { return form.Get(row("windows", n, f)) }
		r := templates.WindowRow{StartedAt: get("started_at"), EndedAt: get("ended_at"), Level: get("level"), Note: get("note"),
			Keep: checked(form, row("windows", n, "keep"))}
		values.Windows = append(values.Windows, r)
		if !r.Keep {
			continue
		}
		in := models.WindowInput{Level: r.Level, Note: r.Note}
		if at, _ := typedTime(r.StartedAt, loc, start, row("windows", n, "started_at"), errs); at != nil {
			in.StartedAt = *at
		}
		in.EndedAt, _ = typedTime(r.EndedAt, loc, start, row("windows", n, "ended_at"), errs)
		*errs = mergeErrors(*errs, models.ValidateWindow(in).Prefixed(row("windows", n, "")))
		windows = append(windows, in)
	}
	if len(values.Windows) > 0 {
		children.ImpactWindows = &windows
	}

	var followUps []models.FollowUpInput
	for n := 0; n < maxPastedRows && present("follow_ups", n); n++ {
		get := func(f string) string { return form.Get(row("follow_ups", n, f)) }
		r := templates.FollowUpRow{Title: strings.TrimSpace(get("title")), Description: get("description"), Owner: strings.TrimSpace(get("owner")),
			Kind: get("kind"), Priority: get("priority"), Keep: checked(form, row("follow_ups", n, "keep"))}
		values.FollowUps = append(values.FollowUps, r)
		if !r.Keep {
			continue
		}
		in := models.FollowUpInput{Title: r.Title, Description: r.Description, Owner: r.Owner, Kind: r.Kind, Priority: r.Priority, Status: "open"}
		*errs = mergeErrors(*errs, models.Validate(in).Prefixed(row("follow_ups", n, "")))
		followUps = append(followUps, in)
	}
	if len(values.FollowUps) > 0 {
		children.FollowUps = &followUps
	}
	return children
}
