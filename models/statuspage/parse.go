package statuspage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"hindsight/models"
	"hindsight/models/importer"
)

// ParseOptions change what Parse imports.
type ParseOptions struct {
	// IncludeMaintenance imports scheduled maintenance as incidents, as Hindsight did before it
	// kept maintenance; by default each becomes a maintenance record (Record.Maintenance).
	IncludeMaintenance bool
}

// fieldNames maps the domain fields validation names to Statuspage's.
var fieldNames = map[string]string{"title": "name", "severity": "impact", "services": "components"}

// The shapes read from a file. Instants are strings so that one unreadable date spoils one field
// of one record, not the whole file.
type wirePage struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	TimeZone string `json:"time_zone"`
}

type wireIncident struct {
	ID                    string          `json:"id"`
	Name                  string          `json:"name"`
	Status                string          `json:"status"`
	Impact                string          `json:"impact"`
	CreatedAt             string          `json:"created_at"`
	UpdatedAt             string          `json:"updated_at"`
	StartedAt             string          `json:"started_at"`
	MonitoringAt          string          `json:"monitoring_at"`
	ResolvedAt            string          `json:"resolved_at"`
	ScheduledFor          string          `json:"scheduled_for"`
	ScheduledUntil        string          `json:"scheduled_until"`
	PostmortemBody        string          `json:"postmortem_body"`
	PostmortemPublishedAt string          `json:"postmortem_published_at"`
	IncidentUpdates       []wireUpdate    `json:"incident_updates"`
	Components            []wireComponent `json:"components"`
	Shortlink             string          `json:"shortlink"`
	// ReminderIntervals is kept as the source wrote it; nil when the key is absent.
	ReminderIntervals json.RawMessage `json:"reminder_intervals"`
}

type wireUpdate struct {
	ID                 string              `json:"id"`
	Status             string              `json:"status"`
	Body               string              `json:"body"`
	CreatedAt          string              `json:"created_at"`
	UpdatedAt          string              `json:"updated_at"`
	DisplayAt          string              `json:"display_at"`
	AffectedComponents []AffectedComponent `json:"affected_components"`
	// DeliverNotifications is nil when the source does not say.
	DeliverNotifications *bool `json:"deliver_notifications"`
}

type wireComponent struct {
	Name string `json:"name"`
}

// parseMaintenance maps a scheduled maintenance to Hindsight's maintenance record: its schedule
// (scheduled_for and scheduled_until, else its start and resolution), its components by name
// and its updates with their statuses.
func parseMaintenance(rec *importer.Record, w wireIncident) *models.MaintenanceImport {
	mi := &models.MaintenanceImport{Source: Source, ExternalID: strings.TrimSpace(w.ID)}
	mi.Input.Title = strings.TrimSpace(w.Name)
	mi.Input.Public = true
	pick := func(field string, values ...string) time.Time {
		for _, v := range values {
			if t, ok := parseTime(v); !ok {
				rec.Errors.Add(field, badTime(v))
				return time.Time{}
			} else if t != nil {
				return *t
			}
		}
		return time.Time{}
	}
	mi.Input.ScheduledFor = pick("scheduled_for", w.ScheduledFor, w.StartedAt, w.CreatedAt)
	mi.Input.ScheduledUntil = pick("scheduled_until", w.ScheduledUntil, w.ResolvedAt)
	if mi.Input.ScheduledUntil.IsZero() && !mi.Input.ScheduledFor.IsZero() {
		mi.Input.ScheduledUntil = mi.Input.ScheduledFor
		rec.Warnings = append(rec.Warnings, "maintenance without scheduled_until or resolved_at: its end is taken to be its start")
	}
	if t, ok := parseTime(w.CreatedAt); ok && t != nil {
		mi.CreatedAt = *t
	}
	var names []string
	for _, c := range w.Components {
		names = append(names, c.Name)
	}
	for _, u := range w.IncidentUpdates {
		for _, c := range u.AffectedComponents {
			names = append(names, c.Name)
		}
	}
	mi.ComponentNames = models.UniqueNames(names)
	var updates []models.MaintenanceUpdateInput
	for n, u := range w.IncidentUpdates {
		at := pick(fmt.Sprintf("incident_updates[%d].display_at", n), u.DisplayAt, u.CreatedAt)
		status := u.Status
		switch status {
		case "resolved", "postmortem":
			status = models.MaintenanceCompleted
		case "investigating", "identified":
			status = models.MaintenanceInProgress
		case "monitoring":
			status = models.MaintenanceVerifying
		}
		updates = append(updates, models.MaintenanceUpdateInput{Status: status, Body: ToMarkdown(u.Body), At: at})
	}
	// Statuspage lists updates newest first; the record keeps them oldest first.
	slices.Reverse(updates)
	slices.SortStableFunc(updates, func(a, b models.MaintenanceUpdateInput) int { return a.At.Compare(b.At) })
	if len(updates) == 0 {
		status := w.Status
		if maintenanceStatus[status] == "" {
			status = models.MaintenanceScheduled
		}
		updates = append(updates, models.MaintenanceUpdateInput{Status: status, At: mi.Input.ScheduledFor})
	}
	mi.Updates = updates
	return mi
}

