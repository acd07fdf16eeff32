package models

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Subscriber kinds.
const (
	SubscriberEmail   = "email"
	SubscriberWebhook = "webhook"
)

const (
	maxSubscriberAddress = 320
	maxSubscribedParts   = 100
	maxComponentName     = 200
)

// Subscriber follows the status page by email or webhook.
type Subscriber struct {
	ID          int64
	Kind        string
	Address     string // the email address or the webhook URL
	Token       string `json:"-"` // the key of its confirm and unsubscribe links
	ConfirmedAt *time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
	Components  []string `gorm:"-"` // followed components by name; empty for all
}

// SubscriberComponent is one component a subscriber follows, by name.
type SubscriberComponent struct {
	SubscriberID int64  `gorm:"primaryKey"`
	Component    string `gorm:"primaryKey"`
}

// SubscribeInput is what the subscribe form sends: an email address or a webhook URL, and the
// components to follow (none for all).
type SubscribeInput struct {
	Email      string
	WebhookURL string
	Components []string
	IP         string // the client's address, for the throttle
}

// Subscribe records a subscription. An email address gets a confirmation link and nothing else
// until it is followed; asking again for an address already confirmed sends it a note saying so.
// What the caller learns is the same whether or not the address was subscribed: the result says
// nothing about it, and an address asked for too often is passed over in silence. A webhook is
// live at once: its payloads carry their own unsubscribe link. Bad input comes back as
// FieldErrors (fields "email", "webhook_url", "components"), a client asking too often as
// ErrSubscribeThrottled.
func (s *Store) Subscribe(ctx context.Context, in SubscribeInput) error {
	kind, address, errs := subscribeAddress(in)
	components, problem := cleanComponents(in.Components)
	if problem != "" {
		errs.Add("components", problem)
	}
	if len(errs) > 0 {
		return errs
	}
	now := time.Now().UTC()
	err := s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if mail, err := subscribeThrottle(tx, address, in.IP, now); err != nil || !mail {
			return err // throttled by client address, or nil: the address has had its mail for now
		}
		var existing Subscriber
		err := tx.Where("kind = ? AND address = ?", kind, address).Take(&existing).Error
		switch {
		case errors.Is(err, gorm.ErrRecordNotFound):
			sub := Subscriber{Kind: kind, Address: address, Token: newSubscriberToken(), CreatedAt: now, UpdatedAt: now}
			if kind == SubscriberWebhook {
				sub.ConfirmedAt = &now
			}
			// Two requests for a new address at once: the second finds the row taken and does nothing.
			res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&sub)
			if res.Error != nil {
				return fmt.Errorf("create subscriber: %w", res.Error)
			}
			if res.RowsAffected == 0 {
				return nil
			}
			if err := setSubscriberComponents(tx, sub.ID, components); err != nil {
				return err
			}
			if kind == SubscriberEmail {
				return s.enqueueForSubscriber(tx, sub.ID, MessageConfirm)
			}
			return nil
		case err != nil:
			return fmt.Errorf("find subscriber: %w", err)
		case existing.ConfirmedAt == nil:
			// Not confirmed yet: the newer choice of components stands, and the link goes out again.
			if err := tx.Model(&existing).Update("updated_at", now).Error; err != nil {
				return fmt.Errorf("update subscriber: %w", err)
			}
			if err := setSubscriberComponents(tx, existing.ID, components); err != nil {
				return err
			}
			return s.enqueueForSubscriber(tx, existing.ID, MessageConfirm)
		case kind == SubscriberEmail:
			// Confirmed already: only the owner of the address may change the subscription, so
			// the components stay and the address is told, with its unsubscribe link.
			return s.enqueueForSubscriber(tx, existing.ID, MessageAlreadySubscribed)
		default:
			return nil // a webhook subscribed already stays as it is
		}
	})
	if err == nil {
		s.WakeOutbox()
	}
	return err
}

// subscribeAddress checks the form's one address, an email or a webhook URL.
func subscribeAddress(in SubscribeInput) (kind, address string, errs FieldErrors) {
	email, hook := strings.TrimSpace(in.Email), strings.TrimSpace(in.WebhookURL)
	switch {
	case email == "" && hook == "":
		errs.Add("email", "Enter the email address to send updates to.")
	case email != "" && hook != "":
		errs.Add("webhook_url", "Give an email address or a webhook URL, not both.")
	case email != "":
		addr, err := mail.ParseAddress(email)
		if err != nil || addr.Address != email || len(email) > maxSubscriberAddress || strings.ContainsAny(email, "\r\n") {
			errs.Add("email", "Enter an email address like name@example.com.")
			return
		}
		return SubscriberEmail, NormalizeEmail(email), nil
	default:
		if problem := WebhookURLProblem(hook); problem != "" {
			errs.Add("webhook_url", problem)
			return
		}
		return SubscriberWebhook, hook, nil
	}
	return
}

// WebhookURLProblem says what is wrong with a webhook URL a subscriber gave, or "". Where it
// points is checked again when each request is made, against the address it resolves to then.
func WebhookURLProblem(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case len(raw) > maxSubscriberAddress:
		return fmt.Sprintf("A webhook URL is at most %d characters.", maxSubscriberAddress)
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "":
		return "Enter a URL beginning with https:// (or http://)."
	case u.User != nil:
		return "Leave the user name and password out of the URL."
	case u.Fragment != "":
		return "Leave the #fragment out of the URL."
	}
	return ""
}

