package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/models"
)

// APIIncident is an incident as the JSON API v1 shows it.
type APIIncident struct {
	ID              int64      `json:"id"`
	Version         int        `json:"version"`
	Title           string     `json:"title"`
	Summary         string     `json:"summary"`
	Severity        string     `json:"severity"`
	Status          string     `json:"status"`
	DetectionMethod *string    `json:"detection_method"`
	Services        []string   `json:"services"`
	Regions         []string   `json:"regions"`
	Factors         []string   `json:"factors"`
	Links           []APILink  `json:"links"`
	LinkedFrom      []APILink  `json:"linked_from"`
	CustomerImpact  string     `json:"customer_impact"`
	RootCause       string     `json:"root_cause"`
	Trigger         string     `json:"trigger"`
	Detection       string     `json:"detection"`
	Response        string     `json:"response"`
	Lessons         string     `json:"lessons"`
	TimeZone        string     `json:"time_zone"`
	TriggeredAt     *time.Time `json:"triggered_at"`
	StartedAt       *time.Time `json:"started_at"`
	DetectedAt      *time.Time `json:"detected_at"`
	AcknowledgedAt  *time.Time `json:"acknowledged_at"`
	MitigatedAt     *time.Time `json:"mitigated_at"`
	ResolvedAt      *time.Time `json:"resolved_at"`
	// MilestoneDays names the milestones known only to the day ("triggered_at"): their time is
	// the day's start in the incident's zone, and their figures are approximate.
	MilestoneDays   []string     `json:"milestone_days"`
	PostmortemState string       `json:"postmortem_state"`
	PublishedAt     *time.Time   `json:"published_at"`
	Public          bool         `json:"public"`
	NearMiss        bool         `json:"near_miss"`
	Template        string       `json:"template"`
	Sections        []APISection `json:"sections"`
	Source          string       `json:"source,omitempty"`
	ExternalID      string       `json:"external_id,omitempty"`
	// MilestoneSources says, by milestone, where each recorded time came from: typed (with the
	// person), imported (with the file or status page), alert (with the integration and the
	// alert), pasted. Null in the list, which does not load them.
	MilestoneSources map[string]models.MilestoneSource `json:"milestone_sources"`
	Timeline         []APIEvent                        `json:"timeline"`
	ImpactWindows    []APIWindow                       `json:"impact_windows"`
	FollowUps        []APIFollowUp                     `json:"follow_ups"`
	Metrics          APIMetrics                        `json:"metrics"`
	Warnings         []string                          `json:"warnings"`
	CreatedAt        time.Time                         `json:"created_at"`
	UpdatedAt        time.Time                         `json:"updated_at"`
}

// APISection is one of a template's extra sections of the incident.
type APISection struct {
	Slug    string `json:"slug"`
	Heading string `json:"heading"`
	Body    string `json:"body"`
	Public  bool   `json:"public"`
}

// APILink is a link in the API: the kind and the incident at the other end.
type APILink struct {
	Kind       string `json:"kind"`
	IncidentID int64  `json:"incident_id"`
}

// APIEvent is a timeline event in the API.
type APIEvent struct {
	ID     int64     `json:"id"`
	At     time.Time `json:"at"`
	Kind   string    `json:"kind"`
	Status string    `json:"status,omitempty"`
	Body   string    `json:"body"`
	Public bool      `json:"public"`
}

// APIWindow is an impact window in the API.
type APIWindow struct {
	ID        int64      `json:"id"`
	StartedAt time.Time  `json:"started_at"`
	EndedAt   *time.Time `json:"ended_at"`
	Level     string     `json:"level"`
	Note      string     `json:"note"`
	Services  []string   `json:"services"`
}

// APIFollowUp is a follow-up action in the API.
type APIFollowUp struct {
	ID           int64      `json:"id"`
	Version      int        `json:"version"`
	Title        string     `json:"title"`
	Description  string     `json:"description"`
	Kind         string     `json:"kind"`
	Priority     string     `json:"priority"`
	Owner        string     `json:"owner"`
	DueOn        *string    `json:"due_on"`
	Status       string     `json:"status"`
	DoneAt       *time.Time `json:"done_at"`
	TrackerURL   string     `json:"tracker_url"`
	Verification string     `json:"verification"`
	Factors      []string   `json:"factors"`
	IncidentID   int64      `json:"incident_id"`
}

