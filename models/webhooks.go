package models

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Webhook formats: a Standard Webhooks JSON message, or the text and blocks a Slack incoming
// webhook (and the chat tools that copy it) takes.
const (
	WebhookStandard = "standard"
	WebhookSlack    = "slack"
)

// WebhookFormats lists the formats an endpoint may take.
var WebhookFormats = []string{WebhookStandard, WebhookSlack}

// Delivery states.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// RetryWindow is how long a delivery is retried after it was queued (or redelivered).
const RetryWindow = 24 * time.Hour

// SwitchOffAfter is how long an endpoint may fail every attempt before it is switched off.
const SwitchOffAfter = 72 * time.Hour

// WebhookEndpoint is a URL an admin wants events sent to.
type WebhookEndpoint struct {
	ID             int64
	URL            string
	Description    string
	Events         string // space-separated event types
	Format         string
	Secret         string `json:"-"`
	Enabled        bool
	FailingSince   *time.Time
	DisabledAt     *time.Time
	DisabledReason string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// EventList is the endpoint's event types.
func (e *WebhookEndpoint) EventList() []string { return strings.Fields(e.Events) }

// WebhookDelivery is one message queued for one endpoint: the outbox row.
type WebhookDelivery struct {
	ID            int64
	EndpointID    int64
	MessageID     string
	EventType     string
	Payload       string
	State         string
	Attempts      int
	NextAttemptAt time.Time
	RetryUntil    time.Time
	ClaimedBy     string
	ClaimedUntil  *time.Time
	LastStatus    int
	LastError     string
	CreatedAt     time.Time
	DeliveredAt   *time.Time
	// AttemptLog is filled by WebhookDeliveries, newest first.
	AttemptLog []WebhookAttempt `gorm:"-"`
}

// WebhookAttempt is one try at sending a delivery.
type WebhookAttempt struct {
	ID           int64
	DeliveryID   int64
	At           time.Time
	StatusCode   int
	DurationMS   int64 `gorm:"column:duration_ms"`
	ResponseHead string
	Error        string
}

// WebhookEndpointInput is a new or changed endpoint.
type WebhookEndpointInput struct {
	URL         string
	Description string
	Events      []string
	Format      string
	Enabled     bool
}

// webhookState wakes the delivery workers of this process when a write queued a delivery.
type webhookState struct {
	once sync.Once
	wake chan struct{}
}

func (w *webhookState) channel() chan struct{} {
	w.once.Do(func() { w.wake = make(chan struct{}, 1) })
	return w.wake
}

func (w *webhookState) poke() {
	select {
	case w.channel() <- struct{}{}:
	default:
	}
}

// WakeDeliveries tells this process's delivery workers to look for due deliveries now.
func (s *Store) WakeDeliveries() { s.webhooks.poke() }

// ValidateWebhookEndpoint checks an endpoint's fields. Unless private addresses are allowed, a
// URL naming loopback, private or link-local addresses is refused here already; the dialer
// checks the address each name resolves to as well.
func ValidateWebhookEndpoint(in WebhookEndpointInput, allowPrivate bool) FieldErrors {
	var errs FieldErrors
	u, err := url.Parse(in.URL)
	switch {
	case strings.TrimSpace(in.URL) == "":
		errs.Add("url", "Enter the URL to send events to.")
	case len(in.URL) > 2000:
		errs.Add("url", "Keep the URL under 2,000 characters.")
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "":
		errs.Add("url", "Enter a full http:// or https:// URL, such as https://hooks.example.com/hindsight.")
	case u.User != nil:
		errs.Add("url", "Leave the user name and password out of the URL; deliveries are signed instead.")
	case !allowPrivate && privateHost(u.Hostname()):
		errs.Add("url", "This URL points at a loopback, private or link-local address, which webhooks may not reach unless the server runs with --webhooks-allow-private.")
	}
	if len(in.Description) > 200 {
		errs.Add("description", "Keep the description under 200 characters.")
	}
	if len(in.Events) == 0 {
		errs.Add("events", "Choose at least one event to send.")
	}
	for _, ev := range in.Events {
		if !slices.Contains(WebhookEvents, ev) {
			errs.Add("events", fmt.Sprintf("%q is not an event Hindsight sends.", ev))
			break
		}
	}
	if !slices.Contains(WebhookFormats, in.Format) {
		errs.Add("format", "Choose Standard Webhooks or Slack-compatible.")
	}
	return errs
}

func privateHost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ForbiddenWebhookIP(ip)
}

