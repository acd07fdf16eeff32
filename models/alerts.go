package models

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Alert states, as the receivers normalise every sender's.
const (
	AlertFiring       = "firing"
	AlertAcknowledged = "acknowledged"
	AlertResolved     = "resolved"
)

// AlertNotice is one alert as a receiver read it, whatever system sent it.
type AlertNotice struct {
	// DedupKey groups alerts into one incident: Alertmanager's groupKey, PagerDuty's incident id.
	DedupKey string
	// Fingerprint tells the alerts of a group apart; the dedup key when the sender has none.
	Fingerprint string
	State       string
	Title       string
	Summary     string
	Severity    string // the sender's word: critical, warning, sev2, p1…
	Service     string
	StartsAt    *time.Time
	EndsAt      *time.Time
	// At is when the sender says the change happened (PagerDuty's occurred_at); the receipt when nil.
	At  *time.Time
	URL string
}

// AlertIntake is what one notification did.
type AlertIntake struct {
	Opened   []int64 `json:"opened"`   // incidents the alerts opened
	Attached []int64 `json:"attached"` // open incidents they joined
	Entries  int     `json:"timeline_entries"`
	// Ignored counts resolved alerts that matched no open incident.
	Ignored int `json:"ignored"`
}

type alertGroup struct {
	ID            int64
	IntegrationID int64
	DedupKey      string
	IncidentID    int64
	CreatedAt     time.Time
}

type alertState struct {
	IncidentID  int64
	Fingerprint string
	State       string
	UpdatedAt   time.Time
}

// ReceiveAlerts files one notification's alerts in one transaction: each group opens an incident,
// or joins the newest open incident of its dedup key; each alert whose state is new adds an
// internal timeline entry of kind alert; and the milestones nobody has recorded are suggested:
// impact start from the earliest startsAt, detection at the first receipt, acknowledgement, and
// mitigation once every alert of the incident has resolved. A milestone already recorded, typed
// or not, is never overwritten.
func (s *Store) ReceiveAlerts(ctx context.Context, integ *Integration, received time.Time, notices []AlertNotice) (AlertIntake, error) {
	var out AlertIntake
	received = received.UTC().Truncate(time.Second)
	ctx = WithActor(ctx, Actor{Label: "integration " + integ.Name})
	groups := map[string][]AlertNotice{}
	var order []string
	for _, n := range notices {
		if _, ok := groups[n.DedupKey]; !ok {
			order = append(order, n.DedupKey)
		}
		groups[n.DedupKey] = append(groups[n.DedupKey], n)
	}
	err := s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		if s.dialect == "postgres" {
			// One integration's notifications are filed one at a time across every server, so two
			// of them cannot both open an incident for the same group.
			if err := tx.Exec("SELECT id FROM integrations WHERE id = ? FOR UPDATE", integ.ID).Error; err != nil {
				return fmt.Errorf("lock integration %d: %w", integ.ID, err)
			}
		}
		if err := tx.Model(&Integration{}).Where("id = ?", integ.ID).Update("last_used_at", received).Error; err != nil {
			return fmt.Errorf("note integration use: %w", err)
		}
		for _, key := range order {
			if err := s.receiveGroup(tx, c, integ, key, groups[key], received, &out); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return AlertIntake{}, fmt.Errorf("receive alerts from integration %d: %w", integ.ID, err)
	}
	return out, nil
}

// openAlertIncident finds the newest live, unresolved incident opened for the dedup key, or 0.
func openAlertIncident(tx *gorm.DB, integrationID int64, key string) (int64, error) {
	var ids []int64
	err := tx.Raw(`SELECT g.incident_id FROM alert_groups g JOIN incidents i ON i.id = g.incident_id
		WHERE g.integration_id = ? AND g.dedup_key = ? AND i.deleted_at IS NULL AND i.status <> 'resolved'
		ORDER BY g.incident_id DESC LIMIT 1`, integrationID, key).Scan(&ids).Error
	if err != nil {
		return 0, fmt.Errorf("find the incident of alert group: %w", err)
	}
	if len(ids) == 0 {
		return 0, nil
	}
	return ids[0], nil
}