// APIMetrics are the figures of DESIGN §2 in seconds, null when not recorded.
type APIMetrics struct {
	TimeToDetect            *int64   `json:"time_to_detect_seconds"`
	TimeToAcknowledge       *int64   `json:"time_to_acknowledge_seconds"`
	TimeToMitigate          *int64   `json:"time_to_mitigate_seconds"`
	TimeToResolve           *int64   `json:"time_to_resolve_seconds"`
	Latent                  *int64   `json:"latent_seconds"`
	TimeToFirstPublicUpdate *int64   `json:"time_to_first_public_update_seconds"`
	Impact                  *int64   `json:"impact_seconds"`
	Invalid                 []string `json:"invalid"`
	// Approximate names the figures measured from or to a milestone known only to the day.
	Approximate []string `json:"approximate"`
}

func apiIncident(inc *models.Incident, links []models.LinkedIncident) APIIncident {
	m := models.ComputeMetrics(inc)
	out := APIIncident{
		ID: inc.ID, Version: inc.Version, Title: inc.Title, Summary: inc.Summary, Severity: inc.Severity,
		Status: inc.Status, Services: nonNil(inc.ServiceNames()), Regions: nonNil(inc.RegionNames()),
		Factors: nonNil(inc.FactorSlugs()), Links: []APILink{}, LinkedFrom: []APILink{},
		CustomerImpact: inc.CustomerImpact, RootCause: inc.RootCause, Trigger: inc.Trigger,
		Detection: inc.Detection, Response: inc.Response, Lessons: inc.Lessons, TimeZone: inc.TimeZone,
		TriggeredAt: inc.TriggeredAt, StartedAt: inc.StartedAt, DetectedAt: inc.DetectedAt,
		AcknowledgedAt: inc.AcknowledgedAt, MitigatedAt: inc.MitigatedAt, ResolvedAt: inc.ResolvedAt,
		MilestoneDays:   nonNil(inc.DayMilestones()),
		PostmortemState: inc.PostmortemState, PublishedAt: inc.PublishedAt, Public: inc.Public,
		Source: inc.Source, ExternalID: inc.ExternalID, NearMiss: inc.NearMiss, Template: inc.TemplateSlug, Sections: []APISection{},
		Timeline: []APIEvent{}, ImpactWindows: []APIWindow{}, FollowUps: []APIFollowUp{}, Warnings: []string{},
		CreatedAt: inc.CreatedAt.UTC(), UpdatedAt: inc.UpdatedAt.UTC(),
		Metrics: APIMetrics{
			TimeToDetect: m.TimeToDetect.Seconds(), TimeToAcknowledge: m.TimeToAcknowledge.Seconds(),
			TimeToMitigate: m.TimeToMitigate.Seconds(), TimeToResolve: m.TimeToResolve.Seconds(),
			Latent: m.Latent.Seconds(), TimeToFirstPublicUpdate: m.TimeToFirstPublicUpdate.Seconds(),
			Impact: m.Impact.Seconds(), Invalid: m.Invalid(), Approximate: m.Approximate(),
		},
	}
	if inc.DetectionMethod != "" {
		out.DetectionMethod = &inc.DetectionMethod
	}
	for _, w := range inc.Milestones().OrderWarnings() {
		out.Warnings = append(out.Warnings, w.Message)
	}
	for _, l := range links {
		if l.Outgoing {
			out.Links = append(out.Links, APILink{l.Kind, l.OtherID})
		} else {
			out.LinkedFrom = append(out.LinkedFrom, APILink{l.Kind, l.OtherID})
		}
	}
	for _, sec := range inc.Sections {
		out.Sections = append(out.Sections, APISection{sec.Slug, sec.Heading, sec.Body, sec.Public})
	}
	for _, ev := range inc.Timeline {
		out.Timeline = append(out.Timeline, APIEvent{ev.ID, ev.At.UTC(), ev.Kind, ev.Status, ev.Body, ev.Public})
	}
	for _, w := range inc.ImpactWindows {
		out.ImpactWindows = append(out.ImpactWindows, APIWindow{w.ID, w.StartedAt.UTC(), utcPtr(w.EndedAt), w.Level, w.Note, nonNil(w.ServiceNames())})
	}
	for n := range inc.FollowUps {
		out.FollowUps = append(out.FollowUps, apiFollowUp(&inc.FollowUps[n]))
	}
	return out
}