// NewWebhookSecret makes a Standard Webhooks secret: "whsec_" and 24 random bytes in base64.
func NewWebhookSecret() string {
	raw := make([]byte, 24)
	_, _ = rand.Read(raw)
	return "whsec_" + base64.StdEncoding.EncodeToString(raw)
}

func webhookEvents(list []string) string {
	var out []string
	for _, ev := range WebhookEvents { // the canonical order, each once
		if slices.Contains(list, ev) {
			out = append(out, ev)
		}
	}
	return strings.Join(out, " ")
}

// CreateWebhookEndpoint stores a new endpoint with a new secret; the secret is returned so the
// admin can be shown it, once.
func (s *Store) CreateWebhookEndpoint(ctx context.Context, in WebhookEndpointInput, allowPrivate bool) (*WebhookEndpoint, error) {
	if errs := ValidateWebhookEndpoint(in, allowPrivate); len(errs) > 0 {
		return nil, errs
	}
	now := time.Now().UTC()
	ep := WebhookEndpoint{
		URL: in.URL, Description: in.Description, Events: webhookEvents(in.Events), Format: in.Format,
		Secret: NewWebhookSecret(), Enabled: true, CreatedAt: now, UpdatedAt: now,
	}
	if err := s.write.WithContext(ctx).Create(&ep).Error; err != nil {
		return nil, fmt.Errorf("create webhook endpoint: %w", err)
	}
	return &ep, nil
}

// UpdateWebhookEndpoint changes an endpoint's URL, events, format and whether it is on. Turning
// a switched-off endpoint on again forgets how long it had been failing.
func (s *Store) UpdateWebhookEndpoint(ctx context.Context, id int64, in WebhookEndpointInput, allowPrivate bool) error {
	if errs := ValidateWebhookEndpoint(in, allowPrivate); len(errs) > 0 {
		return errs
	}
	return s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var current WebhookEndpoint
		if err := tx.First(&current, id).Error; err != nil {
			return notFound(err, fmt.Sprintf("webhook endpoint %d", id))
		}
		updates := map[string]any{
			"url": in.URL, "description": in.Description, "events": webhookEvents(in.Events),
			"format": in.Format, "enabled": in.Enabled, "updated_at": time.Now().UTC(),
		}
		if in.Enabled && !current.Enabled {
			updates["failing_since"], updates["disabled_at"], updates["disabled_reason"] = nil, nil, ""
		}
		if err := tx.Model(&WebhookEndpoint{}).Where("id = ?", id).Updates(updates).Error; err != nil {
			return fmt.Errorf("update webhook endpoint %d: %w", id, err)
		}
		return nil
	})
}

// DeleteWebhookEndpoint removes an endpoint with its deliveries and their log.
func (s *Store) DeleteWebhookEndpoint(ctx context.Context, id int64) error {
	return s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// SQLite enforces the cascade too, but only with foreign keys on; say it outright.
		if err := tx.Exec("DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE endpoint_id = ?)", id).Error; err != nil {
			return fmt.Errorf("delete webhook log: %w", err)
		}
		if err := tx.Where("endpoint_id = ?", id).Delete(&WebhookDelivery{}).Error; err != nil {
			return fmt.Errorf("delete webhook deliveries: %w", err)
		}
		res := tx.Delete(&WebhookEndpoint{}, id)
		if res.Error != nil {
			return fmt.Errorf("delete webhook endpoint %d: %w", id, res.Error)
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("webhook endpoint %d: %w", id, ErrNotFound)
		}
		return nil
	})
}

