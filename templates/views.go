// Package templates renders Hindsight's pages from typed view models with templ.
package templates

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"hindsight/models"
)

// Page is what every page needs: its title and which part of the site it belongs to.
type Page struct {
	Title   string
	Section string // "incidents"; highlights the navigation
}

// Option is one choice of a select.
type Option struct{ Value, Label string }

// Options builds select options from enum values, labelling each the way people read it.
func Options(values []string) []Option {
	out := make([]Option, len(values))
	for n, v := range values {
		out[n] = Option{v, Label(v)}
	}
	return out
}

var labels = map[string]string{
	"sev1": "SEV1", "sev2": "SEV2", "sev3": "SEV3", "sev4": "SEV4",
	"automated_alert": "Automated alert", "synthetic_monitor": "Synthetic monitor",
	"customer_report": "Customer report", "staff_report": "Staff report", "other": "Other", "": "Unknown",
	"none": "None", "draft": "Draft", "in_review": "In review", "published": "Published",
	"status_update": "Status update", "alert": "Alert", "action": "Action", "change": "Change", "note": "Note",
	"degraded": "Degraded", "partial_outage": "Partial outage", "major_outage": "Major outage",
	"prevent": "Prevent", "detect": "Detect", "mitigate": "Mitigate", "process": "Process",
	"p1": "P1", "p2": "P2", "p3": "P3",
	"open": "Open", "in_progress": "In progress", "done": "Done", "wont_do": "Won't do",
	"investigating": "Investigating", "identified": "Identified", "monitoring": "Monitoring", "resolved": "Resolved",
}

// Label turns an enum value into words.
func Label(value string) string {
	if l, ok := labels[value]; ok {
		return l
	}
	return value
}

// TimeZones are offered on every form that takes a time; any IANA name is accepted.
var TimeZones = []string{
	"UTC", "Europe/London", "Europe/Dublin", "Europe/Paris", "Europe/Berlin", "Europe/Bucharest",
	"America/New_York", "America/Toronto", "America/Chicago", "America/Denver", "America/Los_Angeles",
	"America/Sao_Paulo", "Asia/Kolkata", "Asia/Singapore", "Asia/Tokyo", "Australia/Sydney",
}

// ZoneOptions returns the offered zones, with the current one added when it is not among them.
func ZoneOptions(current string) []Option {
	zones := TimeZones
	found := false
	for _, z := range zones {
		found = found || z == current
	}
	if !found && current != "" {
		zones = append([]string{current}, zones...)
	}
	out := make([]Option, len(zones))
	for n, z := range zones {
		out[n] = Option{z, z}
	}
	return out
}

// LocalInputLayout is how a time field shows a stored instant: the form people type.
const LocalInputLayout = "2006-01-02 15:04"

// LocalInput writes an instant for a time field in a zone.
func LocalInput(t *time.Time, loc *time.Location) string {
	if t == nil {
		return ""
	}
	return t.In(loc).Format(LocalInputLayout)
}

// When writes an instant in a zone with the zone's abbreviation: "2022-04-05 08:00 BST".
func When(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("2006-01-02 15:04 MST")
}

