package models

import (
	"context"
	"fmt"
	"sync"
	"time"

	"gorm.io/gorm"
)

// The subscribers' outbox. What subscribers are told is written in the same transaction as the
// write that made it public (a timeline entry made public, a postmortem published), so nothing
// is lost when the process stops after the commit and nothing is sent for a write that rolled
// back. A worker (models/notify) claims due deliveries, sends them and records the outcome; a
// failure is retried with backoff. Delivery is at least once: a process that stops between
// sending and recording sends again once the claim lapses.

// Message kinds.
const (
	MessageUpdate            = "update"             // a public update of a public incident
	MessagePostmortem        = "postmortem"         // a public incident's postmortem was published
	MessageConfirm           = "confirm"            // the confirmation link, to one subscriber
	MessageAlreadySubscribed = "already_subscribed" // a subscribe request for a confirmed address
)

type subscriberMessage struct {
	ID         int64
	Kind       string
	IncidentID *int64
	EventID    *int64
	// A component_update's component and its status before and after.
	ComponentID *int64
	OldStatus   string
	NewStatus   string
	CreatedAt   time.Time
}

func (subscriberMessage) TableName() string { return "subscriber_messages" }

type subscriberDelivery struct {
	ID            int64
	MessageID     int64
	SubscriberID  int64
	Attempts      int
	NextAttemptAt time.Time
	Claim         *string
	ClaimedUntil  *time.Time
	SentAt        *time.Time
	FailedAt      *time.Time
	LastError     string
	CreatedAt     time.Time
}

func (subscriberDelivery) TableName() string { return "subscriber_deliveries" }

// notifySubscribers queues a message about a public incident to every confirmed subscriber of
// its components. notifyPublicChanges decides when, once per thing made public.
func (s *Store) notifySubscribers(tx *gorm.DB, kind string, incidentID int64, eventID *int64) error {
	now := time.Now().UTC()
	msg := subscriberMessage{Kind: kind, IncidentID: &incidentID, EventID: eventID, CreatedAt: now}
	if err := tx.Create(&msg).Error; err != nil {
		return fmt.Errorf("queue subscriber message: %w", err)
	}
	// A subscriber who chose components hears of incidents naming one of them; one who chose none
	// hears of all. A choice is kept by name: a component covering one of the incident's services,
	// or a service of that name.
	err := tx.Exec(`INSERT INTO subscriber_deliveries (message_id, subscriber_id, attempts, next_attempt_at, last_error, created_at)
		SELECT ?, s.id, 0, ?, '', ? FROM subscribers s
		WHERE s.confirmed_at IS NOT NULL AND (
			NOT EXISTS (SELECT 1 FROM subscriber_components sc WHERE sc.subscriber_id = s.id)
			OR EXISTS (SELECT 1 FROM subscriber_components sc
				JOIN services sv ON sv.name = sc.component
				JOIN incident_services isv ON isv.service_id = sv.id
				WHERE sc.subscriber_id = s.id AND isv.incident_id = ?)
			OR EXISTS (SELECT 1 FROM subscriber_components sc
				JOIN components cp ON cp.name = sc.component
				JOIN component_services cs ON cs.component_id = cp.id
				JOIN incident_services isv ON isv.service_id = cs.service_id
				WHERE sc.subscriber_id = s.id AND isv.incident_id = ?))`,
		msg.ID, now, now, incidentID, incidentID).Error
	if err != nil {
		return fmt.Errorf("queue subscriber deliveries: %w", err)
	}
	s.wakeAfterCommit(tx)
	return nil
}

// enqueueForSubscriber queues a message for one subscriber alone.
func (s *Store) enqueueForSubscriber(tx *gorm.DB, subscriberID int64, kind string) error {
	now := time.Now().UTC()
	msg := subscriberMessage{Kind: kind, CreatedAt: now}
	if err := tx.Create(&msg).Error; err != nil {
		return fmt.Errorf("queue subscriber message: %w", err)
	}
	d := subscriberDelivery{MessageID: msg.ID, SubscriberID: subscriberID, NextAttemptAt: now, CreatedAt: now}
	if err := tx.Create(&d).Error; err != nil {
		return fmt.Errorf("queue subscriber delivery: %w", err)
	}
	return nil
}

// outboxSignal wakes the outbox worker of this process when deliveries were queued.
type outboxSignal struct {
	once sync.Once
	ch   chan struct{}
}

func (o *outboxSignal) channel() chan struct{} {
	o.once.Do(func() { o.ch = make(chan struct{}, 1) })
	return o.ch
}

