package notify

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net/url"
	"strconv"
	"strings"
	"time"

	"hindsight/models"
	"hindsight/models/mdexport"
	"hindsight/models/statuspage"
)

// composed is one delivery ready to send, or the reason it needs none.
type composed struct {
	email   []byte
	webhook []byte
	skip    string // why nothing is sent: what it was about is no longer public
}

// composer builds messages at send time from what is public then: an update made internal again
// or an incident taken off the status page before its turn is not sent at all.
type composer struct {
	store     *models.Store
	cfg       Config
	settings  *models.StatusSettings
	incidents map[int64]*models.Incident
	overall   *statuspage.Status
}

func newComposer(store *models.Store, cfg Config) *composer {
	return &composer{store: store, cfg: cfg, incidents: map[int64]*models.Incident{}}
}

func (c *composer) pageSettings(ctx context.Context) (models.StatusSettings, error) {
	if c.settings == nil {
		s, err := c.store.StatusSettings(ctx)
		if err != nil {
			return s, err
		}
		c.settings = &s
	}
	return *c.settings, nil
}

func (c *composer) base(settings models.StatusSettings) string {
	for _, b := range []string{settings.BaseURL, c.cfg.BaseURL} {
		if b = models.NormalBaseURL(b); b != "" {
			return b
		}
	}
	return "http://localhost:8080"
}