// ErrNotStatuspage says the data is JSON but neither an incident list nor an incident.
var ErrNotStatuspage = errors.New("not Statuspage v2 incident JSON: want {\"page\", \"incidents\": [...]}, a list of incidents or one incident object")

// ParseFile reads a Statuspage file; records name it as given.
func ParseFile(path string, opts ParseOptions) ([]importer.Record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(data, filepath.Base(path), opts)
}

// Parse reads Statuspage v2 JSON: an incidents.json document ({page, incidents[]}), a summary.json
// (its incidents and scheduled maintenances), a bare list of incidents, or one incident object.
// Each incident becomes one record; a record's own problems are in its Errors, so one bad incident
// does not hide the others. The error is for data that cannot be read at all.
func Parse(data []byte, file string, opts ParseOptions) ([]importer.Record, error) {
	data = bytes.TrimPrefix(bytes.TrimSpace(data), []byte("\xef\xbb\xbf"))
	var raws []json.RawMessage
	var page wirePage
	single := false
	switch {
	case len(data) > 0 && data[0] == '[':
		if err := json.Unmarshal(data, &raws); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	case len(data) > 0 && data[0] == '{':
		var top map[string]json.RawMessage
		if err := json.Unmarshal(data, &top); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if raw, ok := top["page"]; ok {
			// A page that cannot be read only costs the time zone.
			_ = json.Unmarshal(raw, &page)
		}
		_, hasIncidents := top["incidents"]
		_, hasMaintenance := top["scheduled_maintenances"]
		switch {
		case hasIncidents || hasMaintenance:
			for _, key := range []string{"incidents", "scheduled_maintenances"} {
				raw, ok := top[key]
				if !ok || string(raw) == "null" {
					continue
				}
				var list []json.RawMessage
				if err := json.Unmarshal(raw, &list); err != nil {
					return nil, fmt.Errorf("%s: %s: %w", file, key, err)
				}
				raws = append(raws, list...)
			}
		case top["id"] != nil || top["incident_updates"] != nil:
			raws, single = []json.RawMessage{data}, true
		default:
			return nil, fmt.Errorf("%s: %w", file, ErrNotStatuspage)
		}
	default:
		return nil, fmt.Errorf("%s: %w", file, ErrNotStatuspage)
	}
	zone := "UTC"
	if page.TimeZone != "" {
		if _, err := time.LoadLocation(page.TimeZone); err == nil {
			zone = page.TimeZone
		}
	}
	records := make([]importer.Record, len(raws))
	for n, raw := range raws {
		records[n] = parseIncident(raw, file, n+1, zone, opts)
	}
	if single {
		records[0].Index = 0 // the file is the record
	}
	return records, nil
}