// OutboxWake is signalled after a transaction that queued deliveries commits. A worker of another
// process sharing the database does not hear it and finds them on its next poll.
func (s *Store) OutboxWake() <-chan struct{} { return s.outbox.channel() }

// WakeOutbox signals OutboxWake; signals sent while none is read are folded into one.
func (s *Store) WakeOutbox() {
	select {
	case s.outbox.channel() <- struct{}{}:
	default:
	}
}

// wakeAfterCommit wakes the outbox worker once tx commits (afterCommit).
func (s *Store) wakeAfterCommit(tx *gorm.DB) { afterCommit(tx, s.WakeOutbox) }

// OutboxItem is a claimed delivery with what the worker needs to compose and send it.
type OutboxItem struct {
	DeliveryID int64
	MessageID  int64
	Claim      string
	Attempts   int // attempts made before this one
	Kind       string
	IncidentID *int64
	EventID    *int64
	QueuedAt   time.Time
	Subscriber Subscriber
	// A component_update's component and its status before and after.
	ComponentID          *int64
	OldStatus, NewStatus string
}

// dueAndFree is the condition of a delivery or invitation due by its first argument and held by
// no worker at its second: what a round claims.
const dueAndFree = "sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= ? AND (claimed_until IS NULL OR claimed_until < ?)"