// cleanComponents trims, drops empty and repeated names, and checks their number and length.
func cleanComponents(names []string) ([]string, string) {
	var out []string
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" || slices.Contains(out, n) {
			continue
		}
		if len(n) > maxComponentName || strings.ContainsAny(n, "\r\n") {
			return nil, "A component name is one line of at most 200 characters."
		}
		out = append(out, n)
	}
	if len(out) > maxSubscribedParts {
		return nil, fmt.Sprintf("Choose at most %d components, or none for all of them.", maxSubscribedParts)
	}
	slices.Sort(out)
	return out, ""
}

func setSubscriberComponents(tx *gorm.DB, id int64, names []string) error {
	if err := tx.Where("subscriber_id = ?", id).Delete(&SubscriberComponent{}).Error; err != nil {
		return fmt.Errorf("clear subscriber components: %w", err)
	}
	if len(names) == 0 {
		return nil
	}
	rows := make([]SubscriberComponent, len(names))
	for n, name := range names {
		rows[n] = SubscriberComponent{SubscriberID: id, Component: name}
	}
	if err := tx.Create(&rows).Error; err != nil {
		return fmt.Errorf("set subscriber components: %w", err)
	}
	return nil
}

func newSubscriberToken() string {
	raw := make([]byte, 24)
	_, _ = rand.Read(raw) // crypto/rand.Read does not fail on supported platforms
	return base64.RawURLEncoding.EncodeToString(raw)
}

// SubscriberByToken finds the subscriber a link's token belongs to, with its components.
func (s *Store) SubscriberByToken(ctx context.Context, token string) (*Subscriber, error) {
	if token == "" || len(token) > 64 {
		return nil, fmt.Errorf("subscriber: %w", ErrNotFound)
	}
	var sub Subscriber
	if err := s.read.WithContext(ctx).Where("token = ?", token).Take(&sub).Error; err != nil {
		return nil, notFound(err, "subscriber")
	}
	if err := s.read.WithContext(ctx).Model(&SubscriberComponent{}).Where("subscriber_id = ?", sub.ID).
		Order("component").Pluck("component", &sub.Components).Error; err != nil {
		return nil, fmt.Errorf("subscriber components: %w", err)
	}
	return &sub, nil
}

// ConfirmSubscriber confirms the subscription a confirmation link's token belongs to; confirming
// twice is fine. An unknown token is ErrNotFound.
func (s *Store) ConfirmSubscriber(ctx context.Context, token string) error {
	if token == "" {
		return fmt.Errorf("subscriber: %w", ErrNotFound)
	}
	now := time.Now().UTC()
	res := s.write.WithContext(ctx).Model(&Subscriber{}).Where("token = ?", token).
		Updates(map[string]any{"confirmed_at": gorm.Expr("COALESCE(confirmed_at, ?)", now), "updated_at": now})
	if res.Error != nil {
		return fmt.Errorf("confirm subscriber: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("subscriber: %w", ErrNotFound)
	}
	return nil
}

// Unsubscribe removes the subscriber a token belongs to, and whatever was still to be sent to
// it: nothing of the address is kept. An unknown token is ErrNotFound.
func (s *Store) Unsubscribe(ctx context.Context, token string) error {
	if token == "" {
		return fmt.Errorf("subscriber: %w", ErrNotFound)
	}
	return s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var ids []int64
		if err := tx.Model(&Subscriber{}).Where("token = ?", token).Pluck("id", &ids).Error; err != nil {
			return fmt.Errorf("find subscriber: %w", err)
		}
		if len(ids) == 0 {
			return fmt.Errorf("subscriber: %w", ErrNotFound)
		}
		// The foreign keys cascade too; deleting explicitly does not depend on SQLite's pragma.
		for _, model := range []any{&SubscriberComponent{}, &subscriberDelivery{}} {
			if err := tx.Where("subscriber_id IN ?", ids).Delete(model).Error; err != nil {
				return fmt.Errorf("unsubscribe: %w", err)
			}
		}
		if err := tx.Where("id IN ?", ids).Delete(&Subscriber{}).Error; err != nil {
			return fmt.Errorf("unsubscribe: %w", err)
		}
		return nil
	})
}

// SubscriberCounts are how many follow the status page, for the admins.
type SubscriberCounts struct {
	Email    int64 // confirmed email addresses
	Pending  int64 // email addresses that have not followed their confirmation link
	Webhooks int64
	Queued   int64 // deliveries waiting to be sent or retried
	Failed   int64 // deliveries given up on
}

// SubscriberCounts counts the subscribers and the outbox.
func (s *Store) SubscriberCounts(ctx context.Context) (SubscriberCounts, error) {
	var c SubscriberCounts
	db := s.read.WithContext(ctx)
	for _, q := range []struct {
		into  *int64
		model any
		where string
		args  []any
	}{
		{&c.Email, &Subscriber{}, "kind = ? AND confirmed_at IS NOT NULL", []any{SubscriberEmail}},
		{&c.Pending, &Subscriber{}, "kind = ? AND confirmed_at IS NULL", []any{SubscriberEmail}},
		{&c.Webhooks, &Subscriber{}, "kind = ?", []any{SubscriberWebhook}},
		{&c.Queued, &subscriberDelivery{}, "sent_at IS NULL AND failed_at IS NULL", nil},
		{&c.Failed, &subscriberDelivery{}, "failed_at IS NOT NULL", nil},
	} {
		if err := db.Model(q.model).Where(q.where, q.args...).Count(q.into).Error; err != nil {
			return c, fmt.Errorf("count subscribers: %w", err)
		}
	}
	return c, nil
}