// WebhookEndpoints lists every endpoint, oldest first.
func (s *Store) WebhookEndpoints(ctx context.Context) ([]WebhookEndpoint, error) {
	var list []WebhookEndpoint
	if err := s.read.WithContext(ctx).Order("id").Find(&list).Error; err != nil {
		return nil, fmt.Errorf("webhook endpoints: %w", err)
	}
	return list, nil
}

// WebhookEndpoint returns one endpoint.
func (s *Store) WebhookEndpoint(ctx context.Context, id int64) (*WebhookEndpoint, error) {
	var ep WebhookEndpoint
	if err := s.read.WithContext(ctx).First(&ep, id).Error; err != nil {
		return nil, notFound(err, fmt.Sprintf("webhook endpoint %d", id))
	}
	return &ep, nil
}

// WebhookDeliveries lists an endpoint's latest deliveries, newest first, each with its attempts.
func (s *Store) WebhookDeliveries(ctx context.Context, endpointID int64, limit int) ([]WebhookDelivery, error) {
	db := s.read.WithContext(ctx)
	var list []WebhookDelivery
	if err := db.Where("endpoint_id = ?", endpointID).Order("id DESC").Limit(limit).Find(&list).Error; err != nil {
		return nil, fmt.Errorf("webhook deliveries of endpoint %d: %w", endpointID, err)
	}
	if len(list) == 0 {
		return list, nil
	}
	ids := make([]int64, len(list))
	at := map[int64]int{}
	for n, d := range list {
		ids[n], at[d.ID] = d.ID, n
	}
	var attempts []WebhookAttempt
	if err := db.Where("delivery_id IN ?", ids).Order("id DESC").Find(&attempts).Error; err != nil {
		return nil, fmt.Errorf("webhook attempts of endpoint %d: %w", endpointID, err)
	}
	for _, a := range attempts {
		n := at[a.DeliveryID]
		list[n].AttemptLog = append(list[n].AttemptLog, a)
	}
	return list, nil
}

// DeliveriesByState counts all deliveries by state, for tests and the doctor's eye.
func (s *Store) DeliveriesByState(ctx context.Context) (map[string]int, error) {
	var rows []struct {
		State string
		N     int
	}
	if err := s.read.WithContext(ctx).Model(&WebhookDelivery{}).Select("state, COUNT(*) AS n").Group("state").Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("count deliveries: %w", err)
	}
	out := map[string]int{}
	for _, r := range rows {
		out[r.State] = r.N
	}
	return out, nil
}