// withSources adds the milestones' sources to a single incident's answer, an empty object when
// none is recorded.
func withSources(out APIIncident, inc *models.Incident) APIIncident {
	out.MilestoneSources = map[string]models.MilestoneSource{}
	for name, src := range inc.MilestoneSources {
		out.MilestoneSources[name] = src
	}
	return out
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func apiFollowUp(f *models.FollowUp) APIFollowUp {
	fu := APIFollowUp{
		ID: f.ID, Version: f.Version, Title: f.Title, Description: f.Description, Kind: f.Kind,
		Priority: f.Priority, Owner: f.Owner, Status: f.Status, DoneAt: utcPtr(f.DoneAt),
		TrackerURL: f.TrackerURL, Verification: f.Verification, Factors: nonNil(f.FactorSlugs()), IncidentID: f.IncidentID,
	}
	if f.DueOn != nil {
		due := f.DueOn.UTC().Format(time.DateOnly)
		fu.DueOn = &due
	}
	return fu
}

// apiIncidentInput is the body of POST and PUT /api/v1/incidents. Times are strings so that a
// malformed one gets a message naming its field rather than a generic decode error.
type apiIncidentInput struct {
	Version         int                 `json:"version"`
	Title           string              `json:"title"`
	Summary         string              `json:"summary"`
	Severity        string              `json:"severity"`
	Status          string              `json:"status"`
	DetectionMethod *string             `json:"detection_method"`
	Services        []string            `json:"services"`
	Regions         []string            `json:"regions"`
	Factors         []string            `json:"factors"`
	Links           *[]models.LinkInput `json:"links"`
	CustomerImpact  string              `json:"customer_impact"`
	RootCause       string              `json:"root_cause"`
	Trigger         string              `json:"trigger"`
	Detection       string              `json:"detection"`
	Response        string              `json:"response"`
	Lessons         string              `json:"lessons"`
	TimeZone        string              `json:"time_zone"`
	TriggeredAt     *string             `json:"triggered_at"`
	StartedAt       *string             `json:"started_at"`
	DetectedAt      *string             `json:"detected_at"`
	AcknowledgedAt  *string             `json:"acknowledged_at"`
	MitigatedAt     *string             `json:"mitigated_at"`
	ResolvedAt      *string             `json:"resolved_at"`
	MilestoneDays   []string            `json:"milestone_days"`
	PostmortemState string              `json:"postmortem_state"`
	Public          bool                `json:"public"`
	NearMiss        bool                `json:"near_miss"`
	Template        string              `json:"template"`
	// PublishAnyway and PublishReason publish over the publish check's findings (an admin's
	// call, recorded in the history), as "Publish anyway" does on the postmortem page.
	PublishAnyway bool   `json:"publish_anyway"`
	PublishReason string `json:"publish_reason"`
	// Sections replace the incident's extra sections; absent leaves them alone.
	Sections      *[]models.SectionInput `json:"sections"`
	Timeline      *[]apiEventInput       `json:"timeline"`
	ImpactWindows *[]apiWindowInput      `json:"impact_windows"`
	FollowUps     *[]apiFollowUpInput    `json:"follow_ups"`
}

type apiEventInput struct {
	At     *string `json:"at"`
	Kind   string  `json:"kind"`
	Status string  `json:"status"`
	Body   string  `json:"body"`
	Public bool    `json:"public"`
}

type apiWindowInput struct {
	StartedAt *string  `json:"started_at"`
	EndedAt   *string  `json:"ended_at"`
	Level     string   `json:"level"`
	Note      string   `json:"note"`
	Services  []string `json:"services"`
}

type apiFollowUpInput struct {
	Version      int      `json:"version"`
	IncidentID   int64    `json:"incident_id"`
	Factors      []string `json:"factors"`
	Title        string   `json:"title"`
	Description  string   `json:"description"`
	Kind         string   `json:"kind"`
	Priority     string   `json:"priority"`
	Owner        string   `json:"owner"`
	DueOn        *string  `json:"due_on"`
	Status       string   `json:"status"`
	DoneAt       *string  `json:"done_at"` // RFC 3339; empty when marked done now
	TrackerURL   string   `json:"tracker_url"`
	Verification string   `json:"verification"`
}

// rfc3339 reads an API time; offsets are accepted and the result is UTC.
func rfc3339(value *string, field string, errs *models.FieldErrors) *time.Time {
	if value == nil || strings.TrimSpace(*value) == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(*value))
	if err != nil {
		errs.Add(field, "Not an RFC 3339 time; write it like 2026-03-12T16:54:00Z or 2022-04-05T08:00:00+01:00.")
		return nil
	}
	t = t.UTC()
	return &t
}