// WhenUTC writes an instant in UTC, for title attributes beside a local time.
func WhenUTC(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// Machine writes an instant for a <time datetime> attribute.
func Machine(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// DateOnly writes a date, or "".
func DateOnly(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.DateOnly)
}

// Join writes names separated by commas.
func Join(names []string) string { return strings.Join(names, ", ") }

// IncidentRow is one line of the incident list.
type IncidentRow struct {
	ID              int64
	Title           string
	Severity        string
	Status          string
	PostmortemState string
	Started         *time.Time
	Location        *time.Location
	TTD, TTR        models.Figure
	Services        []string
	Regions         []string
}

// IncidentListFilter is the list's filter as the user typed it.
type IncidentListFilter struct {
	Status, Severity, Service, Region, PostmortemState, Text string
}

// IncidentList is the incident list page.
type IncidentList struct {
	Page
	Filter     IncidentListFilter
	Rows       []IncidentRow
	Total      int64
	PageNumber int
	PageCount  int
	PrevURL    string
	NextURL    string
	Services   []string
	Regions    []string
	Filtered   bool
}

// IncidentFormValues holds an incident form exactly as typed, so a failed submission loses nothing.
type IncidentFormValues struct {
	Title, Summary, Severity, Status, DetectionMethod                string
	CustomerImpact, RootCause, Trigger, Detection, Response, Lessons string
	TimeZone, PostmortemState, Services, Regions                     string
	Public                                                           bool
	Milestones                                                       map[string]string
	Factors                                                          []string
	// Pasted holds, by milestone, the value read from pasted text: saved unchanged, the
	// milestone's source is the pasted text, not the person.
	Pasted map[string]string
	// NearMiss, Template and Sections: no customer impact; the template chosen ("" for the
	// severity's default); the template's extra sections as typed.
	NearMiss bool
	Template string
	Sections []models.SectionInput
	// Rows read from pasted text, saved with the incident in one transaction; each can be edited
	// or left out (Keep unticked) before saving.
	Timeline  []EventRow
	Windows   []WindowRow
	FollowUps []FollowUpRow
}

// EventRow is a timeline entry on the new-incident form, as typed; times in the form's zone.
type EventRow struct {
	At, Kind, Status, Body, Words string
	Public, Keep                  bool
}

// WindowRow is an impact window on the new-incident form, as typed.
type WindowRow struct {
	StartedAt, EndedAt, Level, Note, Words string
	Keep                                   bool
}

// FollowUpRow is a follow-up on the new-incident form, as typed.
type FollowUpRow struct {
	Title, Description, Owner, Kind, Priority, Words string
	Keep                                             bool
}

// IncidentForm is the new and the edit incident page.
type IncidentForm struct {
	Page
	Action   string // where the form posts
	Cancel   string
	ID       int64
	Version  int
	Values   IncidentFormValues
	Errors   models.FieldErrors
	Warnings []models.OrderWarning
	Services []string
	Regions  []string
	// Conflicts lists, after a lost race, each field where this input and the saved incident differ.
	Conflicts []ConflictField
	// AllFactors is the taxonomy offered as checkboxes.
	AllFactors []models.Factor
	// Owners are the accounts offered as follow-up owners.
	Owners []Option
	// ZoneChosen: the time zone was chosen (by the user, the account or the pasted text), so the
	// browser's own zone does not replace it.
	ZoneChosen bool
	// Similar lists earlier incidents like the one being filed, once asked for.
	Similar      []models.Similar
	SimilarAsked bool
	// Templates are the templates offered; UsedTemplate is the one the form follows (its own or
	// the severity's default), nil for none; Previews holds the rendered Markdown of each field
	// whose preview was asked for without JavaScript.
	Templates    []models.PostmortemTemplate
	UsedTemplate *models.PostmortemTemplate
	Previews     map[string]string
	// PreviewAction is where a preview button posts the form.
	PreviewAction string
}

// Prompt is the template's prompt for a section, or "".
func (f IncidentForm) Prompt(slug string) string {
	if s := f.UsedTemplate.Section(slug); s != nil {
		return s.Prompt
	}
	return ""
}

// Heading is the template's heading for one of the incident's own sections, else its label.
func (f IncidentForm) Heading(slug string) string {
	if s := f.UsedTemplate.Section(slug); s != nil && s.Heading != "" {
		if s.Heading != models.CoreSectionLabels[slug] {
			return s.Heading + " (" + models.CoreSectionLabels[slug] + ")"
		}
		return s.Heading
	}
	return models.CoreSectionLabels[slug]
}

// Required tells whether the template asks for a section before publishing.
func (f IncidentForm) Required(slug string) bool {
	s := f.UsedTemplate.Section(slug)
	return s != nil && s.Required
}

// ConflictField is one field of an edit that collided with someone else's save.
type ConflictField struct {
	Label, Yours, Saved string
}

// CompareFormValues lists the fields where two versions of the incident form differ.
func CompareFormValues(yours, saved IncidentFormValues) []ConflictField {
	var out []ConflictField
	add := func(label, a, b string) {
		if strings.TrimSpace(a) != strings.TrimSpace(b) {
			out = append(out, ConflictField{label, a, b})
		}
	}
	add("Title", yours.Title, saved.Title)
	add("Summary", yours.Summary, saved.Summary)
	add("Severity", yours.Severity, saved.Severity)
	add("Status", yours.Status, saved.Status)
	add("Detected by", yours.DetectionMethod, saved.DetectionMethod)
	add("Services", yours.Services, saved.Services)
	add("Regions", yours.Regions, saved.Regions)
	add("Time zone", yours.TimeZone, saved.TimeZone)
	for _, name := range models.MilestoneNames {
		add(models.MilestoneLabels[name], yours.Milestones[name], saved.Milestones[name])
	}
	add("Customer impact", yours.CustomerImpact, saved.CustomerImpact)
	add("Root cause", yours.RootCause, saved.RootCause)
	add("Trigger", yours.Trigger, saved.Trigger)
	add("Detection", yours.Detection, saved.Detection)
	add("Response", yours.Response, saved.Response)
	add("Lessons", yours.Lessons, saved.Lessons)
	add("Postmortem state", yours.PostmortemState, saved.PostmortemState)
	add("Public", fmt.Sprint(yours.Public), fmt.Sprint(saved.Public))
	return out
}

// MilestoneWarning returns the out-of-order warning for a milestone, or "".
func (f IncidentForm) MilestoneWarning(name string) string {
	for _, w := range f.Warnings {
		if w.Field == name {
			return w.Message
		}
	}
	return ""
}

// EventFormValues is a timeline event form as typed.
type EventFormValues struct {
	At, TimeZone, Kind, Status, Body string
	Public                           bool
}

// WindowFormValues is an impact window form as typed.
type WindowFormValues struct {
	StartedAt, EndedAt, TimeZone, Level, Note, Services string
}

// FollowUpFormValues is a follow-up form as typed.
type FollowUpFormValues struct {
	Title, Description, Kind, Priority, Owner, DueOn, Status, TrackerURL, Verification string
	// DoneAt is the done date as typed, a datetime-local in TimeZone (the incident's zone).
	DoneAt, TimeZone string
	Version          int
	Factors          []string
}

// ChildForm is an add or edit form for a timeline event, impact window or follow-up on the
// incident page. ID is 0 for the add form.
type ChildForm[V any] struct {
	ID     int64
	Values V
	Errors models.FieldErrors
}

// IncidentView is the incident page.
type IncidentView struct {
	Page
	Incident *models.Incident
	Location *time.Location
	Metrics  models.Metrics
	Phases   []models.Phase
	Warnings []models.OrderWarning
	Now      time.Time

	// Focus names the section whose add form just saved through htmx: its form comes back open,
	// empty and focused.
	Focus string
	// Owners are the accounts offered as follow-up owners.
	Owners []Option
	// BulkText and BulkError are the list of follow-ups, one per line, that did not save.
	BulkText, BulkError string
	// Paste is the paste box for adding status updates and follow-ups to this incident.
	Paste IncidentPaste

	// The add forms, and the edit form currently open (ID 0 when none).
	NewEvent     ChildForm[EventFormValues]
	EditEvent    ChildForm[EventFormValues]
	NewWindow    ChildForm[WindowFormValues]
	EditWindow   ChildForm[WindowFormValues]
	NewFollowUp  ChildForm[FollowUpFormValues]
	EditFollowUp ChildForm[FollowUpFormValues]
	// Open names the section whose add form failed, so it renders expanded.
	Open string

	AllFactors []models.Factor
	Links      []models.LinkedIncident
	Similar    []models.Similar
	NewLink    ChildForm[LinkFormValues]
	// Notice is what was just done on the page, shown once; nil when nothing was.
	Notice *Notice
}

// LinkFormValues is the add-link form as typed.
type LinkFormValues struct {
	Kind, IncidentID string
}

// LinkLabel says a link the way it reads from this incident's side.
func LinkLabel(l models.LinkedIncident) string {
	out := map[string]string{"recurrence_of": "Recurrence of", "related": "Related to", "duplicate_of": "Duplicate of", "caused_by": "Caused by"}
	in := map[string]string{"recurrence_of": "Recurred as", "related": "Related to", "duplicate_of": "Duplicated by", "caused_by": "Caused"}
	if l.Outgoing {
		return out[l.Kind]
	}
	return in[l.Kind]
}

func hasString(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// FigureLabel names a figure for people.
func FigureLabel(name string) string {
	switch name {
	case models.FigureDetect:
		return "Time to detect"
	case models.FigureAcknowledge:
		return "Time to acknowledge"
	case models.FigureMitigate:
		return "Time to mitigate"
	case models.FigureResolve:
		return "Time to resolve"
	case models.FigureLatent:
		return "Latent period"
	case models.FigureFirstUpdate:
		return "Time to first public update"
	case models.FigureImpact:
		return "Impact time"
	}
	return name
}

// FigureHint says what a figure measures.
func FigureHint(name string) string {
	switch name {
	case models.FigureDetect:
		return "impact start → detected"
	case models.FigureAcknowledge:
		return "impact start → acknowledged"
	case models.FigureMitigate:
		return "impact start → mitigated"
	case models.FigureResolve:
		return "impact start → resolved"
	case models.FigureLatent:
		return "trigger → impact start"
	case models.FigureFirstUpdate:
		return "impact start → first public update"
	case models.FigureImpact:
		return "union of impact windows"
	}
	return ""
}

// FigureText writes a figure with the ongoing case spelled out.
func FigureText(f models.Figure, ongoing bool) string {
	if f.Name == models.FigureImpact && ongoing {
		return "ongoing"
	}
	return models.FormatFigure(f)
}

// Duration writes a duration.
func Duration(d time.Duration) string { return models.FormatDuration(d) }

// ErrorView is an error page.
type ErrorView struct {
	Page
	Status  int
	Message string
}

// Itoa writes an integer.
func Itoa[T ~int | ~int64](n T) string { return fmt.Sprint(n) }

func plural[T ~int | ~int64](n T, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// childID gives each control of the add and edit forms on one page its own id.
func childID(id int64, prefix, name string) string {
	if id == 0 {
		return prefix + "-new-" + name
	}
	return fmt.Sprintf("%s-%d-%s", prefix, id, name)
}

// HistoryAction says what a history entry did: "updated the follow-up #3".
func HistoryAction(e models.AuditEntry) string {
	verb := map[string]string{models.ActionCreate: "created", models.ActionUpdate: "changed", models.ActionDelete: "deleted", models.ActionRestore: "restored"}[e.Action]
	noun := map[string]string{models.EntityIncident: "the incident", models.EntityEvent: "timeline entry", models.EntityWindow: "impact window", models.EntityFollowUp: "follow-up"}[e.Entity]
	if e.Entity == models.EntityIncident {
		return verb + " " + noun
	}
	return fmt.Sprintf("%s %s #%d", verb, noun, e.EntityID)
}

// withParam returns the list URL with one query parameter replaced and the page reset.
func withParam(q url.Values, key, value string) string {
	next := url.Values{}
	for k, v := range q {
		next[k] = v
	}
	next.Del("page")
	if value == "" {
		next.Del(key)
	} else {
		next.Set(key, value)
	}
	return "/follow-ups?" + next.Encode()
}

func statusCount(c models.FollowUpCounts, status string) int64 {
	if status == "" {
		var total int64
		for _, n := range c.ByStatus {
			total += n
		}
		return total
	}
	return c.ByStatus[status]
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func hitKind(kind string) string {
	switch kind {
	case "follow_up":
		return "Follow-up"
	case "timeline_event":
		return "Timeline"
	}
	return "Incident"
}

func linkKindOptions() []Option {
	return []Option{{"recurrence_of", "a recurrence of"}, {"related", "related to"}, {"duplicate_of", "a duplicate of"}, {"caused_by", "caused by"}}
}

// followUpZone is the zone a follow-up form's done date is typed in: the one it was typed in,
// else the incident's.
func followUpZone(v IncidentView, f ChildForm[FollowUpFormValues]) string {
	if f.Values.TimeZone != "" {
		return f.Values.TimeZone
	}
	return v.Location.String()
}

// sourceIcon is the mark of a milestone source; the word beside it says the same.
func sourceIcon(kind string) string {
	switch kind {
	case models.SourceAlert:
		return "⚡"
	case models.SourceImported:
		return "⇩"
	case models.SourcePasted:
		return "⎘"
	}
	return "✎"
}

// IntegrationKindOptions are the alerting systems an integration may be.
func IntegrationKindOptions() []Option {
	return []Option{
		{models.IntegrationAlertmanager, "Prometheus Alertmanager"}, {models.IntegrationGrafana, "Grafana alerting"},
		{models.IntegrationPagerDuty, "PagerDuty (v3 webhooks)"}, {models.IntegrationGeneric, "Generic JSON"},
	}
}

// PromptFor is the template's prompt for a form field: a core section's name, or section-<slug>.
func (f IncidentForm) PromptFor(field string) string {
	return f.Prompt(strings.TrimPrefix(field, "section-"))
}

// RequiredField tells whether the template asks for a form field's section before publishing.
func (f IncidentForm) RequiredField(field string) bool {
	return f.Required(strings.TrimPrefix(field, "section-"))
}

// SectionVisibility says, for a template's extra section, whether it is published.
func (f IncidentForm) SectionVisibility(field string) string {
	slug, ok := strings.CutPrefix(field, "section-")
	if !ok {
		return ""
	}
	for _, s := range f.Values.Sections {
		if s.Slug == slug {
			if s.Public {
				return "Published"
			}
			return "Internal"
		}
	}
	return ""
}

func sectionPublic(s models.TemplateSection) string {
	if models.IsCoreSection(s.Slug) {
		return "As the incident’s own"
	}
	return yesNo(s.Public)
}

func yesNo(b bool) string {
	if b {
		return "Yes"
	}
	return "No"
}

func sectionAt(list []models.TemplateSectionInput, n int) models.TemplateSectionInput {
	if n < len(list) {
		return list[n]
	}
	return models.TemplateSectionInput{}
}
