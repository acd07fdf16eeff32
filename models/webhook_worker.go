package models

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// DeliveryOptions configures the webhook delivery workers.
type DeliveryOptions struct {
	// Workers is how many deliveries this process sends at once; zero or less sends none.
	Workers int
	// AllowPrivate lets deliveries reach loopback, private and link-local addresses.
	AllowPrivate bool
	// BaseURL builds the links of Slack-style messages, unless the settings page names another.
	BaseURL string
	// Poll is how often the workers look for due deliveries without being woken; 5 s if zero.
	Poll time.Duration
	// OverdueEvery is how often follow-ups are checked for going overdue, and old deliveries
	// pruned; 5 min if zero.
	OverdueEvery time.Duration
	Log          *slog.Logger
}

// Lease is how long a claimed delivery is a worker's alone: longer than the requests of a
// claimed batch may take together.
const Lease = 2 * time.Minute

// claimBatch is how many deliveries a worker claims at once; each request may take 15 s.
const claimBatch = 4

// RunWebhookDeliveries sends queued deliveries until ctx ends: it starts the workers, each
// through Safely (a panic is logged and the worker goes on), and the periodic overdue check.
// Workers wake when a write in this process queued a delivery, and poll for the others'.
func (s *Store) RunWebhookDeliveries(ctx context.Context, opts DeliveryOptions) {
	if opts.Workers <= 0 {
		return
	}
	if opts.Poll <= 0 {
		opts.Poll = 5 * time.Second
	}
	if opts.OverdueEvery <= 0 {
		opts.OverdueEvery = 5 * time.Minute
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	client := WebhookClient(opts.AllowPrivate)
	host, _ := os.Hostname()
	tag := make([]byte, 4)
	_, _ = rand.Read(tag)
	done := make(chan struct{}, opts.Workers+1)
	for n := range opts.Workers {
		worker := fmt.Sprintf("%s/%d/%s/%d", host, os.Getpid(), hex.EncodeToString(tag), n)
		go func() {
			defer func() { done <- struct{}{} }()
			s.runWorker(ctx, worker, client, opts)
		}()
	}
	go func() {
		defer func() { done <- struct{}{} }()
		s.runOverdueCheck(ctx, opts)
	}()
	for range opts.Workers + 1 {
		<-done
	}
}

func (s *Store) runWorker(ctx context.Context, worker string, client *http.Client, opts DeliveryOptions) {
	poll := time.NewTicker(opts.Poll)
	defer poll.Stop()
	wake := s.webhooks.channel()
	for ctx.Err() == nil {
		sent := 0
		err := Safely(func() (err error) {
			sent, err = s.deliverDue(ctx, worker, client, opts)
			return err
		})
		if err != nil && ctx.Err() == nil {
			opts.Log.Error("webhook deliveries", "worker", worker, "err", err)
		}
		if sent > 0 {
			continue
		}
		// Writes wake the workers after they commit (afterCommit); the poll finds other
		// processes' deliveries and retries that fell due.
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-poll.C:
		}
	}
}