func (s *Store) receiveGroup(tx *gorm.DB, c *changes, integ *Integration, key string, notices []AlertNotice, received time.Time, out *AlertIntake) error {
	id, err := openAlertIncident(tx, integ.ID, key)
	if err != nil {
		return err
	}
	var current *Incident
	if id == 0 {
		first := -1
		for n, a := range notices {
			if a.State != AlertResolved {
				first = n
				break
			}
		}
		if first < 0 {
			out.Ignored += len(notices)
			return nil
		}
		current, err = s.createIncident(tx, c, alertIncidentInput(integ, notices, first), Children{})
		if err != nil {
			return err
		}
		id = current.ID
		if err := tx.Create(&alertGroup{IntegrationID: integ.ID, DedupKey: key, IncidentID: id, CreatedAt: received}).Error; err != nil {
			return fmt.Errorf("record alert group: %w", err)
		}
		out.Opened = append(out.Opened, id)
	} else {
		if current, err = s.getIncident(tx, id); err != nil {
			return err
		}
		if err := tx.Model(&Incident{}).Where("id = ?", id).Update("updated_at", time.Now().UTC()).Error; err != nil {
			return fmt.Errorf("touch incident %d: %w", id, err)
		}
		out.Attached = append(out.Attached, id)
	}

	states, err := alertStates(tx, id)
	if err != nil {
		return err
	}
	room := MaxTimelineEvents - len(current.Timeline)
	var changed []alertState
	for _, a := range notices {
		fp := a.Fingerprint
		if fp == "" {
			fp = key
		}
		if states[fp] == a.State {
			continue // the sender repeating itself
		}
		states[fp] = a.State
		changed = append(changed, alertState{IncidentID: id, Fingerprint: fp, State: a.State, UpdatedAt: received})
		if room <= 0 {
			continue // a full timeline keeps the alerts' states, not one more entry
		}
		room--
		ev := EventInput{At: ClampInstant(a.eventAt(received)), Kind: "alert", Body: a.timelineBody(integ, fp)}
		if _, err := insertEvent(tx, id, ev); err != nil {
			return err
		}
		c.incident(id)
		out.Entries++
	}
	if len(changed) > 0 {
		err := tx.Clauses(clause.OnConflict{
			Columns:   []clause.Column{{Name: "incident_id"}, {Name: "fingerprint"}},
			DoUpdates: clause.AssignmentColumns([]string{"state", "updated_at"}),
		}).CreateInBatches(&changed, importRowBatch).Error
		if err != nil {
			return fmt.Errorf("record alert states: %w", err)
		}
	}
	return s.suggestMilestones(tx, c, integ, current, notices, states, received)
}

func alertStates(tx *gorm.DB, incidentID int64) (map[string]string, error) {
	var rows []alertState
	if err := tx.Where("incident_id = ?", incidentID).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read alert states: %w", err)
	}
	states := make(map[string]string, len(rows))
	for _, r := range rows {
		states[r.Fingerprint] = r.State
	}
	return states, nil
}

// suggestMilestones records, from the alerts, each milestone still empty, through the incident
// update every edit takes, so the history shows it and the sources say which alert it was.
func (s *Store) suggestMilestones(tx *gorm.DB, c *changes, integ *Integration, inc *Incident, notices []AlertNotice, states map[string]string, received time.Time) error {
	m := inc.Milestones()
	details := map[string]string{}
	detail := func(a AlertNotice) string {
		fp := a.Fingerprint
		if fp == "" {
			fp = a.DedupKey
		}
		return truncate(integ.Name+" (alert "+fp+")", 500)
	}
	set := func(slot **time.Time, name string, at time.Time, a AlertNotice) {
		at = at.UTC().Truncate(time.Second)
		if !InstantInRange(at) {
			return
		}
		*slot = &at
		details[name] = detail(a)
	}
	var started *AlertNotice
	for n, a := range notices {
		if a.State != AlertResolved && a.StartsAt != nil && !a.StartsAt.IsZero() && (started == nil || a.StartsAt.Before(*started.StartsAt)) {
			started = &notices[n]
		}
	}
	if m.StartedAt == nil && started != nil {
		set(&m.StartedAt, "started_at", *started.StartsAt, *started)
	}
	if m.DetectedAt == nil {
		set(&m.DetectedAt, "detected_at", received, notices[0])
	}
	if m.AcknowledgedAt == nil {
		for _, a := range notices {
			if a.State == AlertAcknowledged {
				set(&m.AcknowledgedAt, "acknowledged_at", a.eventAt(received), a)
				break
			}
		}
	}
	if m.MitigatedAt == nil && allResolved(states) {
		var last *AlertNotice
		for n, a := range notices {
			if a.State == AlertResolved && (last == nil || a.eventAt(received).After(last.eventAt(received))) {
				last = &notices[n]
			}
		}
		if last != nil {
			set(&m.MitigatedAt, "mitigated_at", last.eventAt(received), *last)
		}
	}
	if len(details) == 0 {
		return nil
	}
	in := inputOf(inc)
	in.Milestones = m
	in.Origin = MilestoneOrigin{Kind: SourceAlert, Details: details}
	_, err := s.updateIncident(tx, c, inc.ID, 0, in, Children{})
	return err
}

