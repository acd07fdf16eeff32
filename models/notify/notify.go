// Package notify delivers the subscribers' outbox: the status page's email and webhook
// subscribers hear of public updates and published postmortems through it.
package notify

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"time"

	"hindsight/models"
)

// Mailer sends one formatted message to one recipient (SMTP in production).
type Mailer interface {
	Send(from, to string, message []byte) error
}

// Config is how the worker sends.
type Config struct {
	Mailer   Mailer // nil: email deliveries wait until a mailer is configured
	From     string // the From address of every message
	Webhooks *Webhooks
	// BaseURL is the default for links when the settings name none.
	BaseURL string
	// Backoff is the wait after the first failure, doubled after each (with jitter) up to
	// MaxBackoff; MaxAttempts failures give a delivery up.
	Backoff     time.Duration
	MaxBackoff  time.Duration
	MaxAttempts int
	// Poll is how often the worker looks for work nobody woke it for: queued by another process
	// on the same database, or falling due after a backoff.
	Poll time.Duration
}

// Defaults: retries over about a day and a half.
const (
	DefaultBackoff     = 30 * time.Second
	DefaultMaxBackoff  = 6 * time.Hour
	DefaultMaxAttempts = 15
	DefaultPoll        = 30 * time.Second
	claimLease         = 5 * time.Minute
	claimBatch         = 50
	// componentsPace is the least time between two rounds woken by writes that may have moved a
	// component's status: a round's reads cost more than the write that woke it.
	componentsPace = 250 * time.Millisecond
)

// Worker sends the outbox's due deliveries.
type Worker struct {
	store *models.Store
	log   *slog.Logger
	cfg   Config
}

// NewWorker makes a worker; Run starts it.
func NewWorker(store *models.Store, log *slog.Logger, cfg Config) *Worker {
	if cfg.Backoff <= 0 {
		cfg.Backoff = DefaultBackoff
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = DefaultMaxBackoff
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.Webhooks == nil {
		cfg.Webhooks = NewWebhooks(0, false)
	}
	return &Worker{store: store, log: log, cfg: cfg}
}

// Run sends deliveries until ctx ends: at once when woken by the store after a commit, when the
// earliest retry falls due, and every Poll in any case. A failure or panic in one round is
// logged and the next round goes on.
func (w *Worker) Run(ctx context.Context) {
	for {
		began := time.Now()
		err := models.Safely(func() error { return w.round(ctx) })
		if err != nil && ctx.Err() == nil {
			w.log.Error("subscriber outbox", "err", err)
		}
		wait := w.cfg.Poll
		if next, nerr := w.store.NextDeliveryAt(ctx); nerr == nil && next != nil {
			wait = min(wait, time.Until(*next))
		}
		if wait <= 0 {
			if err == nil {
				continue // more fell due meanwhile
			}
			wait = w.cfg.Backoff // the database is in trouble: do not spin
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-w.store.OutboxWake():
		case <-w.store.ComponentsWake():
			// A burst of writes wakes the worker after every commit; the components' statuses
			// are looked at once per componentsPace at most, unless deliveries are queued meanwhile.
			rest := time.NewTimer(time.Until(began.Add(componentsPace)))
			select {
			case <-ctx.Done():
			case <-w.store.OutboxWake():
			case <-rest.C:
			}
			rest.Stop()
		case <-timer.C:
		}
		timer.Stop()
	}
}

// round announces the components whose status moved (models.AnnounceComponentStatuses), then
// sends what is due, batch by batch, until nothing is.
func (w *Worker) round(ctx context.Context) error {
	if _, err := w.store.AnnounceComponentStatuses(ctx, time.Now()); err != nil {
		w.log.Error("announce component statuses", "err", err) // the deliveries go on
	}
	for ctx.Err() == nil {
		// The claim is not cut short by stopping: a cancelled statement may still commit on the
		// server after the worker gave up on it, leaving deliveries held until the lease lapses.
		// Once claimed, deliveries a stopping worker does not send are handed back.
		claimCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		items, err := w.store.ClaimDeliveries(claimCtx, claimBatch, claimLease)
		cancel()
		if err != nil {
			return err
		}
		if len(items) == 0 {
			return w.sendInvitations(ctx)
		}
		c := newComposer(w.store, w.cfg)
		for n, item := range items {
			if err := w.deliver(ctx, c, item); err != nil {
				w.release(ctx, items[n+1:])
				return err
			}
		}
	}
	return nil
}

// deliver sends one delivery and records the outcome; only a failure to record is returned.
func (w *Worker) deliver(ctx context.Context, c *composer, item models.OutboxItem) error {
	note := ""
	sendErr := models.Safely(func() error {
		out, err := c.compose(ctx, item)
		if err != nil {
			return err
		}
		if out.skip != "" {
			note = out.skip
			return nil
		}
		switch item.Subscriber.Kind {
		case models.SubscriberEmail:
			if w.cfg.Mailer == nil {
				return errors.New("no SMTP server is configured (--smtp-url)")
			}
			return w.cfg.Mailer.Send(w.cfg.From, item.Subscriber.Address, out.email)
		default:
			return w.cfg.Webhooks.Post(ctx, item.Subscriber.Address, out.webhook)
		}
	})
	// The outcome is recorded even while stopping: a message sent but not recorded would go again.
	record, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if sendErr == nil {
		return w.store.DeliverySent(record, item, note)
	}
	if ctx.Err() != nil {
		// Stopping: hand the delivery back at once, so that the next worker (after a restart, say)
		// need not wait for the claim to lapse.
		w.release(ctx, []models.OutboxItem{item})
		return ctx.Err()
	}
	var retryAt *time.Time
	var permanent *permanentError
	if !errors.As(sendErr, &permanent) && item.Attempts+1 < w.cfg.MaxAttempts {
		at := time.Now().Add(w.backoff(item.Attempts))
		retryAt = &at
	}
	w.log.Warn("subscriber delivery failed", "delivery", item.DeliveryID, "kind", item.Subscriber.Kind,
		"attempt", item.Attempts+1, "retry", retryAt != nil, "err", sendErr)
	return w.store.DeliveryFailed(record, item, sendErr.Error(), retryAt)
}

// release hands claimed deliveries back unsent, due now, even while ctx is ending.
func (w *Worker) release(ctx context.Context, items []models.OutboxItem) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	for _, item := range items {
		if err := w.store.ReleaseDelivery(ctx, item); err != nil {
			w.log.Warn("release subscriber delivery", "delivery", item.DeliveryID, "err", err)
		}
	}
}

// backoff is the wait after the given number of earlier failed attempts: doubling from Backoff,
// capped at MaxBackoff, with up to a fifth more at random so that retries do not march together.
func (w *Worker) backoff(attempts int) time.Duration {
	d := w.cfg.Backoff
	for range attempts {
		if d >= w.cfg.MaxBackoff/2 {
			d = w.cfg.MaxBackoff
			break
		}
		d *= 2
	}
	d = min(d, w.cfg.MaxBackoff)
	return d + time.Duration(rand.Int64N(int64(d)/5+1))
}

// permanentError is a failure that trying again will not mend.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

func permanentIf(permanent bool, err error) error {
	if permanent && err != nil {
		return &permanentError{err}
	}
	return err
}
