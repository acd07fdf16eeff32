package models

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
)

// The events webhook endpoints may ask for.
const (
	EventIncidentCreated       = "incident.created"
	EventIncidentUpdated       = "incident.updated"
	EventIncidentStatusChanged = "incident.status_changed"
	EventTimelineCreated       = "timeline.created"
	EventPostmortemPublished   = "postmortem.published"
	EventFollowUpCreated       = "follow_up.created"
	EventFollowUpUpdated       = "follow_up.updated"
	EventFollowUpOverdue       = "follow_up.overdue"
)

// WebhookEvents lists every event type, in the order the admin page offers them.
var WebhookEvents = []string{
	EventIncidentCreated, EventIncidentUpdated, EventIncidentStatusChanged, EventTimelineCreated,
	EventPostmortemPublished, EventFollowUpCreated, EventFollowUpUpdated, EventFollowUpOverdue,
}

// outboxEvent is one event a write caused, before it is addressed to endpoints.
type outboxEvent struct {
	Type string
	Data any
}

// WebhookPayload is the body of a Standard Webhooks message: the event's type, when it
// happened, and the record it is about.
type WebhookPayload struct {
	Type      string          `json:"type"`
	Timestamp time.Time       `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

// webhookIncident is what an incident event carries. Previous status and the names of changed
// fields are set on the events that are about them.
type webhookIncident struct {
	ID              int64      `json:"id"`
	Title           string     `json:"title"`
	Summary         string     `json:"summary"`
	Severity        string     `json:"severity"`
	Status          string     `json:"status"`
	PreviousStatus  string     `json:"previous_status,omitempty"`
	PostmortemState string     `json:"postmortem_state"`
	Public          bool       `json:"public"`
	Services        []string   `json:"services"`
	Regions         []string   `json:"regions"`
	StartedAt       *time.Time `json:"started_at"`
	DetectedAt      *time.Time `json:"detected_at"`
	MitigatedAt     *time.Time `json:"mitigated_at"`
	ResolvedAt      *time.Time `json:"resolved_at"`
	PublishedAt     *time.Time `json:"published_at,omitempty"`
	Version         int        `json:"version"`
	Changed         []string   `json:"changed,omitempty"`
}

type webhookEvent struct {
	ID         int64     `json:"id"`
	IncidentID int64     `json:"incident_id"`
	At         time.Time `json:"at"`
	Kind       string    `json:"kind"`
	Status     string    `json:"status,omitempty"`
	Body       string    `json:"body"`
	Public     bool      `json:"public"`
}

type webhookFollowUp struct {
	ID         int64   `json:"id"`
	IncidentID int64   `json:"incident_id"`
	Title      string  `json:"title"`
	Kind       string  `json:"kind"`
	Priority   string  `json:"priority"`
	Owner      string  `json:"owner"`
	DueOn      *string `json:"due_on"`
	Status     string  `json:"status"`
	TrackerURL string  `json:"tracker_url,omitempty"`
	Version    int     `json:"version"`
}

func incidentData(inc *Incident) webhookIncident {
	return webhookIncident{
		ID: inc.ID, Title: inc.Title, Summary: inc.Summary, Severity: inc.Severity, Status: inc.Status,
		PostmortemState: inc.PostmortemState, Public: inc.Public,
		Services: nonNilNames(inc.ServiceNames()), Regions: nonNilNames(inc.RegionNames()),
		StartedAt: utc(inc.StartedAt), DetectedAt: utc(inc.DetectedAt), MitigatedAt: utc(inc.MitigatedAt),
		ResolvedAt: utc(inc.ResolvedAt), PublishedAt: utc(inc.PublishedAt), Version: inc.Version,
	}
}

func eventData(ev *TimelineEvent) webhookEvent {
	return webhookEvent{ID: ev.ID, IncidentID: ev.IncidentID, At: ev.At.UTC(), Kind: ev.Kind, Status: ev.Status, Body: ev.Body, Public: ev.Public}
}

func followUpData(f *FollowUp) webhookFollowUp {
	out := webhookFollowUp{
		ID: f.ID, IncidentID: f.IncidentID, Title: f.Title, Kind: f.Kind, Priority: f.Priority,
		Owner: f.Owner, Status: f.Status, TrackerURL: f.TrackerURL, Version: f.Version,
	}
	if f.DueOn != nil {
		due := f.DueOn.UTC().Format(time.DateOnly)
		out.DueOn = &due
	}
	return out
}

// The helpers below are what the store's write methods call, one line each, inside their own
// transactions: an event is queued if and only if the write it reports commits.

// incidentWritten queues incident.created (before is nil) or incident.updated and, when the
// status moved, incident.status_changed.
func (s *Store) incidentWritten(tx *gorm.DB, before, after *Incident) error {
	if before == nil {
		return s.enqueueEvents(tx, outboxEvent{EventIncidentCreated, incidentData(after)})
	}
	old := incidentFields(before, before.ServiceNames(), before.RegionNames(), before.FactorSlugs())
	changes := diff(old, incidentFields(after, after.ServiceNames(), after.RegionNames(), after.FactorSlugs()))
	if len(changes) == 0 {
		return nil
	}
	updated := incidentData(after)
	for _, c := range changes {
		updated.Changed = append(updated.Changed, c.Field)
	}
	events := []outboxEvent{{EventIncidentUpdated, updated}}
	if before.Status != after.Status {
		moved := incidentData(after)
		moved.PreviousStatus = before.Status
		events = append(events, outboxEvent{EventIncidentStatusChanged, moved})
	}
	return s.enqueueEvents(tx, events...)
}

// postmortemStateSet queues postmortem.published when SetPostmortemState published inc, which
// is now at version.
func (s *Store) postmortemStateSet(tx *gorm.DB, inc *Incident, state string, version int) error {
	if state != PostmortemPublished {
		return nil
	}
	published := *inc
	published.Version = version
	return s.postmortemPublished(tx, &published)
}

// postmortemPublished queues postmortem.published for an incident whose public version was just
// recorded.
func (s *Store) postmortemPublished(tx *gorm.DB, inc *Incident) error {
	data := incidentData(inc)
	data.PostmortemState = PostmortemPublished
	return s.enqueueEvents(tx, outboxEvent{EventPostmortemPublished, data})
}

// timelineCreated queues timeline.created.
func (s *Store) timelineCreated(tx *gorm.DB, ev *TimelineEvent) error {
	return s.enqueueEvents(tx, outboxEvent{EventTimelineCreated, eventData(ev)})
}

// followUpWritten queues follow_up.created (before is nil) or, when a field the event carries
// changed, follow_up.updated.
func (s *Store) followUpWritten(tx *gorm.DB, before, after *FollowUp) error {
	if before == nil {
		return s.enqueueEvents(tx, outboxEvent{EventFollowUpCreated, followUpData(after)})
	}
	if len(diff(followUpFields(before, nil), followUpFields(after, nil))) == 0 {
		return nil
	}
	return s.enqueueEvents(tx, outboxEvent{EventFollowUpUpdated, followUpData(after)})
}

// enqueueEvents addresses each event to every enabled endpoint that asked for its type and
// writes one delivery row each, in tx. Nothing is sent here: the delivery workers send after
// the commit, so the write costs an indexed read of a small table and an insert, not a request.
func (s *Store) enqueueEvents(tx *gorm.DB, events ...outboxEvent) error {
	var endpoints []struct {
		ID     int64
		Events string
	}
	if err := tx.Table("webhook_endpoints").Select("id, events").Where("enabled").Find(&endpoints).Error; err != nil {
		return fmt.Errorf("webhook endpoints: %w", err)
	}
	if len(endpoints) == 0 {
		return nil
	}
	now := time.Now().UTC()
	var rows []WebhookDelivery
	for _, ev := range events {
		var payload []byte
		for _, ep := range endpoints {
			if !slices.Contains(strings.Fields(ep.Events), ev.Type) {
				continue
			}
			if payload == nil {
				data, err := json.Marshal(ev.Data)
				if err != nil {
					return fmt.Errorf("encode %s event: %w", ev.Type, err)
				}
				if payload, err = json.Marshal(WebhookPayload{Type: ev.Type, Timestamp: now, Data: data}); err != nil {
					return fmt.Errorf("encode %s event: %w", ev.Type, err)
				}
			}
			rows = append(rows, WebhookDelivery{
				EndpointID: ep.ID, MessageID: newMessageID(), EventType: ev.Type, Payload: string(payload),
				State: DeliveryPending, NextAttemptAt: now, RetryUntil: now.Add(RetryWindow), CreatedAt: now,
			})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	if err := tx.Create(&rows).Error; err != nil {
		return fmt.Errorf("queue webhook deliveries: %w", err)
	}
	// The workers are woken once the rows have committed, so their claim finds them.
	afterCommit(tx, s.webhooks.poke)
	return nil
}

func newMessageID() string {
	raw := make([]byte, 16)
	_, _ = rand.Read(raw)
	return "msg_" + hex.EncodeToString(raw)
}
