package templates

import (
	"time"

	"hindsight/models"
)

// StatusHead is what every public status page shows: the page's name, the zone its times are in,
// and the title of this page.
type StatusHead struct {
	Name     string
	Location *time.Location
	Title    string
	// OwnHost is set when the page is served on the status host, where it lives at the root.
	OwnHost bool
	// Logo is the address of the uploaded logo, "" without one.
	Logo string
	// SupportURL is where people who need help are sent, "" for no link.
	SupportURL string
}

// Path is the address of a status page: under /status on the app's host, at the root on the
// status host. p is "" for the page itself or starts with a slash.
func (h StatusHead) Path(p string) string {
	if h.OwnHost {
		if p == "" {
			return "/"
		}
		return p
	}
	return "/status" + p
}

// StatusHomeView is the status page: the overall state, the open public incidents, each
// service's state and the history by month.
type StatusHomeView struct {
	Head         StatusHead
	Indicator    string // Statuspage's none, minor, major, critical
	Description  string
	Open         []StatusCard
	Maintenances []StatusMaintenanceCard // under way first, then those to come
	Components   []StatusComponentRow
	History      []StatusMonth
	MoreHistory  bool
}

// StatusCard is an open incident on the status page with its latest public update.
type StatusCard struct {
	ID       int64
	Title    string
	Status   string
	Impact   string
	Started  time.Time
	Services []string
	Latest   *models.TimelineEvent
}

// StatusMonth is one month of the status page's history.
type StatusMonth struct {
	Label     string
	Incidents []StatusHistoryRow
}

// StatusHistoryRow is one past incident in the history.
type StatusHistoryRow struct {
	ID         int64
	Title      string
	Impact     string
	Status     string
	Started    time.Time
	Resolved   *time.Time
	Postmortem bool
}

// StatusHistoryView is the full history, a page at a time.
type StatusHistoryView struct {
	Head   StatusHead
	Months []StatusMonth
	Page   int
	More   bool
}

// StatusIncidentView is one incident as the public sees it: its public updates and, once
// published, its postmortem.
type StatusIncidentView struct {
	Head       StatusHead
	ID         int64
	Title      string
	Status     string
	Impact     string
	Started    time.Time
	Resolved   *time.Time
	Services   []string
	Updates    []models.TimelineEvent
	Postmortem *PublishedPostmortem
}

// PublishedPostmortem is a postmortem's public text and when it was published.
type PublishedPostmortem struct {
	Markdown    string
	Version     int
	PublishedAt time.Time
	// Preview marks the text that would go out if it were published now.
	Preview bool
}

// PostmortemPreviewView is the internal page that shows what the status page will show, how it
// differs from the version published last, and moves the postmortem between states.
type PostmortemPreviewView struct {
	Page      Page
	Incident  *models.Incident
	Public    StatusIncidentView
	Latest    *models.PostmortemVersion
	Diff      []models.DiffLine
	Changed   bool
	Versions  []models.PostmortemVersion
	StatusURL string
	Error     string
	// Findings are what the completeness check found missing or doubtful; publishing over them
	// takes "publish anyway" and a reason (Reason as typed, ReasonError beside it).
	Findings []models.Finding
	// Reviewers are the reviews asked for, with who approves; internal, shown on this page only.
	Reviewers   []models.ReviewRequest
	Reason      string
	ReasonError string
}

// SettingsView is the admin page for the status page's settings.
type SettingsView struct {
	Page   Page
	Values models.StatusSettings
	Errors models.FieldErrors
	Saved  bool
	// Logo is the uploaded logo's address, "" without one.
	Logo string
	// FlagStatusHost is the server's --status-host, used while the field is empty.
	FlagStatusHost string
	// StatusURL is where the public reads the status page now.
	StatusURL string
	SignIn    SignInSettingsView
}

// SignInSettingsView is the settings page's form of how people sign in. The client secret is
// never in it: SecretSet says only whether one is in force.
type SignInSettingsView struct {
	Values models.SignInSettings
	Errors models.FieldErrors
	Saved  bool
	// FromFlags says the values are the server's flags, as no admin saved any yet.
	FromFlags bool
	SecretSet bool
	// CallbackURL is the redirect URL to register at the provider.
	CallbackURL string
	// FlagBreakGlass are the break-glass emails of --break-glass-emails, which keep password
	// sign-in whatever the form says.
	FlagBreakGlass []string
}

// ImportView is the admin page that imports a file uploaded in the browser.
type ImportView struct {
	Page               Page
	Format             string
	DryRun             bool
	SkipInvalid        bool
	IncludeMaintenance bool
	Error              string
	Result             *ImportResult
}

// ImportResult is the outcome of an upload: the counts, the summary as the command line prints
// it, and the records worth a look.
type ImportResult struct {
	Files    []string
	DryRun   bool
	Written  bool
	Invalid  bool
	Counts   [6]int // created, updated, unchanged, skipped, invalid, kept as planned maintenance
	Text     string
	Rows     []ImportRow
	Omitted  int
	Problems []string
}

// ImportRow is one record of an import and what happened to it.
type ImportRow struct {
	Record     string
	Action     string
	IncidentID int64
	Detail     string
}

var componentLabels = map[string]string{
	"operational": "Operational", "degraded_performance": "Degraded performance",
	"partial_outage": "Partial outage", "major_outage": "Major outage", "under_maintenance": "Under maintenance",
}

// ComponentLabel names a service state.
func ComponentLabel(status string) string {
	if l, ok := componentLabels[status]; ok {
		return l
	}
	return status
}

var impactLabels = map[string]string{"none": "No impact", "minor": "Minor", "major": "Major", "critical": "Critical"}

// ImpactLabel names a Statuspage impact.
func ImpactLabel(impact string) string {
	if l, ok := impactLabels[impact]; ok {
		return l
	}
	return impact
}

// StatusWhen writes an instant on the status page: "Thu 12 Mar 2026 16:54 UTC".
func StatusWhen(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("Mon 2 Jan 2006 15:04 MST")
}

// StatusDate writes a day on the status page: "12 Mar 2026".
func StatusDate(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("2 Jan 2006")
}

// UpdateLabel names a public update: its status, or its kind when it is not a status update.
func UpdateLabel(ev models.TimelineEvent) string {
	if ev.Kind == "status_update" && ev.Status != "" {
		return Label(ev.Status)
	}
	if ev.Kind == "note" {
		return "Update"
	}
	return Label(ev.Kind)
}

// DiffOp names a diff line's operation for its class.
func DiffOp(l models.DiffLine) string {
	switch l.Op {
	case '+':
		return "added"
	case '-':
		return "removed"
	case models.DiffSkip:
		return "skipped"
	}
	return "same"
}

// DiffSpoken is what a screen reader hears before a changed line.
func DiffSpoken(l models.DiffLine) string {
	switch l.Op {
	case '+':
		return "added: "
	case '-':
		return "removed: "
	}
	return ""
}

// DiffMark is the character a diff line starts with.
func DiffMark(l models.DiffLine) string {
	if l.Op == models.DiffSkip {
		return "⋯"
	}
	return string(l.Op)
}

// findingLink is where a completeness finding is fixed: the edit form's field, or the incident
// page's list it concerns.
func findingLink(id int64, f models.Finding) string {
	base := "/incidents/" + Itoa(id)
	switch f.Field {
	case "impact_windows":
		return base + "#windows"
	case "follow_ups":
		return base + "#follow-ups"
	case "timeline":
		return base + "#timeline"
	case "review":
		return base + "/review#reviewers"
	}
	return base + "/edit#" + f.Field
}