// ClaimDeliveries takes up to limit due deliveries for this worker for lease: no other worker,
// in this process or another, takes them until the lease lapses.
func (s *Store) ClaimDeliveries(ctx context.Context, limit int, lease time.Duration) ([]OutboxItem, error) {
	now := time.Now().UTC()
	// Most rounds find nothing due: a read says so without taking the one writer on SQLite.
	var due []int64
	err := s.read.WithContext(ctx).Raw(`SELECT id FROM subscriber_deliveries WHERE `+dueAndFree+` LIMIT 1`, now, now).Scan(&due).Error
	if err != nil {
		return nil, fmt.Errorf("look for due deliveries: %w", err)
	}
	if len(due) == 0 {
		return nil, nil
	}
	claim := newSubscriberToken()
	// The outer conditions are checked again on PostgreSQL against a row another worker claimed
	// meanwhile, so two workers never hold the same delivery.
	err = s.write.WithContext(ctx).Exec(`UPDATE subscriber_deliveries SET claim = ?, claimed_until = ?
		WHERE id IN (SELECT id FROM subscriber_deliveries WHERE `+dueAndFree+`
			ORDER BY next_attempt_at, id LIMIT ?)
		AND sent_at IS NULL AND failed_at IS NULL AND (claimed_until IS NULL OR claimed_until < ?)`,
		claim, now.Add(lease), now, now, limit, now).Error
	if err != nil {
		s.releaseClaim(ctx, claim) // a statement cancelled may have committed all the same
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	var rows []struct {
		DeliveryID   int64
		MessageID    int64
		Attempts     int
		Kind         string
		IncidentID   *int64
		EventID      *int64
		QueuedAt     time.Time
		ComponentID  *int64
		OldStatus    string
		NewStatus    string
		SubscriberID int64
		SubKind      string
		Address      string
		Token        string
		ConfirmedAt  *time.Time
	}
	err = s.write.WithContext(ctx).Raw(`SELECT d.id AS delivery_id, d.message_id, d.attempts, m.kind, m.incident_id, m.event_id, m.created_at AS queued_at,
			m.component_id, m.old_status, m.new_status, s.id AS subscriber_id, s.kind AS sub_kind, s.address, s.token, s.confirmed_at
		FROM subscriber_deliveries d
		JOIN subscriber_messages m ON m.id = d.message_id
		JOIN subscribers s ON s.id = d.subscriber_id
		WHERE d.claim = ? ORDER BY d.next_attempt_at, d.id`, claim).Scan(&rows).Error
	if err != nil {
		s.releaseClaim(ctx, claim)
		return nil, fmt.Errorf("read claimed deliveries: %w", err)
	}
	items := make([]OutboxItem, len(rows))
	ids := make([]int64, len(rows))
	for n, r := range rows {
		items[n] = OutboxItem{
			DeliveryID: r.DeliveryID, MessageID: r.MessageID, Claim: claim, Attempts: r.Attempts, Kind: r.Kind, IncidentID: r.IncidentID, EventID: r.EventID, QueuedAt: r.QueuedAt,
			ComponentID: r.ComponentID, OldStatus: r.OldStatus, NewStatus: r.NewStatus,
			Subscriber: Subscriber{ID: r.SubscriberID, Kind: r.SubKind, Address: r.Address, Token: r.Token, ConfirmedAt: r.ConfirmedAt},
		}
		ids[n] = r.SubscriberID
	}
	if len(ids) > 0 {
		var comps []SubscriberComponent
		if err := s.read.WithContext(ctx).Where("subscriber_id IN ?", ids).Order("component").Find(&comps).Error; err != nil {
			s.releaseClaim(ctx, claim)
			return nil, fmt.Errorf("read subscriber components: %w", err)
		}
		for n := range items {
			for _, c := range comps {
				if c.SubscriberID == items[n].Subscriber.ID {
					items[n].Subscriber.Components = append(items[n].Subscriber.Components, c.Component)
				}
			}
		}
	}
	return items, nil
}

// DeliverySent records a claimed delivery as sent (or as needing no sending: note says why).
func (s *Store) DeliverySent(ctx context.Context, item OutboxItem, note string) error {
	now := time.Now().UTC()
	err := s.write.WithContext(ctx).Model(&subscriberDelivery{}).Where("id = ? AND claim = ?", item.DeliveryID, item.Claim).
		Updates(map[string]any{"sent_at": now, "attempts": item.Attempts + 1, "claimed_until": nil, "last_error": note}).Error
	if err != nil {
		return fmt.Errorf("record delivery %d sent: %w", item.DeliveryID, err)
	}
	return nil
}

// DeliveryFailed records a failed attempt: the delivery is tried again at retryAt, or given up
// when retryAt is nil.
func (s *Store) DeliveryFailed(ctx context.Context, item OutboxItem, problem string, retryAt *time.Time) error {
	if len(problem) > 1000 {
		problem = problem[:1000]
	}
	updates := map[string]any{"attempts": item.Attempts + 1, "claimed_until": nil, "last_error": problem}
	if retryAt != nil {
		updates["next_attempt_at"] = retryAt.UTC()
	} else {
		updates["failed_at"] = time.Now().UTC()
	}
	err := s.write.WithContext(ctx).Model(&subscriberDelivery{}).Where("id = ? AND claim = ?", item.DeliveryID, item.Claim).Updates(updates).Error
	if err != nil {
		return fmt.Errorf("record delivery %d failed: %w", item.DeliveryID, err)
	}
	return nil
}

// releaseClaim hands back whatever a claim that failed half-way took, even while ctx is ending
// (a worker stopping mid-claim): else the deliveries would wait for the lease to lapse.
func (s *Store) releaseClaim(ctx context.Context, claim string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = s.write.WithContext(ctx).Model(&subscriberDelivery{}).Where("claim = ? AND sent_at IS NULL", claim).
		Updates(map[string]any{"claimed_until": nil, "claim": nil}).Error
}

// ReleaseDelivery hands a claimed delivery back unsent, for any worker to take at once.
func (s *Store) ReleaseDelivery(ctx context.Context, item OutboxItem) error {
	err := s.write.WithContext(ctx).Model(&subscriberDelivery{}).Where("id = ? AND claim = ? AND sent_at IS NULL", item.DeliveryID, item.Claim).
		Updates(map[string]any{"claimed_until": nil, "claim": nil}).Error
	if err != nil {
		return fmt.Errorf("release delivery %d: %w", item.DeliveryID, err)
	}
	return nil
}

// NextDeliveryAt is when the earliest waiting delivery nobody holds falls due, or nil when none
// waits.
func (s *Store) NextDeliveryAt(ctx context.Context) (*time.Time, error) {
	var rows []subscriberDelivery
	// Deliveries another worker holds are left to it; the poll looks again should it stop.
	err := s.read.WithContext(ctx).Select("next_attempt_at").
		Where("sent_at IS NULL AND failed_at IS NULL AND (claimed_until IS NULL OR claimed_until < ?)", time.Now().UTC()).
		Order("next_attempt_at").Limit(1).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("next delivery: %w", err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	at := rows[0].NextAttemptAt
	return &at, nil
}

// DeliveryState is one delivery as tests and the doctor see it.
type DeliveryState struct {
	ID            int64
	Kind          string
	Address       string
	Attempts      int
	NextAttemptAt time.Time
	ClaimedUntil  *time.Time
	SentAt        *time.Time
	FailedAt      *time.Time
	LastError     string
}

// Deliveries lists the outbox's deliveries, oldest first.
func (s *Store) Deliveries(ctx context.Context) ([]DeliveryState, error) {
	var out []DeliveryState
	err := s.read.WithContext(ctx).Raw(`SELECT d.id, m.kind, s.address, d.attempts, d.next_attempt_at, d.claimed_until, d.sent_at, d.failed_at, d.last_error
		FROM subscriber_deliveries d JOIN subscriber_messages m ON m.id = d.message_id JOIN subscribers s ON s.id = d.subscriber_id
		ORDER BY d.id`).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	return out, nil
}
