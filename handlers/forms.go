package handlers

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// localTime reads a typed time in a zone (models.ParseTyped). Empty means unknown and gives nil.
func localTime(value string, loc *time.Location, field string, errs *models.FieldErrors) *time.Time {
	t, _ := typedTime(value, loc, nil, field, errs)
	return t
}

// typedTime reads a typed time, a time of day alone falling on day when one is given, and says
// whether only the day was known. Empty means unknown and gives nil.
func typedTime(value string, loc *time.Location, day *time.Time, field string, errs *models.FieldErrors) (*time.Time, models.Precision) {
	value = strings.TrimSpace(value)
	if value == "" {
		return nil, models.PrecisionMinute
	}
	t, precision, err := models.ParseTyped(value, loc, day)
	if err != nil {
		errs.Add(field, models.TypedTimeHint)
		return nil, models.PrecisionMinute
	}
	return &t, precision
}

// formZone reads the time zone field, reporting an unknown one and falling back to UTC meanwhile.
func formZone(value string, errs *models.FieldErrors) *time.Location {
	if value == "" {
		errs.Add("time_zone", "Choose a time zone.")
		return time.UTC
	}
	loc, err := time.LoadLocation(value)
	if err != nil {
		errs.Add("time_zone", "Not a known time zone; use a name like Europe/London or UTC.")
		return time.UTC
	}
	return loc
}

