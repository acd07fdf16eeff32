// Package alertin reads the notifications alerting systems send (Prometheus Alertmanager,
// Grafana alerting, PagerDuty v3 webhooks, any JSON through a field mapping) into the alerts
// the store files as incidents.
package alertin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"hindsight/models"
)

// MaxAlerts is the most alerts one notification may carry: an incident's timeline holds
// models.MaxTimelineEvents entries, and Alertmanager's own default cap is far below.
const MaxAlerts = models.MaxTimelineEvents

// ReplayWindow is how old (or how far ahead) a signed PagerDuty event may be: an older one,
// however well signed, may be a recorded request sent again.
const ReplayWindow = 5 * time.Minute

// ErrMalformed marks a body that is not the sender's format; the receiver answers 400.
var ErrMalformed = errors.New("malformed notification")

// ErrReplayed marks a signed event outside ReplayWindow; the receiver answers 401.
var ErrReplayed = errors.New("the signed event is older than 5 minutes")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrMalformed)
}

func decode(body []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(dst); err != nil {
		return malformed("the body is not the expected JSON: %v", err)
	}
	if dec.More() {
		return malformed("the body holds more than one JSON value")
	}
	return nil
}

// webhookPayload is Alertmanager's webhook (version 4) and Grafana's contact point (version 1),
// which took Alertmanager's shape.
type webhookPayload struct {
	Version           string            `json:"version"`
	GroupKey          string            `json:"groupKey"`
	Status            string            `json:"status"`
	Receiver          string            `json:"receiver"`
	CommonLabels      map[string]string `json:"commonLabels"`
	CommonAnnotations map[string]string `json:"commonAnnotations"`
	ExternalURL       string            `json:"externalURL"`
	Alerts            []webhookAlert    `json:"alerts"`
}

type webhookAlert struct {
	Status       string            `json:"status"`
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations"`
	StartsAt     time.Time         `json:"startsAt"`
	EndsAt       time.Time         `json:"endsAt"`
	GeneratorURL string            `json:"generatorURL"`
	Fingerprint  string            `json:"fingerprint"`
}

// Alertmanager reads an Alertmanager webhook notification (version 4).
func Alertmanager(body []byte) ([]models.AlertNotice, error) {
	return webhook(body, "4")
}

// Grafana reads a Grafana alerting webhook contact point's notification (version 1).
func Grafana(body []byte) ([]models.AlertNotice, error) {
	return webhook(body, "1")
}

func webhook(body []byte, version string) ([]models.AlertNotice, error) {
	var p webhookPayload
	if err := decode(body, &p); err != nil {
		return nil, err
	}
	switch {
	case p.Version != "" && p.Version != version:
		return nil, malformed("version %q is not the expected %q", p.Version, version)
	case strings.TrimSpace(p.GroupKey) == "":
		return nil, malformed("groupKey is missing")
	case len(p.Alerts) == 0:
		return nil, malformed("alerts is empty")
	case len(p.Alerts) > MaxAlerts:
		return nil, malformed("%d alerts in one notification; at most %d are taken", len(p.Alerts), MaxAlerts)
	}
	out := make([]models.AlertNotice, 0, len(p.Alerts))
	for n, a := range p.Alerts {
		state := a.Status
		if state == "" {
			state = p.Status
		}
		if state != models.AlertFiring && state != models.AlertResolved {
			return nil, malformed("alerts[%d].status is %q, not firing or resolved", n, state)
		}
		labels := merged(p.CommonLabels, a.Labels)
		annotations := merged(p.CommonAnnotations, a.Annotations)
		title := labels["alertname"]
		if s := annotations["summary"]; s != "" && title == "" {
			title = s
		}
		summary := annotations["summary"]
		if summary == "" {
			summary = annotations["description"]
		}
		service := labels["service"]
		if service == "" {
			service = labels["job"]
		}
		fp := a.Fingerprint
		if fp == "" {
			fp = labelKey(labels)
		}
		notice := models.AlertNotice{
			DedupKey: p.GroupKey, Fingerprint: fp, State: state, Title: title, Summary: summary,
			Severity: labels["severity"], Service: service, URL: a.GeneratorURL,
		}
		if !a.StartsAt.IsZero() {
			t := a.StartsAt
			notice.StartsAt = &t
		}
		if !a.EndsAt.IsZero() && state == models.AlertResolved {
			t := a.EndsAt
			notice.EndsAt = &t
		}
		out = append(out, notice)
	}
	return out, nil
}

