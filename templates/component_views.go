package templates

import (
	"fmt"
	"math"
	"time"

	"hindsight/models"
)

// StatusComponentRow is a component on the status page: its state, its uptime bar and, for a
// group, its members.
type StatusComponentRow struct {
	ID          int64
	Name        string
	Description string
	Status      string
	Showcase    bool // the uptime bar is shown
	Uptime      models.Uptime
	Members     []StatusComponentRow
}

// StatusMaintenanceCard is a maintenance on the status page.
type StatusMaintenanceCard struct {
	ID         int64
	Title      string
	Status     string // in effect now: scheduled, in_progress, verifying
	For, Until time.Time
	Components []string
	Latest     *models.MaintenanceUpdate
}

// ComponentsView is the admin page of components: the list and a form, for a new component or
// the one being edited.
type ComponentsView struct {
	Page       Page
	Components []models.Component
	Groups     []models.Component
	Services   []string // every known service, for suggestions
	EditID     int64
	Values     models.ComponentInput
	Errors     models.FieldErrors
	Saved      bool
}

// ComponentDeleteView asks before a component is removed.
type ComponentDeleteView struct {
	Page      Page
	Component models.Component
	Members   int
}

// MaintenanceListView lists maintenances and, for a responder, the form to schedule one.
type MaintenanceListView struct {
	Page         Page
	Maintenances []models.Maintenance
	Components   []models.Component
	Location     *time.Location
	Now          time.Time
	CanEdit      bool
	Form         MaintenanceForm
}

// MaintenanceForm is the values and errors of a maintenance form.
type MaintenanceForm struct {
	Title        string
	For, Until   string // datetime-local values in the page's zone
	Public       bool
	Components   []int64
	Status, Body string
	Errors       models.FieldErrors
}

// MaintenanceView is one maintenance, its updates, and the forms to change it and post updates.
type MaintenanceView struct {
	Page        Page
	Maintenance models.Maintenance
	Components  []models.Component
	Location    *time.Location
	Now         time.Time
	CanEdit     bool
	Form        MaintenanceForm
	Update      MaintenanceForm
}

var maintenanceLabels = map[string]string{
	models.MaintenanceScheduled: "Scheduled", models.MaintenanceInProgress: "In progress",
	models.MaintenanceVerifying: "Verifying", models.MaintenanceCompleted: "Completed",
}

// MaintenanceLabel names a maintenance status.
func MaintenanceLabel(status string) string {
	if l, ok := maintenanceLabels[status]; ok {
		return l
	}
	return status
}

// MaintenanceStatuses are the statuses an update can set, in their order.
var MaintenanceStatuses = []string{models.MaintenanceScheduled, models.MaintenanceInProgress, models.MaintenanceVerifying, models.MaintenanceCompleted}

// UptimePercent writes an uptime percentage as Statuspage does, to two decimals, never
// rounding a day with downtime up to 100.
func UptimePercent(p float64) string {
	p = math.Floor(p*100) / 100
	return fmt.Sprintf("%.2f%%", p)
}

// uptimeLevelLabels word a day's worst impact.
var uptimeLevelLabels = map[string]string{"": "No downtime", "degraded": "Degraded performance", "partial_outage": "Partial outage", "major_outage": "Major outage"}

// UptimeDayLevel is the class of a day's bar: none, degraded, partial_outage, major_outage or
// nodata.
func UptimeDayLevel(d models.UptimeDay) string {
	switch {
	case d.NoData:
		return "nodata"
	case d.Worst == "":
		return "none"
	}
	return d.Worst
}

// UptimeDaySummary says in words what a day's bar shows: the date, the worst impact and how
// long each level lasted. It is the bar's title and its text equivalent.
func UptimeDaySummary(d models.UptimeDay) string {
	date := d.Date.Format("2 Jan 2006")
	if d.NoData {
		return date + ": no data"
	}
	s := date + ": " + uptimeLevelLabels[d.Worst]
	for _, part := range []struct {
		label string
		d     time.Duration
	}{{"major outage", d.Major}, {"partial outage", d.Partial}, {"degraded", d.Degraded}} {
		if part.d > 0 {
			s += ", " + Minutes(part.d) + " " + part.label
		}
	}
	return s
}

// Minutes writes a length as Statuspage's bars do: "1 hr 5 mins", "12 mins".
func Minutes(d time.Duration) string {
	m := int(math.Ceil(d.Minutes()))
	h, m := m/60, m%60
	unit := func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprint(n) + " " + many
	}
	switch {
	case h > 0 && m > 0:
		return unit(h, "hr", "hrs") + " " + unit(m, "min", "mins")
	case h > 0:
		return unit(h, "hr", "hrs")
	}
	return unit(m, "min", "mins")
}

// UptimeBarX is where day n's bar starts in the SVG's coordinates.
func UptimeBarX(n int) string { return fmt.Sprint(n * 4) }

// UptimeShape is the uptime a bar draws.
type UptimeShape = models.Uptime

// UptimeDayTitle is a day's tooltip: its summary and the incidents that day.
func UptimeDayTitle(d models.UptimeDay) string {
	s := UptimeDaySummary(d)
	for _, inc := range d.Incidents {
		s += "\n· " + inc.Title
	}
	return s
}

// UptimeDaysWithImpact are the days of a bar that had some impact, for the text equivalent.
func UptimeDaysWithImpact(u models.Uptime) []models.UptimeDay {
	var out []models.UptimeDay
	for _, d := range u.Days {
		if !d.NoData && (d.Worst != "" || len(d.Incidents) > 0) {
			out = append(out, d)
		}
	}
	return out
}

// HasID tells whether ids holds id.
func HasID(ids []int64, id int64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// GroupName names a component's group among components, or "".
func GroupName(components []models.Component, id *int64) string {
	if id == nil {
		return ""
	}
	for _, c := range components {
		if c.ID == *id {
			return c.Name
		}
	}
	return ""
}
