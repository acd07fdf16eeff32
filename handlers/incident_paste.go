package handlers

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/models/pmparse"
	"hindsight/templates"
)

// IncidentPaste reads pasted postmortem text into the new-incident form: the form comes back
// filled with what the text states, each value listed with the words it came from. Nothing is
// saved.
func (h *Handlers) IncidentPaste(c echo.Context) error {
	form, err := formValues(c)
	if err != nil {
		return err
	}
	page, err := h.incidentFormPage(c, "File an incident", "/incidents", "/incidents")
	if err != nil {
		return err
	}
	page.Values = h.newIncidentValues(c)
	view := templates.PasteView{Text: form.Get("paste"), TimeZone: strings.TrimSpace(form.Get("paste_time_zone"))}
	status := http.StatusOK
	zone, errs := parseZone(view.TimeZone)
	switch {
	case len(errs) > 0:
		view.Error, status = errs[0].Message, http.StatusUnprocessableEntity
	case strings.TrimSpace(view.Text) == "":
		view.Error, status = "Paste the postmortem or status-page history to read.", http.StatusUnprocessableEntity
	default:
		draft, err := readPasted(view.Text, zone)
		if err != nil {
			return err
		}
		page.Values.TimeZone, page.ZoneChosen = zone.String(), true
		view.Read = true
		fillFromDraft(&page.Values, &view, draft, zone)
		page.Warnings = draftWarnings(draft)
	}
	ctx := templates.WithPaste(c.Request().Context(), view)
	c.SetRequest(c.Request().WithContext(ctx))
	return render(c, status, templates.IncidentFormPage(page))
}

// fillFromDraft puts each value the text states into the form and lists it with its words.
func fillFromDraft(values *templates.IncidentFormValues, view *templates.PasteView, d pmparse.Draft, zone *time.Location) {
	inc := d.Incident
	suggest := func(field, label, value, shown string, target *string) {
		if value == "" {
			return
		}
		*target = value
		view.Suggestions = append(view.Suggestions, templates.PasteSuggestion{Field: field, Label: label, Value: shown, Words: shorten(d.Evidence[field], 300)})
	}
	// Sections are long: the list shows their start, the form holds all of each.
	section := func(field, label, value string, target *string) {
		suggest(field, label, value, shorten(value, 90), target)
	}
	suggest("title", "Title", inc.Title, inc.Title, &values.Title)
	section("summary", "Summary", inc.Summary, &values.Summary)
	suggest("status", "Status", inc.Status, templates.Label(inc.Status), &values.Status)
	suggest("detection_method", "Detected by", inc.DetectionMethod, templates.Label(inc.DetectionMethod), &values.DetectionMethod)
	for _, name := range models.MilestoneNames {
		at, ok := inc.Milestones[name]
		if !ok {
			continue
		}
		values.Milestones[name] = templates.LocalInput(&at, zone)
		shown := templates.When(at, zone)
		if slices.Contains(inc.MilestoneDays, name) {
			// Known only to the day: the field holds the date alone, which saves as such.
			values.Milestones[name] = at.In(zone).Format(time.DateOnly)
			shown = at.In(zone).Format("2 Jan 2006") + " (the day only)"
		}
		if values.Pasted == nil {
			values.Pasted = map[string]string{}
		}
		values.Pasted[name] = values.Milestones[name]
		s := templates.PasteSuggestion{Field: name, Label: models.MilestoneLabels[name], Value: shown, Words: d.Evidence[name]}
		for _, alt := range d.Alternatives[name] {
			s.Also = append(s.Also, templates.When(alt.At, zone)+" (“"+shorten(alt.Words, 160)+"”)")
		}
		view.Suggestions = append(view.Suggestions, s)
	}
	section("customer_impact", "Customer impact", inc.CustomerImpact, &values.CustomerImpact)
	section("root_cause", "Root cause", inc.RootCause, &values.RootCause)
	section("trigger", "Trigger", inc.Trigger, &values.Trigger)
	section("detection", "Detection", inc.Detection, &values.Detection)
	section("response", "Response", inc.Response, &values.Response)
	section("lessons", "Lessons", inc.Lessons, &values.Lessons)
	draftRows(values, d, zone)
	view.Updates, view.Windows, view.FollowUps = len(values.Timeline), len(values.Windows), len(values.FollowUps)
}

// draftRows puts the draft's timeline entries, impact windows and follow-ups into the form's
// rows, each kept unless the user unticks it.
func draftRows(values *templates.IncidentFormValues, d pmparse.Draft, zone *time.Location) {
	inc := d.Incident
	for n, e := range inc.Timeline {
		values.Timeline = append(values.Timeline, templates.EventRow{
			At: templates.LocalInput(&e.At, zone), Kind: e.Kind, Status: e.Status, Body: e.Body,
			Public: e.Public, Keep: true, Words: shorten(d.Evidence["timeline["+strconv.Itoa(n)+"]"], 160),
		})
	}
	for n, w := range inc.Windows {
		values.Windows = append(values.Windows, templates.WindowRow{
			StartedAt: templates.LocalInput(&w.StartedAt, zone), EndedAt: templates.LocalInput(&w.EndedAt, zone),
			Level: w.Level, Note: w.Note, Keep: true, Words: shorten(d.Evidence["windows["+strconv.Itoa(n)+"]"], 160),
		})
	}
	for n, f := range inc.FollowUps {
		values.FollowUps = append(values.FollowUps, templates.FollowUpRow{
			Title: shorten(f.Title, 200), Description: f.Description, Kind: "prevent", Priority: "p2", Keep: true,
			Words: shorten(d.Evidence["follow_ups["+strconv.Itoa(n)+"]"], 160),
		})
	}
}

// readPasted reads pasted text: a Statuspage incident as JSON, else prose (pmparse).
func readPasted(text string, zone *time.Location) (pmparse.Draft, error) {
	if d, ok := pmparse.ParseStatuspage(text); ok {
		return d, nil
	}
	return pmparse.Parse(text, zone)
}

// draftWarnings flags suggested milestones that are out of order, as the form does for typed ones.
func draftWarnings(d pmparse.Draft) []models.OrderWarning {
	var m models.Milestones
	ptr := func(name string) *time.Time {
		if at, ok := d.Incident.Milestones[name]; ok {
			return &at
		}
		return nil
	}
	m.TriggeredAt, m.StartedAt, m.DetectedAt = ptr("triggered_at"), ptr("started_at"), ptr("detected_at")
	m.AcknowledgedAt, m.MitigatedAt, m.ResolvedAt = ptr("acknowledged_at"), ptr("mitigated_at"), ptr("resolved_at")
	return m.OrderWarnings()
}

// shorten cuts a long value for the list of suggestions; the form holds all of it.
func shorten(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) <= max {
		return s
	}
	return string([]rune(s)[:max]) + "…"
}
