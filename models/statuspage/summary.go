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
	Page                  Page        `json:"page"`
	Components            []Component `json:"components"`
	Incidents             []Incident  `json:"incidents"`
	ScheduledMaintenances []Incident  `json:"scheduled_maintenances"`
	Status                Status      `json:"status"`
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

// ExportComponents writes services as the page's components, each in the state the levels give
// it (ServiceLevels of the open incidents), in the order given.
func ExportComponents(services []models.Service, levels map[string]string, page Page, updated time.Time) []Component {
	out := make([]Component, len(services))
	for n, sv := range services {
		out[n] = Component{
			ID: strconv.FormatInt(sv.ID, 10), Name: sv.Name, Status: ComponentStatus(levels[sv.Name]),
			CreatedAt: AtPtr(&sv.CreatedAt), UpdatedAt: AtPtr(&updated), Position: n + 1, PageID: page.ID,
		}
	}
	return out
}