// RedeliverWebhook queues a delivery again, now, with the same message id (receivers drop a
// message id they saw), and retries it for another RetryWindow.
func (s *Store) RedeliverWebhook(ctx context.Context, endpointID, deliveryID int64) error {
	now := time.Now().UTC()
	res := s.write.WithContext(ctx).Model(&WebhookDelivery{}).Where("id = ? AND endpoint_id = ?", deliveryID, endpointID).
		Updates(map[string]any{"state": DeliveryPending, "next_attempt_at": now, "retry_until": now.Add(RetryWindow), "claimed_by": "", "claimed_until": nil})
	if res.Error != nil {
		return fmt.Errorf("redeliver %d: %w", deliveryID, res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("webhook delivery %d: %w", deliveryID, ErrNotFound)
	}
	s.webhooks.poke()
	return nil
}

// ClaimWebhookDeliveries takes up to limit due deliveries of enabled endpoints for worker until
// now+lease. A delivery claimed by another worker whose lease has not run out is skipped, so
// each is sent by one worker at a time across every instance; on PostgreSQL, rows another
// instance is claiming at this moment are skipped (SKIP LOCKED) instead of waited for.
func (s *Store) ClaimWebhookDeliveries(ctx context.Context, worker string, now time.Time, lease time.Duration, limit int) ([]WebhookDelivery, error) {
	now = now.UTC()
	lock := ""
	if s.dialect == "postgres" {
		lock = " FOR UPDATE OF d SKIP LOCKED"
	}
	var claimed []WebhookDelivery
	err := s.write.WithContext(ctx).Raw(`UPDATE webhook_deliveries SET claimed_by = ?, claimed_until = ?
WHERE id IN (SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
  WHERE d.state = 'pending' AND d.next_attempt_at <= ? AND (d.claimed_until IS NULL OR d.claimed_until < ?) AND e.enabled
  ORDER BY d.next_attempt_at, d.id LIMIT ?`+lock+`)
RETURNING *`, worker, now.Add(lease), now, now, limit).Scan(&claimed).Error
	if err != nil {
		return nil, fmt.Errorf("claim webhook deliveries: %w", err)
	}
	return claimed, nil
}

// AttemptResult is what came of sending a delivery once.
type AttemptResult struct {
	StatusCode   int // 0 when no answer came
	Duration     time.Duration
	ResponseHead string // the answer's first bytes
	Err          string // why no answer came, or why the answer was not taken
}

// Succeeded tells whether the receiver took the message: any 2xx answer.
func (r AttemptResult) Succeeded() bool {
	return r.Err == "" && r.StatusCode >= 200 && r.StatusCode < 300
}

// Backoff is how long to wait after the attempts-th failed attempt: 10 s doubling, at most 1 h.
func Backoff(attempts int) time.Duration {
	d := 10 * time.Second
	for n := 1; n < attempts && d < time.Hour; n++ {
		d *= 2
	}
	return min(d, time.Hour)
}

// RecordWebhookAttempt logs an attempt and moves the delivery on: delivered, due again after
// the backoff, or failed once its retry window is over. It also keeps the endpoint's failing
// streak, switching the endpoint off when every attempt has failed for SwitchOffAfter. A worker
// whose lease was taken over meanwhile only logs its attempt.
func (s *Store) RecordWebhookAttempt(ctx context.Context, d *WebhookDelivery, worker string, r AttemptResult, now time.Time) error {
	now = now.UTC()
	return s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		attempt := WebhookAttempt{
			DeliveryID: d.ID, At: now, StatusCode: r.StatusCode, DurationMS: r.Duration.Milliseconds(),
			ResponseHead: r.ResponseHead, Error: r.Err,
		}
		if err := tx.Create(&attempt).Error; err != nil {
			return fmt.Errorf("log webhook attempt: %w", err)
		}
		updates := map[string]any{
			"attempts": gorm.Expr("attempts + 1"), "last_status": r.StatusCode, "last_error": r.Err,
			"claimed_by": "", "claimed_until": nil,
		}
		if r.Succeeded() {
			updates["state"], updates["delivered_at"] = DeliveryDelivered, now
		} else if !now.Before(d.RetryUntil) {
			updates["state"] = DeliveryFailed
		} else {
			updates["next_attempt_at"] = now.Add(Backoff(d.Attempts + 1))
		}
		res := tx.Model(&WebhookDelivery{}).Where("id = ? AND claimed_by = ?", d.ID, worker).Updates(updates)
		if res.Error != nil {
			return fmt.Errorf("update webhook delivery %d: %w", d.ID, res.Error)
		}
		if res.RowsAffected == 0 {
			return nil // another worker holds it now
		}
		if r.Succeeded() {
			return tx.Model(&WebhookEndpoint{}).Where("id = ? AND failing_since IS NOT NULL", d.EndpointID).
				Update("failing_since", nil).Error
		}
		if err := tx.Model(&WebhookEndpoint{}).Where("id = ? AND failing_since IS NULL", d.EndpointID).
			Update("failing_since", now).Error; err != nil {
			return fmt.Errorf("mark endpoint %d failing: %w", d.EndpointID, err)
		}
		reason := fmt.Sprintf("Switched off on %s: every delivery failed for %d days. The last answer: %s", now.Format("2 Jan 2006 15:04 UTC"), int(SwitchOffAfter.Hours()/24), describeAttempt(r))
		return tx.Model(&WebhookEndpoint{}).Where("id = ? AND enabled AND failing_since <= ?", d.EndpointID, now.Add(-SwitchOffAfter)).
			Updates(map[string]any{"enabled": false, "disabled_at": now, "disabled_reason": reason}).Error
	})
}

