// Package statuspage maps Atlassian Statuspage v2 JSON to and from Hindsight's incidents: it reads
// an incidents.json list or a single incident for import, and writes the same shapes for a status
// page API.
package statuspage

import "encoding/json"

// Source marks incidents imported from Statuspage; their external id is the Statuspage id.
const Source = "statuspage"

// Page describes the status page that publishes the incidents.
type Page struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	URL       string `json:"url"`
	TimeZone  string `json:"time_zone"`
	UpdatedAt *Time  `json:"updated_at"`
}

// Document is the incidents.json shape: the page and its incidents, newest first.
type Document struct {
	Page      Page       `json:"page"`
	Incidents []Incident `json:"incidents"`
}

// Incident is one Statuspage incident. Instants that are not known are null, as Statuspage
// writes them.
type Incident struct {
	ID              string           `json:"id"`
	Name            string           `json:"name"`
	Status          string           `json:"status"`
	CreatedAt       Time             `json:"created_at"`
	UpdatedAt       Time             `json:"updated_at"`
	MonitoringAt    *Time            `json:"monitoring_at"`
	ResolvedAt      *Time            `json:"resolved_at"`
	Impact          string           `json:"impact"`
	Shortlink       string           `json:"shortlink"`
	StartedAt       *Time            `json:"started_at"`
	PageID          string           `json:"page_id"`
	IncidentUpdates []IncidentUpdate `json:"incident_updates"`
	Components      []Component      `json:"components"`
	// ReminderIntervals is written only where the source had the key, as Statuspage does.
	ReminderIntervals     json.RawMessage `json:"reminder_intervals,omitempty"`
	PostmortemBody        string          `json:"postmortem_body,omitempty"`
	PostmortemPublishedAt *Time           `json:"postmortem_published_at,omitempty"`
}

// IncidentUpdate is one message posted on an incident. CustomTweet and TweetID are always
// null: Hindsight posts no tweets, and clients expect the keys.
type IncidentUpdate struct {
	ID                   string              `json:"id"`
	Status               string              `json:"status"`
	Body                 string              `json:"body"`
	IncidentID           string              `json:"incident_id"`
	CreatedAt            Time                `json:"created_at"`
	UpdatedAt            Time                `json:"updated_at"`
	DisplayAt            Time                `json:"display_at"`
	AffectedComponents   []AffectedComponent `json:"affected_components"`
	DeliverNotifications bool                `json:"deliver_notifications"`
	CustomTweet          *string             `json:"custom_tweet"`
	TweetID              *string             `json:"tweet_id"`
}

// AffectedComponent is a component whose status an update reported.
type AffectedComponent struct {
	Code      string `json:"code"`
	Name      string `json:"name"`
	OldStatus string `json:"old_status"`
	NewStatus string `json:"new_status"`
}

// Component is a part of the service a status page reports on.
type Component struct {
	ID                 string  `json:"id"`
	Name               string  `json:"name"`
	Status             string  `json:"status"`
	CreatedAt          *Time   `json:"created_at"`
	UpdatedAt          *Time   `json:"updated_at"`
	Position           int     `json:"position"`
	Description        *string `json:"description"`
	Showcase           bool    `json:"showcase"`
	StartDate          *string `json:"start_date"`
	GroupID            *string `json:"group_id"`
	PageID             string  `json:"page_id"`
	Group              bool    `json:"group"`
	OnlyShowIfDegraded bool    `json:"only_show_if_degraded"`
	// Components lists a group's members by id; Statuspage writes it on groups only.
	Components []string `json:"components,omitempty"`
}

// Statuspage's vocabularies.
const (
	ComponentOperational = "operational"
	ComponentDegraded    = "degraded_performance"
	ComponentPartial     = "partial_outage"
	ComponentMajor       = "major_outage"
	ComponentMaintenance = "under_maintenance"
)

// impactSeverity maps an incident's impact to a Hindsight severity.
var impactSeverity = map[string]string{
	"critical":    "sev1",
	"major":       "sev2",
	"minor":       "sev3",
	"none":        "sev4",
	"maintenance": "sev4",
}

// impactLevel is the impact window level an incident's impact implies when its updates name no
// component statuses.
var impactLevel = map[string]string{"critical": "major_outage", "major": "partial_outage", "minor": "degraded"}

// componentLevel maps a component status to an impact level; "" means not impaired. A component
// under maintenance is unavailable to customers, which counts as degraded.
var componentLevel = map[string]string{
	ComponentOperational: "",
	ComponentDegraded:    "degraded",
	ComponentPartial:     "partial_outage",
	ComponentMajor:       "major_outage",
	ComponentMaintenance: "degraded",
}

// levelComponent is the reverse, for export.
var levelComponent = map[string]string{"degraded": ComponentDegraded, "partial_outage": ComponentPartial, "major_outage": ComponentMajor}

// levelRank orders impact levels from none to worst.
var levelRank = map[string]int{"": 0, "degraded": 1, "partial_outage": 2, "major_outage": 3}

// maintenanceStatus maps the statuses of scheduled maintenance to the incident statuses they
// resemble, for when maintenance is imported on purpose.
var maintenanceStatus = map[string]string{
	"scheduled":   "investigating",
	"in_progress": "identified",
	"verifying":   "monitoring",
	"completed":   "resolved",
}