func allResolved(states map[string]string) bool {
	for _, st := range states {
		if st != AlertResolved {
			return false
		}
	}
	return len(states) > 0
}

// eventAt is when the alert's change happened: its start while firing, its end once resolved,
// else when the sender says, else its receipt.
func (a AlertNotice) eventAt(received time.Time) time.Time {
	switch {
	case a.State == AlertFiring && a.StartsAt != nil && !a.StartsAt.IsZero():
		return *a.StartsAt
	case a.State == AlertResolved && a.EndsAt != nil && !a.EndsAt.IsZero():
		return *a.EndsAt
	case a.At != nil && !a.At.IsZero():
		return *a.At
	}
	return received
}

func (a AlertNotice) timelineBody(integ *Integration, fingerprint string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** %s", strings.ToUpper(a.State), escapeMarkdownLine(a.Title))
	if a.Summary != "" && a.Summary != a.Title {
		b.WriteString(": " + escapeMarkdownLine(a.Summary))
	}
	fmt.Fprintf(&b, " (%s %s, alert `%s`)", integ.Kind, escapeMarkdownLine(integ.Name), strings.ReplaceAll(fingerprint, "`", ""))
	return truncate(b.String(), 5000)
}

// escapeMarkdownLine keeps an alert's text on one line and its characters literal.
func escapeMarkdownLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	r := strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "<", `\<`, "#", `\#`)
	return r.Replace(s)
}

// alertIncidentInput is the incident a group's first active alert opens.
func alertIncidentInput(integ *Integration, notices []AlertNotice, first int) IncidentInput {
	a := notices[first]
	title := strings.TrimSpace(a.Title)
	if title == "" {
		title = "Alert from " + integ.Name
	}
	var services []string
	for _, n := range notices {
		if s := strings.TrimSpace(n.Service); s != "" && len(services) < 50 {
			services = append(services, truncate(s, 100))
		}
	}
	return IncidentInput{
		Title: truncate(title, TitleMax), Summary: truncate(a.Summary, 5000), Severity: AlertSeverity(a.Severity),
		Status: "investigating", DetectionMethod: "automated_alert", TimeZone: "UTC", PostmortemState: "none",
		Services: uniqueNames(services),
	}
}

// AlertSeverity maps a sender's severity to Hindsight's: sev1…sev4 and p1…p4 as they are,
// critical and page as sev1, error and high as sev2, warning as sev3, the rest sev4; nothing
// said is sev3.
func AlertSeverity(word string) string {
	w := strings.ToLower(strings.TrimSpace(word))
	switch w {
	case "sev1", "sev2", "sev3", "sev4":
		return w
	case "p1", "critical", "page", "fatal", "emergency":
		return "sev1"
	case "p2", "error", "high", "major":
		return "sev2"
	case "", "p3", "warning", "warn", "medium":
		return "sev3"
	}
	return "sev4"
}

// inputOf is the input that would write the incident as it stands.
func inputOf(inc *Incident) IncidentInput {
	return IncidentInput{
		Title: inc.Title, Summary: inc.Summary, Severity: inc.Severity, Status: inc.Status,
		DetectionMethod: inc.DetectionMethod, CustomerImpact: inc.CustomerImpact, RootCause: inc.RootCause,
		Trigger: inc.Trigger, Detection: inc.Detection, Response: inc.Response, Lessons: inc.Lessons,
		TimeZone: inc.TimeZone, PostmortemState: inc.PostmortemState, Public: inc.Public,
		Services: inc.ServiceNames(), Regions: inc.RegionNames(), Factors: inc.FactorSlugs(), Milestones: inc.Milestones(),
	}
}

func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	s = s[:max]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// SortedKeys lists a map's keys in order; receivers use it to read labels deterministically.
func SortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
