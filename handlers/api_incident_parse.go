package handlers

import (
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/models/incidentdto"
	"hindsight/models/pmparse"
)

// apiParseInput is the body of POST /api/v1/incidents/parse.
type apiParseInput struct {
	Text     *string `json:"text"`
	TimeZone string  `json:"time_zone"`
}

// apiParsedIncident is a draft in the shape POST /api/v1/incidents takes, the shared shape
// written with only what the text states: everything else is absent.
type apiParsedIncident struct{ incidentdto.Incident }

// The draft's layout: the keys a text can state, in this order, each absent when empty.
var (
	parsedEventLayout    = incidentdto.NewLayout("at", "kind", "status,omitempty", "body", "public").Drop("id", "created_at", "updated_at")
	parsedWindowLayout   = incidentdto.NewLayout("started_at", "ended_at", "level", "note,omitempty").Drop("id", "services", "created_at", "updated_at")
	parsedFollowUpLayout = incidentdto.NewLayout("title", "description,omitempty").Drop("id", "incident_id", "version", "kind",
		"priority", "owner", "due_on", "status", "done_at", "tracker_url", "verification", "factors", "created_at", "updated_at")
	parsedIncidentLayout = incidentdto.NewLayout("title,omitempty", "summary,omitempty", "status,omitempty",
		"detection_method,omitempty", "customer_impact,omitempty", "root_cause,omitempty", "trigger,omitempty",
		"detection,omitempty", "response,omitempty", "lessons,omitempty", "time_zone", "triggered_at,omitempty",
		"started_at,omitempty", "detected_at,omitempty", "acknowledged_at,omitempty", "mitigated_at,omitempty",
		"resolved_at,omitempty", "milestone_days,omitempty", "timeline,omitempty", "follow_ups,omitempty",
		"impact_windows,omitempty").
		Drop("id", "version", "severity", "services", "regions", "factors", "postmortem_state", "public", "near_miss",
			"template", "published_at", "sections", "source", "external_id", "created_at", "updated_at").
		Nest("timeline", parsedEventLayout).Nest("impact_windows", parsedWindowLayout).Nest("follow_ups", parsedFollowUpLayout)
)

// MarshalJSON writes the draft in its layout.
func (p apiParsedIncident) MarshalJSON() ([]byte, error) {
	return parsedIncidentLayout.Marshal(p.Incident)
}

// apiReading is another reading of a milestone the text supports.
type apiReading struct {
	At    string `json:"at"`
	Words string `json:"words"`
}

type apiParseOutput struct {
	Incident     apiParsedIncident       `json:"incident"`
	Evidence     map[string]string       `json:"evidence"`
	Alternatives map[string][]apiReading `json:"alternatives,omitempty"`
}

// APIIncidentParse answers POST /api/v1/incidents/parse with the draft incident a pasted
// postmortem or status-page history suggests, and the words each value came from. It saves
// nothing.
func (h *Handlers) APIIncidentParse(c echo.Context) error {
	var body apiParseInput
	errs, err := decodeJSON(c, &body)
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return invalid(c, errs)
	}
	zone, errs := parseZone(body.TimeZone)
	if body.Text == nil || strings.TrimSpace(*body.Text) == "" {
		errs.Add("text", "Paste the postmortem or status-page history to read.")
	}
	if len(errs) > 0 {
		return invalid(c, errs)
	}
	draft, err := pmparse.Parse(*body.Text, zone)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, apiParsed(draft, zone.String()))
}

// parseZone reads the zone for times that name none: an IANA name, UTC when empty.
func parseZone(name string) (*time.Location, models.FieldErrors) {
	var errs models.FieldErrors
	name = strings.TrimSpace(name)
	if name == "" {
		return time.UTC, nil
	}
	zone, err := time.LoadLocation(name)
	if err != nil || name == "Local" {
		errs.Add("time_zone", "Not a time zone; use an IANA name such as UTC, Europe/London or America/Los_Angeles.")
		return nil, errs
	}
	return zone, nil
}

func apiParsed(d pmparse.Draft, zone string) apiParseOutput {
	inc := d.Incident
	// Text states times to the minute; a pasted status page's milliseconds are not kept.
	second := func(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }
	milestone := func(field string) *time.Time {
		at, ok := inc.Milestones[field]
		if !ok {
			return nil
		}
		at = second(at)
		return &at
	}
	draft := incidentdto.Incident{
		Fields: incidentdto.Fields{
			Title: inc.Title, Summary: inc.Summary, Status: inc.Status, CustomerImpact: inc.CustomerImpact,
			RootCause: inc.RootCause, Trigger: inc.Trigger, Detection: inc.Detection, Response: inc.Response,
			Lessons: inc.Lessons, TimeZone: zone, MilestoneDays: inc.MilestoneDays,
		},
		Milestones: models.Milestones{
			TriggeredAt: milestone("triggered_at"), StartedAt: milestone("started_at"), DetectedAt: milestone("detected_at"),
			AcknowledgedAt: milestone("acknowledged_at"), MitigatedAt: milestone("mitigated_at"), ResolvedAt: milestone("resolved_at"),
		},
	}
	if inc.DetectionMethod != "" {
		draft.DetectionMethod = &inc.DetectionMethod
	}
	for _, e := range inc.Timeline {
		draft.Timeline = append(draft.Timeline, incidentdto.Event{At: second(e.At), Kind: e.Kind, Status: e.Status, Body: e.Body, Public: e.Public})
	}
	for _, w := range inc.Windows {
		ended := second(w.EndedAt)
		draft.ImpactWindows = append(draft.ImpactWindows, incidentdto.Window{StartedAt: second(w.StartedAt), EndedAt: &ended, Level: w.Level, Note: w.Note})
	}
	for _, f := range inc.FollowUps {
		draft.FollowUps = append(draft.FollowUps, incidentdto.FollowUp{FollowUpFields: incidentdto.FollowUpFields{Title: f.Title, Description: f.Description}})
	}
	out := apiParseOutput{Incident: apiParsedIncident{draft}, Evidence: d.Evidence}
	for field, readings := range d.Alternatives {
		if out.Alternatives == nil {
			out.Alternatives = map[string][]apiReading{}
		}
		for _, r := range readings {
			out.Alternatives[field] = append(out.Alternatives[field], apiReading{At: r.At.UTC().Format(time.RFC3339), Words: r.Words})
		}
	}
	return out
}