func parseIncident(raw json.RawMessage, file string, index int, zone string, opts ParseOptions) importer.Record {
	rec := importer.Record{File: file, Index: index, FieldNames: fieldNames}
	var w wireIncident
	if err := json.Unmarshal(raw, &w); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			// Unmarshal filled what it could; report the field and carry on with the rest.
			rec.Errors.Add(typeErr.Field, fmt.Sprintf("Expected %s, found a JSON %s.", typeErr.Type, typeErr.Value))
		} else {
			rec.Errors.Add("", "Not a JSON object: "+err.Error())
			return rec
		}
	}
	in := &rec.Input
	in.Source, in.ExternalID = Source, strings.TrimSpace(w.ID)
	in.Title = strings.TrimSpace(w.Name)
	in.TimeZone = zone
	in.Public = true
	in.PostmortemState = "none"

	if reason := maintenanceReason(w); reason != "" && !opts.IncludeMaintenance {
		rec.MaintenanceReason = reason
		rec.Maintenance = parseMaintenance(&rec, w)
		return rec
	}

	times := map[string]*time.Time{}
	for _, f := range []struct{ name, value string }{
		{"created_at", w.CreatedAt}, {"updated_at", w.UpdatedAt}, {"started_at", w.StartedAt}, {"monitoring_at", w.MonitoringAt},
		{"resolved_at", w.ResolvedAt}, {"postmortem_published_at", w.PostmortemPublishedAt},
	} {
		t, ok := parseTime(f.value)
		if !ok {
			rec.Errors.Add(f.name, badTime(f.value))
		}
		times[f.name] = t
	}

	in.CreatedAt, in.UpdatedAt = times["created_at"], times["updated_at"]
	if in.CreatedAt != nil && in.UpdatedAt == nil {
		in.UpdatedAt = in.CreatedAt
	}
	if w.Shortlink != "" || w.ReminderIntervals != nil {
		in.Statuspage = &models.StatuspageIncident{Shortlink: strings.TrimSpace(w.Shortlink)}
		if w.ReminderIntervals != nil {
			raw := string(w.ReminderIntervals)
			in.Statuspage.ReminderIntervals = &raw
		}
	}

	in.Severity = mapImpact(&rec, w.Impact)
	in.Status = mapStatus(&rec, "status", w.Status)

	m := &in.Milestones
	m.StartedAt = times["started_at"]
	if m.StartedAt == nil {
		m.StartedAt = times["created_at"]
	}
	m.MitigatedAt = times["monitoring_at"]
	m.ResolvedAt = times["resolved_at"]
	if m.StartedAt != nil {
		if m.ResolvedAt != nil && m.ResolvedAt.Before(*m.StartedAt) {
			rec.Warnings = append(rec.Warnings, "resolved_at is before started_at: kept as given, and the time to resolve is flagged invalid")
		}
		if m.MitigatedAt != nil && m.MitigatedAt.Before(*m.StartedAt) {
			rec.Warnings = append(rec.Warnings, "monitoring_at is before started_at: kept as given, and the time to mitigate is flagged invalid")
		}
	}
	if in.Status == "resolved" && m.ResolvedAt == nil {
		rec.Warnings = append(rec.Warnings, "resolved without resolved_at: the time to resolve is not recorded")
	}
	if len(w.IncidentUpdates) == 1 && times["created_at"] != nil && m.ResolvedAt != nil && m.StartedAt != nil &&
		m.ResolvedAt.Equal(*times["created_at"]) && m.ResolvedAt.Equal(*m.StartedAt) {
		rec.Warnings = append(rec.Warnings, "back-filled: one update and resolved_at equals created_at, so the time to resolve is zero")
	}

	if body := strings.TrimSpace(w.PostmortemBody); body != "" {
		// A Statuspage postmortem is one free text; it explains what went wrong, so it goes to the
		// root cause, and it was public, so the postmortem counts as published.
		in.RootCause = ToMarkdown(body)
		in.PostmortemState = "published"
	}

	updates := chronological(&rec, w.IncidentUpdates)
	timeline := make([]models.EventInput, 0, len(updates))
	for _, u := range updates {
		ev := models.EventInput{At: u.at, Kind: "status_update", Status: u.status, Body: ToMarkdown(u.body), Public: true,
			CreatedAt: u.createdAt, UpdatedAt: u.updatedAt, Statuspage: u.details}
		if u.status == "postmortem" {
			// Statuspage posts "postmortem" when the write-up is published: a note, not a status.
			ev.Kind, ev.Status = "note", ""
		}
		timeline = append(timeline, ev)
	}
	if w.PostmortemBody != "" && times["postmortem_published_at"] != nil && !slices.ContainsFunc(updates, func(u update) bool { return u.status == "postmortem" }) {
		timeline = append(timeline, models.EventInput{At: *times["postmortem_published_at"], Kind: "note", Body: "Postmortem published.", Public: true})
	}
	rec.Children.Timeline = &timeline

	in.Services = serviceNames(w)
	windows := impactWindows(&rec, w, updates)
	rec.Children.ImpactWindows = &windows
	return rec
}

// maintenanceReason says why an incident is scheduled maintenance, or "".
func maintenanceReason(w wireIncident) string {
	switch {
	case w.Impact == "maintenance":
		return "scheduled maintenance (impact \"maintenance\")"
	case w.ScheduledFor != "" || w.ScheduledUntil != "":
		return "scheduled maintenance (scheduled_for is set)"
	case maintenanceStatus[w.Status] != "":
		return fmt.Sprintf("scheduled maintenance (status %q)", w.Status)
	}
	return ""
}