func (s *Store) runOverdueCheck(ctx context.Context, opts DeliveryOptions) {
	ticker := time.NewTicker(opts.OverdueEvery)
	defer ticker.Stop()
	for {
		err := Safely(func() error {
			_, err := s.EnqueueOverdueFollowUps(ctx, time.Now())
			return err
		})
		if err != nil && ctx.Err() == nil {
			opts.Log.Error("overdue follow-ups", "err", err)
		}
		err = Safely(func() error {
			_, err := s.PruneWebhookDeliveries(ctx, time.Now().Add(-KeepDeliveries))
			return err
		})
		if err != nil && ctx.Err() == nil {
			opts.Log.Error("prune webhook deliveries", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// deliverDue claims a few due deliveries and sends them one by one.
func (s *Store) deliverDue(ctx context.Context, worker string, client *http.Client, opts DeliveryOptions) (int, error) {
	claimed, err := s.ClaimWebhookDeliveries(ctx, worker, time.Now(), Lease, claimBatch)
	if err != nil || len(claimed) == 0 {
		return 0, err
	}
	if len(claimed) == claimBatch {
		s.webhooks.poke() // more may be due: wake another idle worker of this process
	}
	endpoints := map[int64]*WebhookEndpoint{}
	for n := range claimed {
		d := &claimed[n]
		ep, ok := endpoints[d.EndpointID]
		if !ok {
			if ep, err = s.WebhookEndpoint(ctx, d.EndpointID); err != nil {
				return n, err
			}
			endpoints[d.EndpointID] = ep
		}
		result := s.sendWebhook(ctx, client, ep, d, opts)
		if ctx.Err() != nil {
			return n, ctx.Err() // shutting down: the lease runs out and another worker sends it
		}
		if err := s.RecordWebhookAttempt(context.WithoutCancel(ctx), d, worker, result, time.Now()); err != nil {
			return n, err
		}
		if !result.Succeeded() {
			opts.Log.Warn("webhook delivery failed", "endpoint", ep.ID, "message", d.MessageID, "status", result.StatusCode, "err", result.Err)
		}
	}
	return len(claimed), nil
}

// responseHeadBytes is how much of an answer the log keeps; up to responseReadBytes is read so
// the connection can be reused.
const (
	responseHeadBytes = 200
	responseReadBytes = 64 << 10
)

// sendWebhook sends one delivery, signed, and says what came of it.
func (s *Store) sendWebhook(ctx context.Context, client *http.Client, ep *WebhookEndpoint, d *WebhookDelivery, opts DeliveryOptions) AttemptResult {
	body := []byte(d.Payload)
	if ep.Format == WebhookSlack {
		var err error
		if body, err = s.slackBody(ctx, d, opts.BaseURL); err != nil {
			return AttemptResult{Err: err.Error()}
		}
	}
	now := time.Now()
	signature, err := SignWebhook(ep.Secret, d.MessageID, now, body)
	if err != nil {
		return AttemptResult{Err: err.Error()}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, bytes.NewReader(body))
	if err != nil {
		return AttemptResult{Err: err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Hindsight-Webhooks/1")
	req.Header.Set("webhook-id", d.MessageID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
	req.Header.Set("webhook-signature", signature)
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		msg := err.Error()
		if errors.Is(err, ErrForbiddenAddress) {
			msg = ErrForbiddenAddress.Error()
		}
		return AttemptResult{Duration: time.Since(start), Err: msg}
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, responseReadBytes))
	result := AttemptResult{StatusCode: resp.StatusCode, Duration: time.Since(start), ResponseHead: responseHead(raw)}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		result.Err = "redirected to " + resp.Header.Get("Location") + "; redirects are not followed"
	}
	return result
}

// responseHead is the start of an answer, cut at a character boundary.
func responseHead(raw []byte) string {
	if len(raw) > responseHeadBytes {
		raw = raw[:responseHeadBytes]
		for len(raw) > 0 && !utf8.Valid(raw) {
			raw = raw[:len(raw)-1]
		}
	}
	return strings.ToValidUTF8(string(raw), "?")
}

// slackBody turns a message into what a Slack incoming webhook takes: text, and the same in a
// block, with a link to the record.
func (s *Store) slackBody(ctx context.Context, d *WebhookDelivery, baseURL string) ([]byte, error) {
	var p WebhookPayload
	if err := json.Unmarshal([]byte(d.Payload), &p); err != nil {
		return nil, fmt.Errorf("decode message %s: %w", d.MessageID, err)
	}
	if settings, err := s.StatusSettings(ctx); err == nil && settings.BaseURL != "" {
		baseURL = settings.BaseURL
	}
	baseURL = strings.TrimSuffix(baseURL, "/")
	var rec struct {
		ID             int64  `json:"id"`
		IncidentID     int64  `json:"incident_id"`
		Title          string `json:"title"`
		Severity       string `json:"severity"`
		Status         string `json:"status"`
		PreviousStatus string `json:"previous_status"`
		Kind           string `json:"kind"`
		Body           string `json:"body"`
		Owner          string `json:"owner"`
		DueOn          string `json:"due_on"`
	}
	_ = json.Unmarshal(p.Data, &rec)
	incident := rec.ID
	if rec.IncidentID != 0 {
		incident = rec.IncidentID
	}
	link := fmt.Sprintf("%s/incidents/%d", baseURL, incident)
	esc := slackEscape
	var text string
	switch p.Type {
	case EventIncidentCreated:
		text = fmt.Sprintf("New incident (%s, %s): %s", esc(words(rec.Severity)), esc(words(rec.Status)), esc(rec.Title))
	case EventIncidentUpdated:
		text = fmt.Sprintf("Incident updated: %s", esc(rec.Title))
	case EventIncidentStatusChanged:
		text = fmt.Sprintf("%s is now %s (was %s)", esc(rec.Title), esc(words(rec.Status)), esc(words(rec.PreviousStatus)))
	case EventPostmortemPublished:
		text = fmt.Sprintf("Postmortem published: %s", esc(rec.Title))
	case EventTimelineCreated:
		text = fmt.Sprintf("New %s on incident %d: %s", esc(words(rec.Kind)), incident, esc(truncateRunes(rec.Body, 300)))
	case EventFollowUpCreated, EventFollowUpUpdated:
		text = fmt.Sprintf("Follow-up %s (%s): %s", strings.TrimPrefix(p.Type, "follow_up."), esc(words(rec.Status)), esc(rec.Title))
	case EventFollowUpOverdue:
		text = fmt.Sprintf("Follow-up overdue since %s: %s (owner: %s)", esc(rec.DueOn), esc(rec.Title), esc(rec.Owner))
	default:
		text = esc(p.Type)
	}
	withLink := text + " <" + link + "|Open in Hindsight>"
	return json.Marshal(map[string]any{
		"text": withLink,
		"blocks": []any{
			map[string]any{"type": "section", "text": map[string]any{"type": "mrkdwn", "text": withLink}},
			map[string]any{"type": "context", "elements": []any{map[string]any{"type": "mrkdwn", "text": esc(p.Type)}}},
		},
	})
}

// slackEscape escapes what Slack's mrkdwn reads as markup: &, < and >.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// words writes an enum value as words: in_progress → in progress.
func words(v string) string { return strings.ReplaceAll(v, "_", " ") }
