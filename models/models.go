// Package models holds Hindsight's domain types, their rules and figures, and the store: all SQL lives here.
package models

import (
	"errors"
	"time"

	"gorm.io/gorm"
)

// Sentinel errors returned at the store boundary; callers check them with errors.Is.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("the record was changed by someone else")
)

// Enumerations, in the order forms offer them.
var (
	Severities         = []string{"sev1", "sev2", "sev3", "sev4"}
	Statuses           = []string{"investigating", "identified", "monitoring", "resolved"}
	DetectionMethods   = []string{"automated_alert", "synthetic_monitor", "customer_report", "staff_report", "other"}
	PostmortemStates   = []string{"none", "draft", "in_review", "published"}
	EventKinds         = []string{"status_update", "alert", "action", "change", "note"}
	ImpactLevels       = []string{"degraded", "partial_outage", "major_outage"}
	FollowUpKinds      = []string{"prevent", "detect", "mitigate", "process"}
	FollowUpPriorities = []string{"p1", "p2", "p3"}
	FollowUpStatuses   = []string{"open", "in_progress", "done", "wont_do"}
)

// Service is an affected service or component.
type Service struct {
	ID        int64
	Name      string
	CreatedAt time.Time
}

// Region is a geography an incident touched, such as Canada or Europe.
type Region struct {
	ID        int64
	Name      string
	CreatedAt time.Time
}

// Incident is the whole record of one incident and its postmortem.
type Incident struct {
	ID              int64
	Title           string
	Summary         string
	Severity        string
	Status          string
	DetectionMethod string // empty when unknown
	CustomerImpact  string
	RootCause       string
	Trigger         string `gorm:"column:trigger"`
	Detection       string
	Response        string
	Lessons         string
	// TimeZone is the IANA zone the milestones were entered in and are shown in.
	TimeZone       string
	TriggeredAt    *time.Time
	StartedAt      *time.Time
	DetectedAt     *time.Time
	AcknowledgedAt *time.Time
	MitigatedAt    *time.Time
	ResolvedAt     *time.Time
	// MilestoneDays names, comma-separated, the milestones known only to the day.
	MilestoneDays   string
	PostmortemState string
	PublishedAt     *time.Time
	Public          bool
	// NearMiss marks an incident that had no customer impact.
	NearMiss bool
	// TemplateSlug is the template the postmortem follows; empty for its severity's default.
	TemplateSlug string
	Source       string
	ExternalID   string
	Version      int
	CreatedAt    time.Time
	UpdatedAt    time.Time
	DeletedAt    gorm.DeletedAt

	Services      []Service       `gorm:"many2many:incident_services"`
	Regions       []Region        `gorm:"many2many:incident_regions"`
	Factors       []Factor        `gorm:"many2many:incident_factors"`
	Timeline      []TimelineEvent `gorm:"foreignKey:IncidentID"`
	ImpactWindows []ImpactWindow  `gorm:"foreignKey:IncidentID"`
	FollowUps     []FollowUp      `gorm:"foreignKey:IncidentID"`
	// MilestoneSources says where each known milestone came from, by milestone name.
	MilestoneSources map[string]MilestoneSource `gorm:"-"`
	// Links are the incident's links from both ends, in the order they were made; read with the
	// row (Store.GetIncident), not by a list.
	Links []LinkedIncident `gorm:"-"`
	// Sections are the template's sections beyond the incident's own, in order.
	Sections []IncidentSection `gorm:"foreignKey:IncidentID"`
}

// Location returns the incident's display zone, falling back to UTC for an unknown name.
func (i *Incident) Location() *time.Location {
	return LoadLocation(i.TimeZone)
}

// ServiceNames lists the affected services by name.
func (i *Incident) ServiceNames() []string { return serviceNames(i.Services) }

// RegionNames lists the affected regions by name.
func (i *Incident) RegionNames() []string {
	names := make([]string, len(i.Regions))
	for n, r := range i.Regions {
		names[n] = r.Name
	}
	return names
}

func serviceNames(services []Service) []string {
	names := make([]string, len(services))
	for n, s := range services {
		names[n] = s.Name
	}
	return names
}

// TimelineEvent is one entry of the incident's timeline.
type TimelineEvent struct {
	ID         int64
	IncidentID int64
	At         time.Time
	Kind       string
	Status     string // the status posted, for status updates
	Body       string
	Public     bool
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// ImpactWindow is a stretch of time during which customers were affected.
type ImpactWindow struct {
	ID         int64
	IncidentID int64
	StartedAt  time.Time
	EndedAt    *time.Time // nil while ongoing
	Level      string
	Note       string
	Services   []Service `gorm:"many2many:impact_window_services"`
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// ServiceNames lists the window's affected services by name.
func (w *ImpactWindow) ServiceNames() []string { return serviceNames(w.Services) }

// FollowUp is an action meant to stop the incident from happening again.
type FollowUp struct {
	ID          int64
	IncidentID  int64
	Title       string
	Description string
	Kind        string
	Priority    string
	Owner       string
	// OwnerID is the owner's account when the owner typed is one (its email or name); Owner
	// then holds the account's email, which "Mine" and the per-owner calendar match.
	OwnerID      *int64
	DueOn        *time.Time
	Status       string
	DoneAt       *time.Time
	TrackerURL   string
	Verification string
	Version      int
	CreatedAt    time.Time
	UpdatedAt    time.Time
	Factors      []Factor `gorm:"many2many:follow_up_factors"`
	// Incident is loaded by the cross-incident follow-up list only.
	Incident *Incident `gorm:"foreignKey:IncidentID"`
}

// Overdue tells whether the follow-up is still open past its due date.
func (f *FollowUp) Overdue(now time.Time) bool {
	if f.DueOn == nil || f.Status == "done" || f.Status == "wont_do" {
		return false
	}
	return now.UTC().Format(time.DateOnly) > f.DueOn.UTC().Format(time.DateOnly)
}

// LoadLocation resolves an IANA zone name, falling back to UTC when it is unknown.
func LoadLocation(name string) *time.Location {
	if name == "" || name == "UTC" {
		return time.UTC
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	return loc
}

// DueBeforeStart tells whether the follow-up is due before its incident started: allowed, since
// the date may be right and the start wrong, but worth a second look.
func (f *FollowUp) DueBeforeStart(started *time.Time) bool {
	return f.DueOn != nil && started != nil && f.DueOn.UTC().Format(time.DateOnly) < started.UTC().Format(time.DateOnly)
}