func merged(common, own map[string]string) map[string]string {
	out := make(map[string]string, len(common)+len(own))
	for k, v := range common {
		out[k] = v
	}
	for k, v := range own {
		out[k] = v
	}
	return out
}

// labelKey identifies an alert by its labels when the sender gave no fingerprint.
func labelKey(labels map[string]string) string {
	var b strings.Builder
	for _, k := range models.SortedKeys(labels) {
		b.WriteString(k + "=" + labels[k] + ",")
	}
	return b.String()
}

type pagerDutyPayload struct {
	Event struct {
		ID           string    `json:"id"`
		EventType    string    `json:"event_type"`
		ResourceType string    `json:"resource_type"`
		OccurredAt   time.Time `json:"occurred_at"`
		Data         struct {
			ID        string    `json:"id"`
			Type      string    `json:"type"`
			Title     string    `json:"title"`
			Status    string    `json:"status"`
			Urgency   string    `json:"urgency"`
			HTMLURL   string    `json:"html_url"`
			CreatedAt time.Time `json:"created_at"`
			Service   struct {
				Summary string `json:"summary"`
			} `json:"service"`
			Priority *struct {
				Summary string `json:"summary"`
			} `json:"priority"`
		} `json:"data"`
	} `json:"event"`
}

// PagerDuty reads a PagerDuty v3 webhook event whose signature was checked. Events other than an
// incident's triggering, acknowledgement and resolution are taken and do nothing (nil, nil). An
// event that occurred outside ReplayWindow of now is refused with ErrReplayed.
func PagerDuty(body []byte, now time.Time) ([]models.AlertNotice, error) {
	var p pagerDutyPayload
	if err := decode(body, &p); err != nil {
		return nil, err
	}
	ev := p.Event
	if ev.EventType == "" {
		return nil, malformed("event.event_type is missing")
	}
	if ev.OccurredAt.IsZero() {
		return nil, malformed("event.occurred_at is missing")
	}
	if age := now.Sub(ev.OccurredAt); age > ReplayWindow || age < -ReplayWindow {
		return nil, fmt.Errorf("event %s occurred at %s: %w", ev.ID, ev.OccurredAt.UTC().Format(time.RFC3339), ErrReplayed)
	}
	var state string
	switch ev.EventType {
	case "incident.triggered":
		state = models.AlertFiring
	case "incident.acknowledged":
		state = models.AlertAcknowledged
	case "incident.resolved":
		state = models.AlertResolved
	default:
		return nil, nil
	}
	d := ev.Data
	if strings.TrimSpace(d.ID) == "" {
		return nil, malformed("event.data.id, the incident's id, is missing")
	}
	severity := ""
	if d.Priority != nil {
		severity = d.Priority.Summary
	}
	if severity == "" {
		severity = map[string]string{"high": "sev2", "low": "sev3"}[d.Urgency]
	}
	at := ev.OccurredAt
	notice := models.AlertNotice{
		DedupKey: d.ID, Fingerprint: d.ID, State: state, Title: d.Title, Severity: severity,
		Service: d.Service.Summary, At: &at, URL: d.HTMLURL,
	}
	if !d.CreatedAt.IsZero() {
		t := d.CreatedAt
		notice.StartsAt = &t
	}
	if state == models.AlertResolved {
		notice.EndsAt = &at
	}
	return []models.AlertNotice{notice}, nil
}

