package handlers

import (
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/models/pmparse"
)

// apiParseInput is the body of POST /api/v1/incidents/parse.
type apiParseInput struct {
	Text     *string `json:"text"`
	TimeZone string  `json:"time_zone"`
}

// apiParsedIncident is a draft in the shape POST /api/v1/incidents takes; what the text does not
// state is absent.
type apiParsedIncident struct {
	Title           string              `json:"title,omitempty"`
	Summary         string              `json:"summary,omitempty"`
	Status          string              `json:"status,omitempty"`
	DetectionMethod *string             `json:"detection_method,omitempty"`
	CustomerImpact  string              `json:"customer_impact,omitempty"`
	RootCause       string              `json:"root_cause,omitempty"`
	Trigger         string              `json:"trigger,omitempty"`
	Detection       string              `json:"detection,omitempty"`
	Response        string              `json:"response,omitempty"`
	Lessons         string              `json:"lessons,omitempty"`
	TimeZone        string              `json:"time_zone"`
	TriggeredAt     *string             `json:"triggered_at,omitempty"`
	StartedAt       *string             `json:"started_at,omitempty"`
	DetectedAt      *string             `json:"detected_at,omitempty"`
	AcknowledgedAt  *string             `json:"acknowledged_at,omitempty"`
	MitigatedAt     *string             `json:"mitigated_at,omitempty"`
	ResolvedAt      *string             `json:"resolved_at,omitempty"`
	MilestoneDays   []string            `json:"milestone_days,omitempty"`
	Timeline        []apiParsedEvent    `json:"timeline,omitempty"`
	FollowUps       []apiParsedFollowUp `json:"follow_ups,omitempty"`
	ImpactWindows   []apiParsedWindow   `json:"impact_windows,omitempty"`
}

type apiParsedWindow struct {
	StartedAt string `json:"started_at"`
	EndedAt   string `json:"ended_at"`
	Level     string `json:"level"`
	Note      string `json:"note,omitempty"`
}

type apiParsedEvent struct {
	At     string `json:"at"`
	Kind   string `json:"kind"`
	Status string `json:"status,omitempty"`
	Body   string `json:"body"`
	Public bool   `json:"public"`
}

type apiParsedFollowUp struct {
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
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
	out := apiParseOutput{
		Incident: apiParsedIncident{
			Title: inc.Title, Summary: inc.Summary, Status: inc.Status, CustomerImpact: inc.CustomerImpact,
			RootCause: inc.RootCause, Trigger: inc.Trigger, Detection: inc.Detection, Response: inc.Response,
			Lessons: inc.Lessons, TimeZone: zone,
		},
		Evidence: d.Evidence,
	}
	if inc.DetectionMethod != "" {
		out.Incident.DetectionMethod = &inc.DetectionMethod
	}
	stamp := func(field string) *string {
		at, ok := inc.Milestones[field]
		if !ok {
			return nil
		}
		s := at.UTC().Format(time.RFC3339)
		return &s
	}
	o := &out.Incident
	o.TriggeredAt, o.StartedAt, o.DetectedAt = stamp("triggered_at"), stamp("started_at"), stamp("detected_at")
	o.AcknowledgedAt, o.MitigatedAt, o.ResolvedAt = stamp("acknowledged_at"), stamp("mitigated_at"), stamp("resolved_at")
	o.MilestoneDays = inc.MilestoneDays
	for _, e := range inc.Timeline {
		o.Timeline = append(o.Timeline, apiParsedEvent{At: e.At.UTC().Format(time.RFC3339), Kind: e.Kind, Status: e.Status, Body: e.Body, Public: e.Public})
	}
	for _, w := range inc.Windows {
		o.ImpactWindows = append(o.ImpactWindows, apiParsedWindow{StartedAt: w.StartedAt.UTC().Format(time.RFC3339), EndedAt: w.EndedAt.UTC().Format(time.RFC3339), Level: w.Level, Note: w.Note})
	}
	for _, f := range inc.FollowUps {
		o.FollowUps = append(o.FollowUps, apiParsedFollowUp{Title: f.Title, Description: f.Description})
	}
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