// toInput converts and validates the body, returning every problem with its field path.
func (b apiIncidentInput) toInput() (models.IncidentInput, models.Children, models.FieldErrors) {
	var errs models.FieldErrors
	in := models.IncidentInput{
		Title: strings.TrimSpace(b.Title), Summary: b.Summary, Severity: b.Severity, Status: b.Status,
		CustomerImpact: b.CustomerImpact, RootCause: b.RootCause, Trigger: b.Trigger, Detection: b.Detection,
		Response: b.Response, Lessons: b.Lessons, TimeZone: b.TimeZone, PostmortemState: b.PostmortemState,
		Public: b.Public, Services: b.Services, Regions: b.Regions, Factors: b.Factors,
		NearMiss: b.NearMiss, Template: b.Template, Sections: b.Sections, MilestoneDays: b.MilestoneDays,
	}
	if b.DetectionMethod != nil {
		in.DetectionMethod = *b.DetectionMethod
	}
	if in.TimeZone == "" {
		in.TimeZone = "UTC"
	}
	if in.PostmortemState == "" {
		in.PostmortemState = "none"
	}
	in.Milestones = models.Milestones{
		TriggeredAt:    rfc3339(b.TriggeredAt, "triggered_at", &errs),
		StartedAt:      rfc3339(b.StartedAt, "started_at", &errs),
		DetectedAt:     rfc3339(b.DetectedAt, "detected_at", &errs),
		AcknowledgedAt: rfc3339(b.AcknowledgedAt, "acknowledged_at", &errs),
		MitigatedAt:    rfc3339(b.MitigatedAt, "mitigated_at", &errs),
		ResolvedAt:     rfc3339(b.ResolvedAt, "resolved_at", &errs),
	}
	errs = mergeErrors(errs, models.ValidateIncident(in))
	var children models.Children
	if b.Timeline != nil {
		events := make([]models.EventInput, len(*b.Timeline))
		for n, e := range *b.Timeline {
			var eventErrs models.FieldErrors
			events[n] = models.EventInput{Kind: e.Kind, Status: e.Status, Body: e.Body, Public: e.Public}
			if at := rfc3339(e.At, "at", &eventErrs); at != nil {
				events[n].At = *at
			}
			eventErrs = mergeErrors(eventErrs, models.ValidateEvent(events[n]))
			errs = append(errs, eventErrs.Prefixed(fmt.Sprintf("timeline[%d].", n))...)
		}
		children.Timeline = &events
	}
	if b.ImpactWindows != nil {
		windows := make([]models.WindowInput, len(*b.ImpactWindows))
		for n, w := range *b.ImpactWindows {
			var windowErrs models.FieldErrors
			windows[n] = models.WindowInput{Level: w.Level, Note: w.Note, Services: w.Services}
			if at := rfc3339(w.StartedAt, "started_at", &windowErrs); at != nil {
				windows[n].StartedAt = *at
			}
			windows[n].EndedAt = rfc3339(w.EndedAt, "ended_at", &windowErrs)
			windowErrs = mergeErrors(windowErrs, models.ValidateWindow(windows[n]))
			errs = append(errs, windowErrs.Prefixed(fmt.Sprintf("impact_windows[%d].", n))...)
		}
		children.ImpactWindows = &windows
	}
	if b.FollowUps != nil {
		followUps := make([]models.FollowUpInput, len(*b.FollowUps))
		for n, f := range *b.FollowUps {
			var fuErrs models.FieldErrors
			followUps[n], fuErrs = f.toInput()
			fuErrs = mergeErrors(fuErrs, models.CheckDoneAt(followUps[n], in.Milestones.StartedAt, time.UTC, time.Now()))
			errs = append(errs, fuErrs.Prefixed(fmt.Sprintf("follow_ups[%d].", n))...)
		}
		children.FollowUps = &followUps
	}
	if b.Links != nil {
		for n, l := range *b.Links {
			errs = append(errs, models.Validate(l).Prefixed(fmt.Sprintf("links[%d].", n))...)
		}
		children.Links = b.Links
	}
	return in, children, errs
}