func mapImpact(rec *importer.Record, impact string) string {
	if impact == "" {
		rec.Warnings = append(rec.Warnings, "no impact given: severity set to sev4")
		return "sev4"
	}
	severity, ok := impactSeverity[impact]
	if !ok {
		rec.Errors.Add("impact", fmt.Sprintf("Unknown impact %q; want none, minor, major, critical or maintenance.", impact))
		return ""
	}
	return severity
}

// mapStatus maps an incident or update status; "postmortem" is returned as is for updates.
func mapStatus(rec *importer.Record, field, status string) string {
	switch status {
	case "investigating", "identified", "monitoring", "resolved":
		return status
	case "postmortem":
		if field == "status" {
			return "resolved" // the incident is over and its write-up is out
		}
		return status
	case "":
		rec.Errors.Add(field, "This field is required.")
		return ""
	}
	if mapped, ok := maintenanceStatus[status]; ok {
		return mapped
	}
	rec.Errors.Add(field, fmt.Sprintf("Unknown status %q; want investigating, identified, monitoring, resolved or postmortem.", status))
	return ""
}

// update is an incident update with its instant read and its status mapped.
type update struct {
	index      int // position in the file
	at         time.Time
	status     string
	body       string
	components []AffectedComponent
	// The source's own times and details, kept for export.
	createdAt, updatedAt *time.Time
	details              *models.StatuspageUpdate
}

// chronological orders the updates oldest first; Statuspage lists them newest first.
func chronological(rec *importer.Record, list []wireUpdate) []update {
	var out []update
	for n, u := range list {
		field := fmt.Sprintf("incident_updates[%d]", n)
		at, ok := parseTime(u.DisplayAt)
		if !ok {
			rec.Errors.Add(field+".display_at", badTime(u.DisplayAt))
			continue
		}
		if at == nil {
			if at, ok = parseTime(u.CreatedAt); !ok {
				rec.Errors.Add(field+".created_at", badTime(u.CreatedAt))
				continue
			}
			if at == nil {
				rec.Errors.Add(field+".created_at", "The update has neither display_at nor created_at.")
				continue
			}
		}
		status := mapStatus(rec, field+".status", u.Status)
		up := update{index: n, at: *at, status: status, body: u.Body, components: u.AffectedComponents}
		var readable bool
		if up.createdAt, readable = parseTime(u.CreatedAt); !readable {
			rec.Errors.Add(field+".created_at", badTime(u.CreatedAt))
		}
		if up.updatedAt, readable = parseTime(u.UpdatedAt); !readable {
			rec.Errors.Add(field+".updated_at", badTime(u.UpdatedAt))
		}
		up.details = updateDetails(u, *at)
		out = append(out, up)
	}
	// Among updates posted at the same instant, the later in the file is the older.
	slices.SortStableFunc(out, func(a, b update) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return b.index - a.index
	})
	return out
}

func serviceNames(w wireIncident) []string {
	var names []string
	for _, c := range w.Components {
		names = append(names, c.Name)
	}
	for _, u := range w.IncidentUpdates {
		for _, c := range u.AffectedComponents {
			names = append(names, c.Name)
		}
	}
	return models.UniqueNames(names)
}

// parseTime reads a Statuspage instant; an empty value is nil and fine.
func parseTime(value string) (*time.Time, bool) {
	value = strings.TrimSpace(value)
	if value == "" {
		return nil, true
	}
	t, err := time.Parse(time.RFC3339Nano, value)
	if err != nil {
		return nil, false
	}
	t = t.UTC()
	return &t, true
}

func badTime(value string) string {
	return fmt.Sprintf("Cannot read %q as a time; want RFC 3339, like 2023-10-06T01:12:26.084Z.", value)
}

// updateDetails keeps what an update says beyond a timeline entry: whether it notified
// subscribers, and every component it listed with its old and new status.
func updateDetails(u wireUpdate, displayAt time.Time) *models.StatuspageUpdate {
	d := &models.StatuspageUpdate{DeliverNotifications: true, DisplayAt: &displayAt}
	if u.DeliverNotifications != nil {
		d.DeliverNotifications = *u.DeliverNotifications
	}
	if u.AffectedComponents != nil {
		raw, err := json.Marshal(u.AffectedComponents)
		if err == nil {
			s := string(raw)
			d.AffectedComponents = &s
		}
	}
	return d
}
