// Package incidentdto is the shape an incident travels in as JSON, written once: the fields, the
// records nested in it and their conversions to and from models.Incident. The JSON API, the
// draft its parse endpoint suggests and the native backup build on it; each writes it in its own
// order, with its own rules for empty values (Layout), and adds what only it carries.
package incidentdto

import (
	"strings"
	"time"

	"hindsight/models"
)

// Fields are what a client sends and reads back alike: the incident's texts, vocabularies and
// tags, with the JSON names of DESIGN §1.
type Fields struct {
	Title           string   `json:"title"`
	Summary         string   `json:"summary"`
	Severity        string   `json:"severity"`
	Status          string   `json:"status"`
	DetectionMethod *string  `json:"detection_method"` // null when unknown
	Services        []string `json:"services"`
	Regions         []string `json:"regions"`
	Factors         []string `json:"factors"`
	CustomerImpact  string   `json:"customer_impact"`
	RootCause       string   `json:"root_cause"`
	Trigger         string   `json:"trigger"`
	Detection       string   `json:"detection"`
	Response        string   `json:"response"`
	Lessons         string   `json:"lessons"`
	TimeZone        string   `json:"time_zone"`
	// MilestoneDays names the milestones known only to the day ("triggered_at"): their time is
	// the day's start in the incident's zone, and their figures are approximate.
	MilestoneDays   []string `json:"milestone_days"`
	PostmortemState string   `json:"postmortem_state"`
	Public          bool     `json:"public"`
	NearMiss        bool     `json:"near_miss"`
	Template        string   `json:"template"`
}

// Incident is a stored incident as it travels: the Fields, its milestones, its records and the
// bookkeeping a store keeps.
type Incident struct {
	ID      int64 `json:"id"`
	Version int   `json:"version"`
	Fields
	models.Milestones
	PublishedAt   *time.Time               `json:"published_at"`
	Sections      []models.IncidentSection `json:"sections"`
	Source        string                   `json:"source"`
	ExternalID    string                   `json:"external_id"`
	Timeline      []Event                  `json:"timeline"`
	ImpactWindows []Window                 `json:"impact_windows"`
	FollowUps     []FollowUp               `json:"follow_ups"`
	CreatedAt     time.Time                `json:"created_at"`
	UpdatedAt     time.Time                `json:"updated_at"`
}

// Event is a timeline event as it travels.
type Event struct {
	ID        int64     `json:"id"`
	At        time.Time `json:"at"`
	Kind      string    `json:"kind"`
	Status    string    `json:"status"`
	Body      string    `json:"body"`
	Public    bool      `json:"public"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Window is an impact window as it travels.
type Window struct {
	ID        int64      `json:"id"`
	StartedAt time.Time  `json:"started_at"`
	EndedAt   *time.Time `json:"ended_at"`
	Level     string     `json:"level"`
	Note      string     `json:"note"`
	Services  []string   `json:"services"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
}

// FollowUpFields are what a client sends and reads back alike of a follow-up action. DueOn is
// a date, 2026-04-30.
type FollowUpFields struct {
	Title        string   `json:"title"`
	Description  string   `json:"description"`
	Kind         string   `json:"kind"`
	Priority     string   `json:"priority"`
	Owner        string   `json:"owner"`
	DueOn        *string  `json:"due_on"`
	Status       string   `json:"status"`
	TrackerURL   string   `json:"tracker_url"`
	Verification string   `json:"verification"`
	Factors      []string `json:"factors"`
}