// incident loads a public incident once per round; nil when it is no longer public.
func (c *composer) incident(ctx context.Context, id int64) (*models.Incident, error) {
	if inc, ok := c.incidents[id]; ok {
		return inc, nil
	}
	inc, err := c.store.PublicIncident(ctx, id)
	if errors.Is(err, models.ErrNotFound) {
		inc, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	c.incidents[id] = inc
	return inc, nil
}

func (c *composer) compose(ctx context.Context, item models.OutboxItem) (composed, error) {
	settings, err := c.pageSettings(ctx)
	if err != nil {
		return composed{}, err
	}
	base := c.base(settings)
	links := links{
		status:      base + "/status",
		unsubscribe: base + "/status/unsubscribe/" + url.PathEscape(item.Subscriber.Token),
		confirm:     base + "/status/subscriptions/" + url.PathEscape(item.Subscriber.Token) + "/confirm",
	}
	var m message
	switch item.Kind {
	case models.MessageConfirm:
		if item.Subscriber.ConfirmedAt != nil {
			return composed{skip: "confirmed meanwhile"}, nil
		}
		m = confirmMail(settings, item.Subscriber, links)
	case models.MessageAlreadySubscribed:
		m = alreadyMail(settings, item.Subscriber, links)
	case models.MessageUpdate, models.MessagePostmortem:
		if item.IncidentID == nil {
			return composed{skip: "no incident"}, nil
		}
		inc, err := c.incident(ctx, *item.IncidentID)
		if err != nil {
			return composed{}, err
		}
		if inc == nil {
			return composed{skip: "the incident is no longer public"}, nil
		}
		links.incident = base + "/status/incidents/" + strconv.FormatInt(inc.ID, 10)
		var update *models.TimelineEvent
		var postmortem string
		if item.Kind == models.MessageUpdate {
			for n := range inc.Timeline {
				if item.EventID != nil && inc.Timeline[n].ID == *item.EventID && inc.Timeline[n].Public {
					update = &inc.Timeline[n]
				}
			}
			if update == nil {
				return composed{skip: "the update is no longer public"}, nil
			}
			m = updateMail(settings, inc, update, links)
		} else {
			versions, err := c.store.LatestPostmortems(ctx, []int64{inc.ID})
			if err != nil {
				return composed{}, err
			}
			v := versions[inc.ID]
			if inc.PostmortemState != models.PostmortemPublished || v == nil {
				return composed{skip: "the postmortem is no longer published"}, nil
			}
			public, err := v.Public()
			if err != nil {
				return composed{}, err
			}
			postmortem = mdexport.Published(public, settings.Location())
			m = postmortemMail(settings, inc, public, links)
		}
		if item.Subscriber.Kind == models.SubscriberWebhook {
			payload, err := c.webhookPayload(ctx, settings, base, inc, postmortem, links)
			if err != nil {
				return composed{}, err
			}
			return composed{webhook: payload}, nil
		}
	case models.MessageComponentUpdate:
		if item.Subscriber.Kind != models.SubscriberWebhook {
			return composed{skip: "component updates go to webhooks only"}, nil
		}
		return c.componentUpdate(ctx, settings, base, item, links)
	default:
		return composed{skip: "unknown message kind " + item.Kind}, nil
	}
	if item.Subscriber.Kind == models.SubscriberWebhook {
		return composed{skip: "nothing to post to a webhook"}, nil
	}
	return composed{email: m.format(c.cfg.From, item.Subscriber.Address, base, item.DeliveryID, links)}, nil
}

// links are the absolute addresses a message points to.
type links struct {
	status, incident, unsubscribe, confirm string
}

// message is a mail before its headers are written.
type message struct {
	subject string
	body    string
}

func confirmMail(s models.StatusSettings, sub models.Subscriber, l links) message {
	var b strings.Builder
	fmt.Fprintf(&b, "Someone, probably you, asked to receive %s's status updates at this address", s.Name)
	b.WriteString(componentsClause(sub.Components) + ".\n\n")
	b.WriteString("To confirm, open this link and press Confirm:\n\n" + l.confirm + "\n\n")
	b.WriteString("If you did not ask for this, ignore this message: nothing more will be sent to you.\n")
	return message{subject: s.Name + ": confirm your subscription", body: b.String()}
}

func alreadyMail(s models.StatusSettings, sub models.Subscriber, l links) message {
	var b strings.Builder
	fmt.Fprintf(&b, "Someone asked to subscribe this address to %s's status updates. It is subscribed already", s.Name)
	b.WriteString(componentsClause(sub.Components) + "; nothing has changed.\n\n")
	b.WriteString("To follow other components, unsubscribe with the link below and subscribe again.\n")
	return message{subject: s.Name + ": you are already subscribed", body: b.String()}
}

func updateMail(s models.StatusSettings, inc *models.Incident, ev *models.TimelineEvent, l links) message {
	status := ev.Status
	if status == "" {
		status = inc.Status
	}
	var b strings.Builder
	b.WriteString(inc.Title + "\n\n")
	// A mail reader resolves no relative link: the images at the status page's address.
	fmt.Fprintf(&b, "%s: %s\n\n", statusLabel(status), strings.TrimSpace(models.ImageLinks(ev.Body, l.status)))
	fmt.Fprintf(&b, "Posted %s\n", ev.At.In(s.Location()).Format("Jan 2, 2006 15:04 MST"))
	if names := inc.ServiceNames(); len(names) > 0 {
		fmt.Fprintf(&b, "Affects: %s\n", strings.Join(names, ", "))
	}
	b.WriteString("\nFollow the incident: " + l.incident + "\n")
	return message{subject: fmt.Sprintf("[%s] %s: %s", s.Name, inc.Title, statusLabel(status)), body: b.String()}
}

func postmortemMail(s models.StatusSettings, inc *models.Incident, p models.PublicPostmortem, l links) message {
	var b strings.Builder
	b.WriteString("The postmortem of \"" + inc.Title + "\" is published.\n\n")
	if sum := strings.TrimSpace(p.Summary); sum != "" {
		b.WriteString(sum + "\n\n")
	}
	b.WriteString("Read it: " + l.incident + "\n")
	return message{subject: fmt.Sprintf("[%s] Postmortem: %s", s.Name, inc.Title), body: b.String()}
}

func componentsClause(components []string) string {
	if len(components) == 0 {
		return ", for every component"
	}
	return ", for " + strings.Join(components, ", ")
}

func statusLabel(status string) string {
	if status == "" {
		return "Update"
	}
	return strings.ToUpper(status[:1]) + status[1:]
}

// format writes the message with its headers. Every message carries its unsubscribe link in the
// body and in List-Unsubscribe, with List-Unsubscribe-Post for one-click unsubscription (RFC
// 8058; mailbox providers honour it when the operator's server signs these headers with DKIM).
func (m message) format(from, to, base string, deliveryID int64, l links) []byte {
	host := "hindsight"
	if u, err := url.Parse(base); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	nonce := make([]byte, 8)
	_, _ = rand.Read(nonce)
	var b bytes.Buffer
	header := func(name, value string) { b.WriteString(name + ": " + value + "\r\n") }
	header("From", from)
	header("To", to)
	header("Subject", mime.QEncoding.Encode("utf-8", m.subject))
	header("Date", time.Now().Format(time.RFC1123Z))
	header("Message-ID", fmt.Sprintf("<subscriber-%d.%s@%s>", deliveryID, hex.EncodeToString(nonce), host))
	header("MIME-Version", "1.0")
	header("Content-Type", "text/plain; charset=utf-8")
	header("Content-Transfer-Encoding", "quoted-printable")
	header("Auto-Submitted", "auto-generated")
	header("List-Unsubscribe", "<"+l.unsubscribe+">")
	header("List-Unsubscribe-Post", "List-Unsubscribe=One-Click")
	b.WriteString("\r\n")
	body := m.body + "\n-- \nYou receive this because this address subscribed to the status page at " + l.status + ".\n" +
		"Unsubscribe: " + l.unsubscribe + "\n"
	qp := quotedprintable.NewWriter(&b)
	_, _ = qp.Write([]byte(strings.ReplaceAll(body, "\n", "\r\n")))
	_ = qp.Close()
	return b.Bytes()
}

// webhookPayload is Statuspage's incident webhook: meta (with the unsubscribe link), page (with
// the page's overall status) and the incident with its public updates.
func (c *composer) webhookPayload(ctx context.Context, settings models.StatusSettings, base string, inc *models.Incident, postmortem string, l links) ([]byte, error) {
	pageObject, err := c.pageObject(ctx)
	if err != nil {
		return nil, err
	}
	page := statuspage.Page{ID: "hindsight", Name: settings.Name, URL: base + "/status", TimeZone: settings.TimeZone}
	incident := statuspage.ExportIncident(inc, page, models.StatuspageDetails{})
	incident.Shortlink = l.incident
	incident.PostmortemBody, incident.PostmortemPublishedAt = "", nil
	if postmortem != "" {
		incident.PostmortemBody = models.ImageLinks(postmortem, page.URL)
		incident.PostmortemPublishedAt = statuspage.AtPtr(inc.PublishedAt)
	}
	payload := map[string]any{
		"meta": map[string]any{
			"unsubscribe":   l.unsubscribe,
			"documentation": base + "/status/subscribe",
			"generated_at":  time.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
		},
		"page":     pageObject,
		"incident": incident,
	}
	return json.Marshal(payload)
}

// pageObject is the webhooks' "page": its id and overall status, worked out once per round.
func (c *composer) pageObject(ctx context.Context) (map[string]any, error) {
	if c.overall == nil {
		open, _, err := c.store.PublicIncidents(ctx, models.PublicFilter{OpenOnly: true, Limit: 200})
		if err != nil {
			return nil, err
		}
		var exported []statuspage.Incident
		for n := range open {
			exported = append(exported, statuspage.Incident{Status: open[n].Status, Impact: statuspage.Impact(&open[n])})
		}
		overall := statuspage.OverallStatus(exported)
		c.overall = &overall
	}
	return map[string]any{
		"id":                 "hindsight",
		"status_indicator":   c.overall.Indicator,
		"status_description": c.overall.Description,
	}, nil
}

// componentUpdate is Statuspage's component_update webhook: meta, page, the change
// (component_update, with the component's status before and after) and the component as
// components.json writes it, in its new status.
func (c *composer) componentUpdate(ctx context.Context, settings models.StatusSettings, base string, item models.OutboxItem, l links) (composed, error) {
	if item.ComponentID == nil {
		return composed{skip: "no component"}, nil
	}
	components, err := c.store.ListComponents(ctx)
	if err != nil {
		return composed{}, err
	}
	page := statuspage.Page{ID: "hindsight", Name: settings.Name, URL: base + "/status", TimeZone: settings.TimeZone}
	exported := statuspage.ExportComponents(components, map[int64]string{*item.ComponentID: item.NewStatus}, page, item.QueuedAt)
	var component *statuspage.Component
	for n := range components {
		if components[n].ID == *item.ComponentID {
			component = &exported[n]
		}
	}
	if component == nil {
		return composed{skip: "the component was removed"}, nil
	}
	pageObject, err := c.pageObject(ctx)
	if err != nil {
		return composed{}, err
	}
	id := strconv.FormatInt(*item.ComponentID, 10)
	payload := map[string]any{
		"meta": map[string]any{
			"unsubscribe":   l.unsubscribe,
			"documentation": base + "/status/subscribe",
		},
		"page": pageObject,
		"component_update": map[string]any{
			"created_at":   statuspage.At(item.QueuedAt.Truncate(time.Millisecond)),
			"new_status":   item.NewStatus,
			"old_status":   item.OldStatus,
			"id":           strconv.FormatInt(item.MessageID, 10),
			"component_id": id,
		},
		"component": component,
	}
	body, err := json.Marshal(payload)
	return composed{webhook: body}, err
}