// Generic reads any JSON alert, or an array of them, through an integration's field mapping.
func Generic(body []byte, m models.GenericMapping) ([]models.AlertNotice, error) {
	var doc any
	if err := decode(body, &doc); err != nil {
		return nil, err
	}
	var items []any
	switch v := doc.(type) {
	case []any:
		items = v
	case map[string]any:
		items = []any{v}
	default:
		return nil, malformed("the body must be a JSON object or an array of objects")
	}
	if len(items) == 0 {
		return nil, malformed("the array holds no alerts")
	}
	if len(items) > MaxAlerts {
		return nil, malformed("%d alerts in one notification; at most %d are taken", len(items), MaxAlerts)
	}
	out := make([]models.AlertNotice, 0, len(items))
	for n, item := range items {
		where := "the alert"
		if len(items) > 1 {
			where = fmt.Sprintf("alert %d", n)
		}
		text := func(path string) (string, error) {
			if path == "" {
				return "", nil
			}
			v, ok := lookup(item, path)
			if !ok || v == nil {
				return "", nil
			}
			switch x := v.(type) {
			case string:
				return x, nil
			case float64:
				return strconv.FormatFloat(x, 'f', -1, 64), nil
			case bool:
				return strconv.FormatBool(x), nil
			}
			return "", malformed("%s: the value at %s is not text or a number", where, path)
		}
		instant := func(path string) (*time.Time, error) {
			if path == "" {
				return nil, nil
			}
			v, ok := lookup(item, path)
			if !ok || v == nil || v == "" {
				return nil, nil
			}
			switch x := v.(type) {
			case string:
				t, err := time.Parse(time.RFC3339, x)
				if err != nil {
					return nil, malformed("%s: the time at %s is not RFC 3339 (2026-01-31T07:54:00Z)", where, path)
				}
				return &t, nil
			case float64:
				if x <= 0 || x > 253402300799 || math.IsNaN(x) {
					return nil, malformed("%s: the time at %s is out of range", where, path)
				}
				t := time.Unix(int64(x), 0).UTC()
				return &t, nil
			}
			return nil, malformed("%s: the time at %s is not a string or Unix seconds", where, path)
		}
		var a models.AlertNotice
		var status string
		var err error
		for _, f := range []struct {
			dst  *string
			path string
		}{{&a.Title, m.Title}, {&a.Severity, m.Severity}, {&a.Service, m.Service}, {&a.Summary, m.Summary},
			{&status, m.Status}, {&a.DedupKey, m.DedupKey}, {&a.Fingerprint, m.Fingerprint}} {
			if *f.dst, err = text(f.path); err != nil {
				return nil, err
			}
		}
		if a.StartsAt, err = instant(m.StartsAt); err != nil {
			return nil, err
		}
		if a.EndsAt, err = instant(m.EndsAt); err != nil {
			return nil, err
		}
		if strings.TrimSpace(a.Title) == "" {
			return nil, malformed("%s: no title at %s", where, m.Title)
		}
		if strings.TrimSpace(a.DedupKey) == "" {
			return nil, malformed("%s: no dedup key at %s", where, m.DedupKey)
		}
		a.State = genericState(status)
		out = append(out, a)
	}
	return out, nil
}

func genericState(status string) string {
	switch strings.ToLower(strings.TrimSpace(status)) {
	case "resolved", "ok", "closed", "recovered", "inactive", "normal":
		return models.AlertResolved
	case "acknowledged", "ack", "acked":
		return models.AlertAcknowledged
	}
	return models.AlertFiring
}

// lookup follows a dotted path ("alert.labels.service", "items.0.id") into decoded JSON.
func lookup(doc any, path string) (any, bool) {
	cur := doc
	for _, part := range strings.Split(path, ".") {
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[part]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(v) {
				return nil, false
			}
			cur = v[i]
		default:
			return nil, false
		}
	}
	return cur, true
}
