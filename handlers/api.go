package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/models/incidentdto"
)

// APIIncident is an incident as the JSON API v1 shows it: the shared shape with the incident's
// links, its milestones' sources, its figures and its warnings.
type APIIncident struct {
	incidentdto.Incident
	Links      []APILink `json:"links"`
	LinkedFrom []APILink `json:"linked_from"`
	// MilestoneSources says, by milestone, where each recorded time came from: typed (with the
	// person), imported (with the file or status page), alert (with the integration and the
	// alert), pasted. Null in the list, which does not load them.
	MilestoneSources map[string]models.MilestoneSource `json:"milestone_sources"`
	Metrics          APIMetrics                        `json:"metrics"`
	Warnings         []string                          `json:"warnings"`
}

// The API's order of the keys; every value is written, empty or not, but for an incident's
// source and external id, which only imported incidents have.
var (
	apiEventLayout    = incidentdto.NewLayout("id", "at", "kind", "status,omitempty", "body", "public").Drop("created_at", "updated_at")
	apiWindowLayout   = incidentdto.NewLayout("id", "started_at", "ended_at", "level", "note", "services").Drop("created_at", "updated_at")
	apiFollowUpLayout = incidentdto.NewLayout("id", "version", "title", "description", "kind", "priority", "owner",
		"due_on", "status", "done_at", "tracker_url", "verification", "factors", "incident_id").Drop("created_at", "updated_at")
	apiIncidentLayout = incidentdto.NewLayout("id", "version", "title", "summary", "severity", "status", "detection_method",
		"services", "regions", "factors", "links", "linked_from", "customer_impact", "root_cause", "trigger", "detection",
		"response", "lessons", "time_zone", "triggered_at", "started_at", "detected_at", "acknowledged_at", "mitigated_at",
		"resolved_at", "milestone_days", "postmortem_state", "published_at", "public", "near_miss", "template", "sections",
		"source,omitempty", "external_id,omitempty", "milestone_sources", "timeline", "impact_windows", "follow_ups",
		"metrics", "warnings", "created_at", "updated_at").
		Nest("timeline", apiEventLayout).Nest("impact_windows", apiWindowLayout).Nest("follow_ups", apiFollowUpLayout)
)

// apiIncidentFields are an APIIncident's fields without its MarshalJSON.
type apiIncidentFields APIIncident

// MarshalJSON writes the incident in the API's order.
func (a APIIncident) MarshalJSON() ([]byte, error) {
	return apiIncidentLayout.Marshal(apiIncidentFields(a))
}

// wire is the incident in the API's order as a value encoding/json writes directly, which the
// handlers answer with: twice as fast as through MarshalJSON, whose bytes encoding/json reads
// again.
func (a APIIncident) wire() any { return apiIncidentLayout.Value(apiIncidentFields(a)) }

// APILink is a link in the API: the kind and the incident at the other end.
type APILink struct {
	Kind       string `json:"kind"`
	IncidentID int64  `json:"incident_id"`
}

// APIFollowUp is a follow-up action in the API.
type APIFollowUp struct{ incidentdto.FollowUp }

// MarshalJSON writes the follow-up in the API's order.
func (f APIFollowUp) MarshalJSON() ([]byte, error) { return apiFollowUpLayout.Marshal(f.FollowUp) }

// wire is the follow-up in the API's order as a value encoding/json writes directly.
func (f APIFollowUp) wire() any { return apiFollowUpLayout.Value(f.FollowUp) }

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
		Incident: incidentdto.FromModel(inc, incidentdto.UTC),
		Links:    []APILink{}, LinkedFrom: []APILink{}, Warnings: []string{},
		Metrics: APIMetrics{
			TimeToDetect: m.TimeToDetect.Seconds(), TimeToAcknowledge: m.TimeToAcknowledge.Seconds(),
			TimeToMitigate: m.TimeToMitigate.Seconds(), TimeToResolve: m.TimeToResolve.Seconds(),
			Latent: m.Latent.Seconds(), TimeToFirstPublicUpdate: m.TimeToFirstPublicUpdate.Seconds(),
			Impact: m.Impact.Seconds(), Invalid: m.Invalid(), Approximate: m.Approximate(),
		},
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

func apiFollowUp(f *models.FollowUp) APIFollowUp {
	return APIFollowUp{incidentdto.FollowUpFromModel(f, incidentdto.UTC)}
}

// apiIncidentInput is the body of POST and PUT /api/v1/incidents. Times are strings so that a
// malformed one gets a message naming its field rather than a generic decode error.
type apiIncidentInput struct {
	Version int `json:"version"`
	incidentdto.Fields
	Links          *[]models.LinkInput `json:"links"`
	TriggeredAt    *string             `json:"triggered_at"`
	StartedAt      *string             `json:"started_at"`
	DetectedAt     *string             `json:"detected_at"`
	AcknowledgedAt *string             `json:"acknowledged_at"`
	MitigatedAt    *string             `json:"mitigated_at"`
	ResolvedAt     *string             `json:"resolved_at"`
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
	Version    int   `json:"version"`
	IncidentID int64 `json:"incident_id"`
	incidentdto.FollowUpFields
	DoneAt *string `json:"done_at"` // RFC 3339; empty when marked done now
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
	in := b.Fields.Input()
	in.Title, in.Sections = strings.TrimSpace(in.Title), b.Sections
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
	in := f.FollowUpFields.Input()
	in.Title, in.Owner, in.TrackerURL = strings.TrimSpace(in.Title), strings.TrimSpace(in.Owner), strings.TrimSpace(in.TrackerURL)
	if _, ok := f.Due(); !ok {
		errs.Add("due_on", "Not a date; write it as 2026-04-30.")
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
		field := jsonPath(typeErr.Field)
		if field == "" {
			field = "body"
		}
		return models.FieldErrors{{Field: field, Message: "Expected " + typeErr.Type.String() + ", got a JSON " + typeErr.Value + "."}}, nil
	case errors.Is(err, io.EOF):
		return nil, echo.NewHTTPError(http.StatusBadRequest, "The request body is empty; send a JSON object.")
	}
	return nil, echo.NewHTTPError(http.StatusBadRequest, "The request body is not valid JSON: "+err.Error())
}

// jsonPath is a decode error's field path as the JSON has it. encoding/json names an embedded
// struct by its Go name (Fields.title, follow_ups.FollowUpFields.due_on), a level the JSON does
// not have; the API's own keys are all lower case, so a capitalised step is one of those.
func jsonPath(path string) string {
	steps := strings.Split(path, ".")
	kept := steps[:0]
	for _, step := range steps {
		if step != "" && !unicode.IsUpper(rune(step[0])) {
			kept = append(kept, step)
		}
	}
	return strings.Join(kept, ".")
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