func describeAttempt(r AttemptResult) string {
	if r.Err != "" {
		return r.Err
	}
	return fmt.Sprintf("HTTP %d", r.StatusCode)
}

// EnqueueOverdueFollowUps queues follow_up.overdue for each open follow-up of a live incident
// that is past its due date, once per follow-up: the notice row is written in the same
// transaction as the deliveries, so two instances checking at once send it once. It does
// nothing while no endpoint wants the event, so follow-ups that went overdue before one did are
// announced when it is added.
func (s *Store) EnqueueOverdueFollowUps(ctx context.Context, now time.Time) (int, error) {
	queued := 0
	err := s.inWrite(ctx, func(tx *gorm.DB, _ *changes) error { // wakes the workers after commit
		var wanted int64
		if err := tx.Model(&WebhookEndpoint{}).Where("enabled AND events LIKE ?", "%"+EventFollowUpOverdue+"%").Count(&wanted).Error; err != nil {
			return fmt.Errorf("endpoints wanting overdue follow-ups: %w", err)
		}
		if wanted == 0 {
			return nil
		}
		var list []FollowUp
		err := tx.Omit(clause.Associations).Table("follow_ups").Select("follow_ups.*").
			Joins("JOIN incidents ON incidents.id = follow_ups.incident_id AND incidents.deleted_at IS NULL").
			Where("follow_ups.due_on < ? AND follow_ups.status IN ('open', 'in_progress')", today(now)).
			Where("NOT EXISTS (SELECT 1 FROM webhook_overdue_notices n WHERE n.follow_up_id = follow_ups.id)").
			Order("follow_ups.id").Limit(200).Find(&list).Error
		if err != nil {
			return fmt.Errorf("overdue follow-ups: %w", err)
		}
		for n := range list {
			res := tx.Exec("INSERT INTO webhook_overdue_notices (follow_up_id, at) VALUES (?, ?) ON CONFLICT (follow_up_id) DO NOTHING", list[n].ID, now.UTC())
			if res.Error != nil {
				return fmt.Errorf("note overdue follow-up %d: %w", list[n].ID, res.Error)
			}
			if res.RowsAffected == 0 {
				continue
			}
			if err := s.enqueueEvents(tx, outboxEvent{EventFollowUpOverdue, followUpData(&list[n])}); err != nil {
				return err
			}
			queued++
		}
		return nil
	})
	return queued, err
}

// KeepDeliveries is how long delivered and failed deliveries stay in the log.
const KeepDeliveries = 30 * 24 * time.Hour

// PruneWebhookDeliveries removes delivered and failed deliveries queued before before, with
// their attempts, and returns how many it removed. Pending ones stay whatever their age.
func (s *Store) PruneWebhookDeliveries(ctx context.Context, before time.Time) (int64, error) {
	var removed int64
	err := s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		old := "state IN ('delivered', 'failed') AND created_at < ?"
		if err := tx.Exec("DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE "+old+")", before.UTC()).Error; err != nil {
			return fmt.Errorf("prune webhook attempts: %w", err)
		}
		res := tx.Where(old, before.UTC()).Delete(&WebhookDelivery{})
		if res.Error != nil {
			return fmt.Errorf("prune webhook deliveries: %w", res.Error)
		}
		removed = res.RowsAffected
		return nil
	})
	return removed, err
}
