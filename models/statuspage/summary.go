package statuspage

import (
	"strconv"
	"time"

	"hindsight/models"
)

// Status is a page's overall state as summary.json and status.json give it.
type Status struct {
	Indicator   string `json:"indicator"`
	Description string `json:"description"`
}

// SummaryDocument is the summary.json shape: the page, its components, its unresolved incidents,
// its scheduled maintenances and its overall status.
type SummaryDocument struct {
	Page                  Page          `json:"page"`
	Components            []Component   `json:"components"`
	Incidents             []Incident    `json:"incidents"`
	ScheduledMaintenances []Maintenance `json:"scheduled_maintenances"`
	Status                Status        `json:"status"`
}

// StatusDocument is the status.json shape.
type StatusDocument struct {
	Page   Page   `json:"page"`
	Status Status `json:"status"`
}

// ComponentsDocument is the components.json shape.
type ComponentsDocument struct {
	Page       Page        `json:"page"`
	Components []Component `json:"components"`
}

// Impact is the Statuspage impact of an incident: the worst level of its impact windows, as
// Statuspage words it (none without a window, minor for degraded, major for a partial outage,
// critical for a major outage). Severity is internal and plays no part: a sev1 that only ever
// degraded a service is a minor impact to its customers.
func Impact(inc *models.Incident) string {
	return LevelImpact(WorstLevel(inc.ImpactWindows))
}

// WorstLevel is the worst level among impact windows, "" when there are none.
func WorstLevel(windows []models.ImpactWindow) string {
	worst := ""
	for _, w := range windows {
		if levelRank[w.Level] > levelRank[worst] {
			worst = w.Level
		}
	}
	return worst
}

// LevelImpact is the Statuspage impact of a Hindsight impact level ("" for no window).
func LevelImpact(level string) string {
	if impact, ok := levelImpact[level]; ok {
		return impact
	}
	return "none"
}

// levelImpact maps an impact window level to Statuspage's incident impact.
var levelImpact = map[string]string{"degraded": "minor", "partial_outage": "major", "major_outage": "critical"}

// indicatorRank orders the overall indicators from none to worst.
var indicatorRank = map[string]int{"none": 0, "minor": 1, "major": 2, "critical": 3}

// indicatorDescription is how Statuspage words each overall indicator.
var indicatorDescription = map[string]string{
	"none":     "All Systems Operational",
	"minor":    "Minor Service Outage",
	"major":    "Partial System Outage",
	"critical": "Major Service Outage",
}

// OverallStatus is the page's state: the worst impact of its unresolved incidents.
func OverallStatus(unresolved []Incident) Status {
	worst := "none"
	for _, inc := range unresolved {
		if inc.Status != "resolved" && inc.Status != "postmortem" && indicatorRank[inc.Impact] > indicatorRank[worst] {
			worst = inc.Impact
		}
	}
	return Status{Indicator: worst, Description: indicatorDescription[worst]}
}

// ComponentStatus is the Statuspage component status of a Hindsight impact level ("" for none).
func ComponentStatus(level string) string {
	if status, ok := levelComponent[level]; ok {
		return status
	}
	return ComponentOperational
}

// ExportComponents writes the page's components as Statuspage does, each in the status given
// (models.ComponentStatuses), in page order. A component's updated_at is the later of its own
// change and the page's last public change, since its status moves with the incidents.
func ExportComponents(components []models.Component, statuses map[int64]string, page Page, updated time.Time) []Component {
	out := make([]Component, len(components))
	members := map[int64][]string{}
	for _, c := range components {
		if c.GroupID != nil {
			members[*c.GroupID] = append(members[*c.GroupID], strconv.FormatInt(c.ID, 10))
		}
	}
	for n, c := range components {
		created := c.CreatedAt.UTC().Truncate(time.Millisecond)
		at := c.UpdatedAt.UTC()
		if updated.After(at) {
			at = updated.UTC()
		}
		at = at.Truncate(time.Millisecond)
		status := statuses[c.ID]
		if status == "" {
			status = ComponentOperational
		}
		var description *string
		if c.Description != "" {
			d := c.Description
			description = &d
		}
		comp := Component{
			ID: strconv.FormatInt(c.ID, 10), Name: c.Name, Status: status, CreatedAt: AtPtr(&created), UpdatedAt: AtPtr(&at),
			Position: n + 1, Description: description, Showcase: c.Showcase, StartDate: c.StartDate, PageID: page.ID,
			Group: c.IsGroup, OnlyShowIfDegraded: c.OnlyShowIfDegraded,
		}
		if c.GroupID != nil {
			id := strconv.FormatInt(*c.GroupID, 10)
			comp.GroupID = &id
		}
		if c.IsGroup {
			comp.Components = members[c.ID]
			if comp.Components == nil {
				comp.Components = []string{}
			}
		}
		out[n] = comp
	}
	return out
}