// splitList reads a comma-separated list of names.
func splitList(value string) []string {
	var out []string
	for _, part := range strings.Split(value, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func checked(form url.Values, name string) bool {
	v := form.Get(name)
	return v == "true" || v == "on" || v == "1"
}

func formVersion(form url.Values) int {
	v, _ := strconv.Atoi(form.Get("version"))
	return v
}

// formValues reads the posted form. A body over the limit keeps its 413; any other failure to read
// the form is the client's, a 400.
func formValues(c echo.Context) (url.Values, error) {
	form, err := c.FormParams()
	if err != nil {
		var httpErr *echo.HTTPError
		if errors.As(err, &httpErr) {
			return nil, httpErr
		}
		return nil, echo.NewHTTPError(http.StatusBadRequest, "The form could not be read.").SetInternal(err)
	}
	return form, nil
}

// incidentForm reads the incident form into what the user typed and what the store takes: the
// incident, and the nested lists the form carries from pasted text (nil when it carries none).
func incidentForm(form url.Values) (templates.IncidentFormValues, models.IncidentInput, models.Children, models.FieldErrors) {
	values := templates.IncidentFormValues{
		Title: strings.TrimSpace(form.Get("title")), Summary: form.Get("summary"), Severity: form.Get("severity"),
		Status: form.Get("status"), DetectionMethod: form.Get("detection_method"),
		CustomerImpact: form.Get("customer_impact"), RootCause: form.Get("root_cause"),
		Trigger: form.Get("trigger"), Detection: form.Get("detection"), Response: form.Get("response"),
		Lessons: form.Get("lessons"), TimeZone: form.Get("time_zone"),
		PostmortemState: form.Get("postmortem_state"), Services: form.Get("services"),
		Regions: form.Get("regions"), Public: checked(form, "public"),
		Milestones: map[string]string{}, Factors: form["factors"],
		NearMiss: checked(form, "near_miss"), Template: form.Get("template"),
	}
	for _, slug := range form["sections"] {
		values.Sections = append(values.Sections, models.SectionInput{
			Slug: slug, Heading: form.Get("section-" + slug + "-heading"),
			Body: form.Get("section-" + slug), Public: checked(form, "section-"+slug+"-public"),
		})
	}
	var errs models.FieldErrors
	loc := formZone(values.TimeZone, &errs)
	times := make([]*time.Time, len(models.MilestoneNames))
	pasted := map[string]bool{}
	// A time of day alone falls on the start's date, so the start is read first.
	start, startPrecision := typedTime(form.Get("started_at"), loc, nil, "started_at", &errs)
	var days []string
	for n, name := range models.MilestoneNames {
		values.Milestones[name] = form.Get(name)
		precision := startPrecision
		if name == "started_at" {
			times[n] = start
		} else {
			times[n], precision = typedTime(form.Get(name), loc, start, name, &errs)
		}
		if times[n] != nil && precision == models.PrecisionDay {
			days = append(days, name)
		}
		if p := form.Get("pasted_" + name); p != "" {
			if values.Pasted == nil {
				values.Pasted = map[string]string{}
			}
			values.Pasted[name] = p
			// Saved as read, the time is the pasted text's; changed, it is the person's.
			pasted[name] = p == form.Get(name)
		}
	}
	in := models.IncidentInput{
		Title: values.Title, Summary: values.Summary, Severity: values.Severity, Status: values.Status,
		DetectionMethod: values.DetectionMethod, CustomerImpact: values.CustomerImpact,
		RootCause: values.RootCause, Trigger: values.Trigger, Detection: values.Detection,
		Response: values.Response, Lessons: values.Lessons, TimeZone: values.TimeZone,
		PostmortemState: values.PostmortemState, Public: values.Public,
		Services: splitList(values.Services), Regions: splitList(values.Regions), Factors: values.Factors,
		Milestones: models.Milestones{
			TriggeredAt: times[0], StartedAt: times[1], DetectedAt: times[2],
			AcknowledgedAt: times[3], MitigatedAt: times[4], ResolvedAt: times[5],
		},
		Origin:   models.MilestoneOrigin{Pasted: pasted},
		NearMiss: values.NearMiss, Template: values.Template,
		MilestoneDays: days,
	}
	sections := slices.Clone(values.Sections)
	in.Sections = &sections
	children := pastedRows(form, loc, start, &values, &errs)
	return values, in, children, mergeErrors(errs, models.ValidateIncident(in))
}

// mergeErrors keeps the first message per field: a parse error explains more than "required".
func mergeErrors(first, second models.FieldErrors) models.FieldErrors {
	out := first
	for _, e := range second {
		if out.For(e.Field) == "" {
			out = append(out, e)
		}
	}
	return out
}

// incidentFormValues fills the form from a stored incident.
func incidentFormValues(inc *models.Incident) templates.IncidentFormValues {
	loc := inc.Location()
	values := templates.IncidentFormValues{
		Title: inc.Title, Summary: inc.Summary, Severity: inc.Severity, Status: inc.Status,
		DetectionMethod: inc.DetectionMethod, CustomerImpact: inc.CustomerImpact, RootCause: inc.RootCause,
		Trigger: inc.Trigger, Detection: inc.Detection, Response: inc.Response, Lessons: inc.Lessons,
		TimeZone: inc.TimeZone, PostmortemState: inc.PostmortemState, Public: inc.Public,
		Services: strings.Join(inc.ServiceNames(), ", "), Regions: strings.Join(inc.RegionNames(), ", "),
		Milestones: map[string]string{}, Factors: inc.FactorSlugs(),
		NearMiss: inc.NearMiss, Template: inc.TemplateSlug, Sections: models.SectionInputs(inc.Sections),
	}
	for n, t := range inc.Milestones().List() {
		name := models.MilestoneNames[n]
		values.Milestones[name] = templates.LocalInput(t, loc)
		if t != nil && inc.DayOnly(name) {
			values.Milestones[name] = t.In(loc).Format(time.DateOnly)
		}
	}
	return values
}

func eventForm(form url.Values) (templates.EventFormValues, models.EventInput, models.FieldErrors) {
	values := templates.EventFormValues{
		At: form.Get("at"), TimeZone: form.Get("time_zone"), Kind: form.Get("kind"),
		Status: form.Get("status"), Body: form.Get("body"), Public: checked(form, "public"),
	}
	var errs models.FieldErrors
	loc := formZone(values.TimeZone, &errs)
	in := models.EventInput{Kind: values.Kind, Status: values.Status, Body: values.Body, Public: values.Public}
	if at := localTime(values.At, loc, "at", &errs); at != nil {
		in.At = *at
	}
	return values, in, mergeErrors(errs, models.Validate(in))
}

func eventFormValues(ev *models.TimelineEvent, loc *time.Location) templates.EventFormValues {
	return templates.EventFormValues{
		At: templates.LocalInput(&ev.At, loc), TimeZone: loc.String(), Kind: ev.Kind,
		Status: ev.Status, Body: ev.Body, Public: ev.Public,
	}
}

func windowForm(form url.Values) (templates.WindowFormValues, models.WindowInput, models.FieldErrors) {
	values := templates.WindowFormValues{
		StartedAt: form.Get("started_at"), EndedAt: form.Get("ended_at"), TimeZone: form.Get("time_zone"),
		Level: form.Get("level"), Note: form.Get("note"), Services: form.Get("services"),
	}
	var errs models.FieldErrors
	loc := formZone(values.TimeZone, &errs)
	in := models.WindowInput{Level: values.Level, Note: values.Note, Services: splitList(values.Services)}
	if at := localTime(values.StartedAt, loc, "started_at", &errs); at != nil {
		in.StartedAt = *at
	}
	in.EndedAt = localTime(values.EndedAt, loc, "ended_at", &errs)
	return values, in, mergeErrors(errs, models.ValidateWindow(in))
}

func windowFormValues(w *models.ImpactWindow, loc *time.Location) templates.WindowFormValues {
	return templates.WindowFormValues{
		StartedAt: templates.LocalInput(&w.StartedAt, loc), EndedAt: templates.LocalInput(w.EndedAt, loc),
		TimeZone: loc.String(), Level: w.Level, Note: w.Note, Services: strings.Join(w.ServiceNames(), ", "),
	}
}

func followUpForm(form url.Values) (templates.FollowUpFormValues, models.FollowUpInput, models.FieldErrors) {
	values := templates.FollowUpFormValues{
		Title: strings.TrimSpace(form.Get("title")), Description: form.Get("description"), Kind: form.Get("kind"),
		Priority: form.Get("priority"), Owner: form.Get("owner"), DueOn: form.Get("due_on"),
		Status: form.Get("status"), TrackerURL: form.Get("tracker_url"),
		Verification: form.Get("verification"), Version: formVersion(form), Factors: form["factors"],
		DoneAt: form.Get("done_at"), TimeZone: form.Get("time_zone"),
	}
	var errs models.FieldErrors
	in := models.FollowUpInput{
		Title: values.Title, Description: values.Description, Kind: values.Kind, Priority: values.Priority,
		Owner: strings.TrimSpace(values.Owner), Status: values.Status, TrackerURL: strings.TrimSpace(values.TrackerURL),
		Verification: values.Verification, Factors: values.Factors,
	}
	if due := strings.TrimSpace(values.DueOn); due != "" {
		d, err := time.Parse(time.DateOnly, due)
		if err != nil {
			errs.Add("due_on", "Not a date; write it as 2026-04-30.")
		} else {
			in.DueOn = &d
		}
	}
	// The done date is typed in the incident's zone, which the form carries; only a done
	// follow-up keeps one, so a date left in the field of one set back to open is not an error.
	if values.Status == "done" && strings.TrimSpace(values.DoneAt) != "" {
		loc := time.UTC
		if values.TimeZone != "" {
			loc = formZone(values.TimeZone, &errs)
		}
		in.DoneAt = localTime(values.DoneAt, loc, "done_at", &errs)
	}
	return values, in, mergeErrors(errs, models.Validate(in))
}

// followUpFormValues fills the edit form from a stored follow-up, its done date in loc, the
// incident's zone.
func followUpFormValues(f *models.FollowUp, loc *time.Location) templates.FollowUpFormValues {
	return templates.FollowUpFormValues{
		Title: f.Title, Description: f.Description, Kind: f.Kind, Priority: f.Priority, Owner: f.Owner,
		DueOn: templates.DateOnly(f.DueOn), Status: f.Status, TrackerURL: f.TrackerURL,
		Verification: f.Verification, Version: f.Version, Factors: f.FactorSlugs(),
		DoneAt: templates.LocalInput(f.DoneAt, loc), TimeZone: loc.String(),
	}
}