// FollowUp is a stored follow-up action as it travels.
type FollowUp struct {
	ID         int64 `json:"id"`
	IncidentID int64 `json:"incident_id"`
	Version    int   `json:"version"`
	FollowUpFields
	DoneAt    *time.Time `json:"done_at"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
}

// An Instant normalises the instants a format writes: the API writes them in UTC, the native
// backup in UTC to the microsecond, the precision both databases keep.
type Instant func(time.Time) time.Time

// UTC is the API's Instant.
func UTC(t time.Time) time.Time { return t.UTC() }

// Microseconds is the native backup's Instant.
func Microseconds(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func (at Instant) ptr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := at(*t)
	return &u
}

// FromModel is the one conversion of a stored incident to its shape. Lists are never null.
func FromModel(inc *models.Incident, at Instant) Incident {
	out := Incident{
		ID: inc.ID, Version: inc.Version,
		Fields: Fields{
			Title: inc.Title, Summary: inc.Summary, Severity: inc.Severity, Status: inc.Status,
			Services: nonNil(inc.ServiceNames()), Regions: nonNil(inc.RegionNames()), Factors: nonNil(inc.FactorSlugs()),
			CustomerImpact: inc.CustomerImpact, RootCause: inc.RootCause, Trigger: inc.Trigger,
			Detection: inc.Detection, Response: inc.Response, Lessons: inc.Lessons, TimeZone: inc.TimeZone,
			MilestoneDays: nonNil(inc.DayMilestones()), PostmortemState: inc.PostmortemState, Public: inc.Public,
			NearMiss: inc.NearMiss, Template: inc.TemplateSlug,
		},
		Milestones:  inc.Milestones().Map(at.ptr),
		PublishedAt: at.ptr(inc.PublishedAt), Sections: inc.Sections, Source: inc.Source, ExternalID: inc.ExternalID,
		Timeline: make([]Event, len(inc.Timeline)), ImpactWindows: make([]Window, len(inc.ImpactWindows)),
		FollowUps: make([]FollowUp, len(inc.FollowUps)), CreatedAt: at(inc.CreatedAt), UpdatedAt: at(inc.UpdatedAt),
	}
	if out.Sections == nil {
		out.Sections = []models.IncidentSection{}
	}
	if inc.DetectionMethod != "" {
		method := inc.DetectionMethod
		out.DetectionMethod = &method
	}
	for n, ev := range inc.Timeline {
		out.Timeline[n] = Event{ev.ID, at(ev.At), ev.Kind, ev.Status, ev.Body, ev.Public, at(ev.CreatedAt), at(ev.UpdatedAt)}
	}
	for n, w := range inc.ImpactWindows {
		out.ImpactWindows[n] = Window{w.ID, at(w.StartedAt), at.ptr(w.EndedAt), w.Level, w.Note, nonNil(w.ServiceNames()), at(w.CreatedAt), at(w.UpdatedAt)}
	}
	for n := range inc.FollowUps {
		out.FollowUps[n] = FollowUpFromModel(&inc.FollowUps[n], at)
	}
	return out
}

// FollowUpFromModel is the one conversion of a stored follow-up to its shape.
func FollowUpFromModel(f *models.FollowUp, at Instant) FollowUp {
	fu := FollowUp{
		ID: f.ID, IncidentID: f.IncidentID, Version: f.Version,
		FollowUpFields: FollowUpFields{
			Title: f.Title, Description: f.Description, Kind: f.Kind, Priority: f.Priority, Owner: f.Owner,
			Status: f.Status, TrackerURL: f.TrackerURL, Verification: f.Verification, Factors: nonNil(f.FactorSlugs()),
		},
		DoneAt: at.ptr(f.DoneAt), CreatedAt: at(f.CreatedAt), UpdatedAt: at(f.UpdatedAt),
	}
	if f.DueOn != nil {
		// A date is stored as midnight; read it back in the zone it came out in.
		due := f.DueOn.Format(time.DateOnly)
		fu.DueOn = &due
	}
	return fu
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Input is the incident input the Fields make, for the rules every incident is checked by.
func (f Fields) Input() models.IncidentInput {
	in := models.IncidentInput{
		Title: f.Title, Summary: f.Summary, Severity: f.Severity, Status: f.Status,
		CustomerImpact: f.CustomerImpact, RootCause: f.RootCause, Trigger: f.Trigger, Detection: f.Detection,
		Response: f.Response, Lessons: f.Lessons, TimeZone: f.TimeZone, PostmortemState: f.PostmortemState,
		Public: f.Public, Services: f.Services, Regions: f.Regions, Factors: f.Factors,
		NearMiss: f.NearMiss, Template: f.Template, MilestoneDays: f.MilestoneDays,
	}
	if f.DetectionMethod != nil {
		in.DetectionMethod = *f.DetectionMethod
	}
	return in
}

// Model is the stored incident the shape holds, with its records. Services, regions and factors
// are left to whoever stores it, who knows their ids.
func (d *Incident) Model() *models.Incident {
	inc := &models.Incident{
		ID: d.ID, Title: d.Title, Summary: d.Summary, Severity: d.Severity, Status: d.Status,
		CustomerImpact: d.CustomerImpact, RootCause: d.RootCause, Trigger: d.Trigger, Detection: d.Detection,
		Response: d.Response, Lessons: d.Lessons, TimeZone: d.TimeZone,
		MilestoneDays: strings.Join(d.MilestoneDays, ","), PostmortemState: d.PostmortemState,
		PublishedAt: d.PublishedAt, Public: d.Public, NearMiss: d.NearMiss, TemplateSlug: d.Template,
		Source: d.Source, ExternalID: d.ExternalID, Version: d.Version, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt,
		Sections: d.Sections,
	}
	inc.SetMilestones(d.Milestones)
	if d.DetectionMethod != nil {
		inc.DetectionMethod = *d.DetectionMethod
	}
	for _, ev := range d.Timeline {
		inc.Timeline = append(inc.Timeline, models.TimelineEvent{ID: ev.ID, At: ev.At, Kind: ev.Kind, Status: ev.Status, Body: ev.Body, Public: ev.Public, CreatedAt: ev.CreatedAt, UpdatedAt: ev.UpdatedAt})
	}
	for _, w := range d.ImpactWindows {
		inc.ImpactWindows = append(inc.ImpactWindows, models.ImpactWindow{ID: w.ID, StartedAt: w.StartedAt, EndedAt: w.EndedAt, Level: w.Level, Note: w.Note, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt})
	}
	for _, f := range d.FollowUps {
		inc.FollowUps = append(inc.FollowUps, f.Model())
	}
	return inc
}

// Input is the event input the event makes, for the rules every event is checked by.
func (ev Event) Input() models.EventInput {
	return models.EventInput{At: ev.At, Kind: ev.Kind, Status: ev.Status, Body: ev.Body, Public: ev.Public}
}

// Input is the window input the window makes, for the rules every window is checked by.
func (w Window) Input() models.WindowInput {
	return models.WindowInput{StartedAt: w.StartedAt, EndedAt: w.EndedAt, Level: w.Level, Note: w.Note, Services: w.Services}
}

// ParseDate reads a date such as a follow-up's due date, 2026-04-30; empty is nil, and ok is
// false for anything else.
func ParseDate(value string) (date *time.Time, ok bool) {
	if value == "" {
		return nil, true
	}
	d, err := time.Parse(time.DateOnly, value)
	if err != nil {
		return nil, false
	}
	return &d, true
}

// Due reads the follow-up's due date; ok is false when it is not a date.
func (f FollowUpFields) Due() (*time.Time, bool) {
	if f.DueOn == nil {
		return nil, true
	}
	return ParseDate(*f.DueOn)
}

// Input is the follow-up input the fields make, for the rules every follow-up is checked by; a
// due date that is not one is left out, for the caller to report (Due).
func (f FollowUpFields) Input() models.FollowUpInput {
	due, _ := f.Due()
	return models.FollowUpInput{
		Title: f.Title, Description: f.Description, Kind: f.Kind, Priority: f.Priority, Owner: f.Owner, DueOn: due,
		Status: f.Status, TrackerURL: f.TrackerURL, Verification: f.Verification, Factors: f.Factors,
	}
}

// Input is the follow-up input the follow-up makes, its completion time included.
func (f FollowUp) Input() models.FollowUpInput {
	in := f.FollowUpFields.Input()
	in.DoneAt = f.DoneAt
	return in
}

// Model is the stored follow-up the shape holds, its factors by slug only.
func (f FollowUp) Model() models.FollowUp {
	due, _ := f.Due()
	row := models.FollowUp{
		ID: f.ID, IncidentID: f.IncidentID, Title: f.Title, Description: f.Description, Kind: f.Kind,
		Priority: f.Priority, Owner: f.Owner, DueOn: due, Status: f.Status, DoneAt: f.DoneAt, TrackerURL: f.TrackerURL,
		Verification: f.Verification, Version: f.Version, CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt,
	}
	for _, slug := range f.Factors {
		row.Factors = append(row.Factors, models.Factor{Slug: slug})
	}
	return row
}
