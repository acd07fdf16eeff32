package models

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"time"

	"gorm.io/gorm"
)

// Actor is who makes a change; it travels in the request's context to the store, which records
// it in the history of every record it writes.
type Actor struct {
	UserID int64
	Label  string
}

type actorKey struct{}

// WithActor returns a context whose writes are attributed to the actor.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

func actorFrom(ctx context.Context) Actor {
	if a, ok := ctx.Value(actorKey{}).(Actor); ok {
		return a
	}
	return Actor{Label: "system"}
}

// Entities and actions named in history.
const (
	EntityIncident = "incident"
	EntityEvent    = "timeline_event"
	EntityWindow   = "impact_window"
	EntityFollowUp = "follow_up"

	ActionCreate = "create"
	ActionUpdate = "update"
	ActionDelete = "delete"
)

// Change is one field's value before and after; nil where the field did not exist.
type Change struct {
	Field  string `json:"field"`
	Before any    `json:"before"`
	After  any    `json:"after"`
}

// AuditEntry records who changed which record, when, and how. Entries are only ever added.
type AuditEntry struct {
	ID         int64
	At         time.Time
	ActorID    *int64
	Actor      string
	Action     string
	Entity     string
	EntityID   int64
	IncidentID *int64
	Changes    string // JSON list of Change
}

// ChangeList decodes the entry's changes.
func (e *AuditEntry) ChangeList() []Change {
	var changes []Change
	_ = json.Unmarshal([]byte(e.Changes), &changes)
	return changes
}

type fields map[string]any

// diff lists the fields whose values differ, in name order.
func diff(before, after fields) []Change {
	names := map[string]bool{}
	for k := range before {
		names[k] = true
	}
	for k := range after {
		names[k] = true
	}
	var changes []Change
	for name := range names {
		b, a := before[name], after[name]
		if before != nil && after != nil && reflect.DeepEqual(b, a) {
			continue
		}
		changes = append(changes, Change{Field: name, Before: b, After: a})
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Field < changes[j].Field })
	return changes
}

// audit appends a history entry in the transaction of the change it describes. An update that
// changed nothing leaves no entry.
func audit(tx *gorm.DB, action, entity string, entityID, incidentID int64, before, after fields) error {
	entry, err := auditEntry(actorFrom(tx.Statement.Context), time.Now().UTC(), action, entity, entityID, incidentID, before, after)
	if err != nil || entry == nil {
		return err
	}
	if err := tx.Create(entry).Error; err != nil {
		return fmt.Errorf("record history: %w", err)
	}
	return nil
}

// auditEntry is the history entry of one change by actor at at, nil for an update that changed
// nothing: written at once by audit, or gathered by a batch's history.
func auditEntry(actor Actor, at time.Time, action, entity string, entityID, incidentID int64, before, after fields) (*AuditEntry, error) {
	changes := diff(before, after)
	if action == ActionUpdate && len(changes) == 0 {
		return nil, nil
	}
	raw, err := json.Marshal(changes)
	if err != nil {
		return nil, fmt.Errorf("encode history: %w", err)
	}
	entry := &AuditEntry{
		At: at, Actor: actor.Label, Action: action, Entity: entity,
		EntityID: entityID, IncidentID: &incidentID, Changes: string(raw),
	}
	if actor.UserID != 0 {
		userID := actor.UserID
		entry.ActorID = &userID
	}
	return entry, nil
}

// History lists an incident's history, newest first: the incident and all its records.
func (s *Store) History(ctx context.Context, incidentID int64) ([]AuditEntry, error) {
	var entries []AuditEntry
	err := s.read.WithContext(ctx).Where("incident_id = ?", incidentID).Order("at DESC, id DESC").Find(&entries).Error
	if err != nil {
		return nil, fmt.Errorf("history of incident %d: %w", incidentID, err)
	}
	return entries, nil
}

// HistoryPage lists limit entries of an incident's history from offset, newest first. The index
// on (incident_id, at, id) serves it read backwards, so a page costs its own rows, not the
// whole history; an offset past the end is an empty page.
func (s *Store) HistoryPage(ctx context.Context, incidentID int64, limit, offset int) ([]AuditEntry, error) {
	var entries []AuditEntry
	err := historyPage(s.read.WithContext(ctx), incidentID, limit, offset).Find(&entries).Error
	if err != nil {
		return nil, fmt.Errorf("history of incident %d: %w", incidentID, err)
	}
	return entries, nil
}

func historyPage(tx *gorm.DB, incidentID int64, limit, offset int) *gorm.DB {
	return tx.Where("incident_id = ?", incidentID).Order("at DESC, id DESC").Limit(limit).Offset(offset)
}

func timeField(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}

func incidentFields(inc *Incident, services, regions, factors []string) fields {
	return fields{
		"title": inc.Title, "summary": inc.Summary, "severity": inc.Severity, "status": inc.Status,
		"detection_method": inc.DetectionMethod, "customer_impact": inc.CustomerImpact,
		"root_cause": inc.RootCause, "trigger": inc.Trigger, "detection": inc.Detection,
		"response": inc.Response, "lessons": inc.Lessons, "time_zone": inc.TimeZone,
		"triggered_at": timeField(inc.TriggeredAt), "started_at": timeField(inc.StartedAt),
		"detected_at": timeField(inc.DetectedAt), "acknowledged_at": timeField(inc.AcknowledgedAt),
		"mitigated_at": timeField(inc.MitigatedAt), "resolved_at": timeField(inc.ResolvedAt),
		"milestone_days": inc.MilestoneDays, "postmortem_state": inc.PostmortemState, "published_at": timeField(inc.PublishedAt),
		"public": inc.Public, "services": nonNilNames(services), "regions": nonNilNames(regions),
		"factors": nonNilNames(factors), "near_miss": inc.NearMiss, "template": inc.TemplateSlug,
	}
}

func nonNilNames(names []string) []string {
	if len(names) == 0 {
		return []string{}
	}
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	return sorted
}

func eventFields(ev *TimelineEvent) fields {
	return fields{"at": timeField(&ev.At), "kind": ev.Kind, "status": ev.Status, "body": ev.Body, "public": ev.Public}
}

func windowFields(w *ImpactWindow, services []string) fields {
	return fields{"started_at": timeField(&w.StartedAt), "ended_at": timeField(w.EndedAt), "level": w.Level, "note": w.Note, "services": nonNilNames(services)}
}

func followUpFields(f *FollowUp, factors []string) fields {
	var due any
	if f.DueOn != nil {
		due = f.DueOn.UTC().Format(time.DateOnly)
	}
	return fields{
		"title": f.Title, "description": f.Description, "kind": f.Kind, "priority": f.Priority,
		"owner": f.Owner, "due_on": due, "status": f.Status, "done_at": timeField(f.DoneAt),
		"tracker_url": f.TrackerURL, "verification": f.Verification, "factors": nonNilNames(factors),
	}
}