// toInput converts and validates a follow-up body.
func (f apiFollowUpInput) toInput() (models.FollowUpInput, models.FieldErrors) {
	var errs models.FieldErrors
	in := models.FollowUpInput{
		Title: strings.TrimSpace(f.Title), Description: f.Description, Kind: f.Kind, Priority: f.Priority, Owner: strings.TrimSpace(f.Owner),
		Status: f.Status, TrackerURL: strings.TrimSpace(f.TrackerURL), Verification: f.Verification, Factors: f.Factors,
	}
	if f.DueOn != nil && *f.DueOn != "" {
		if d, err := time.Parse(time.DateOnly, *f.DueOn); err == nil {
			in.DueOn = &d
		} else {
			errs.Add("due_on", "Not a date; write it as 2026-04-30.")
		}
	}
	if in.Status == "done" {
		in.DoneAt = rfc3339(f.DoneAt, "done_at", &errs)
	}
	return in, mergeErrors(errs, models.Validate(in))
}

// apiError is the JSON body of every API error.
type apiError struct {
	Error  string             `json:"error"`
	Errors models.FieldErrors `json:"errors,omitempty"`
}

// APIErrorBody builds the JSON body of an API error; the web error handler uses it too.
func APIErrorBody(message string) any { return apiError{Error: message} }

// asFieldErrors finds the store's validation errors (an unknown factor, a bad link) in err.
func asFieldErrors(err error) (models.FieldErrors, bool) {
	var fe models.FieldErrors
	ok := errors.As(err, &fe)
	return fe, ok
}

func invalid(c echo.Context, errs models.FieldErrors) error {
	return c.JSON(http.StatusUnprocessableEntity, apiError{Error: "The request has invalid fields.", Errors: errs})
}

// decodeJSON reads a JSON body. A syntax error is a 400; a value of the wrong type comes back as
// field errors, which the caller answers with 422.
func decodeJSON(c echo.Context, dst any) (models.FieldErrors, error) {
	err := json.NewDecoder(c.Request().Body).Decode(dst)
	if err == nil {
		return nil, nil
	}
	var typeErr *json.UnmarshalTypeError
	var httpErr *echo.HTTPError
	var maxErr *http.MaxBytesError
	switch {
	case errors.As(err, &httpErr):
		return nil, httpErr
	case errors.As(err, &maxErr):
		return nil, echo.NewHTTPError(http.StatusRequestEntityTooLarge, "The request body is larger than 1 MiB.")
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			field = "body"
		}
		return models.FieldErrors{{Field: field, Message: "Expected " + typeErr.Type.String() + ", got a JSON " + typeErr.Value + "."}}, nil
	case errors.Is(err, io.EOF):
		return nil, echo.NewHTTPError(http.StatusBadRequest, "The request body is empty; send a JSON object.")
	}
	return nil, echo.NewHTTPError(http.StatusBadRequest, "The request body is not valid JSON: "+err.Error())
}

// readIncidentBody decodes and validates an incident body; it returns a nil input after it has
// answered the request itself.
func readIncidentBody(c echo.Context) (*apiIncidentInput, models.IncidentInput, models.Children, error) {
	var body apiIncidentInput
	errs, err := decodeJSON(c, &body)
	if err != nil {
		return nil, models.IncidentInput{}, models.Children{}, err
	}
	if len(errs) > 0 {
		return nil, models.IncidentInput{}, models.Children{}, invalid(c, errs)
	}
	in, children, errs := body.toInput()
	if len(errs) > 0 {
		return nil, in, children, invalid(c, errs)
	}
	return &body, in, children, nil
}
