package importer

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"hindsight/models"
)

// FromIncident turns a stored incident back into the input and nested lists that would write it.
func FromIncident(inc *models.Incident) (models.IncidentInput, models.Children) {
	in := models.IncidentInput{
		Title: inc.Title, Summary: inc.Summary, Severity: inc.Severity, Status: inc.Status,
		DetectionMethod: inc.DetectionMethod, CustomerImpact: inc.CustomerImpact, RootCause: inc.RootCause,
		Trigger: inc.Trigger, Detection: inc.Detection, Response: inc.Response, Lessons: inc.Lessons,
		TimeZone: inc.TimeZone, PostmortemState: inc.PostmortemState, Public: inc.Public,
		Services: inc.ServiceNames(), Regions: inc.RegionNames(), Factors: inc.FactorSlugs(), Milestones: inc.Milestones(),
		Source: inc.Source, ExternalID: inc.ExternalID,
	}
	timeline := make([]models.EventInput, len(inc.Timeline))
	for n, ev := range inc.Timeline {
		timeline[n] = models.EventInput{At: ev.At, Kind: ev.Kind, Status: ev.Status, Body: ev.Body, Public: ev.Public}
	}
	windows := make([]models.WindowInput, len(inc.ImpactWindows))
	for n, w := range inc.ImpactWindows {
		windows[n] = models.WindowInput{StartedAt: w.StartedAt, EndedAt: w.EndedAt, Level: w.Level, Note: w.Note, Services: w.ServiceNames()}
	}
	followUps := make([]models.FollowUpInput, len(inc.FollowUps))
	for n, f := range inc.FollowUps {
		followUps[n] = models.FollowUpInput{
			Title: f.Title, Description: f.Description, Kind: f.Kind, Priority: f.Priority, Owner: f.Owner,
			DueOn: f.DueOn, Status: f.Status, TrackerURL: f.TrackerURL, Verification: f.Verification,
			Factors: f.FactorSlugs(),
		}
	}
	return in, models.Children{Timeline: &timeline, ImpactWindows: &windows, FollowUps: &followUps}
}

// Merge works out what an update of a stored incident by a record writes, under the rules Run
// describes, and names the fields that change. The returned Children carry only the lists that
// change, so the others, and the follow-ups' completion times with them, are left alone.
func Merge(old *models.Incident, rec Record) (models.IncidentInput, models.Children, []string) {
	in, current := FromIncident(old)
	next := rec.Input
	// The format's own details go along with any change; alone they are no reason to write.
	in.Statuspage = next.Statuspage
	var changes []string
	set := func(field string, dst *string, value string, onlyIfGiven bool) {
		if onlyIfGiven && strings.TrimSpace(value) == "" {
			return
		}
		if strings.TrimSpace(*dst) != strings.TrimSpace(value) {
			changes = append(changes, field)
			*dst = value
		}
	}
	set("title", &in.Title, next.Title, false)
	set("severity", &in.Severity, next.Severity, false)
	set("status", &in.Status, next.Status, false)
	set("summary", &in.Summary, next.Summary, true)
	set("detection_method", &in.DetectionMethod, next.DetectionMethod, true)
	set("customer_impact", &in.CustomerImpact, next.CustomerImpact, true)
	set("root_cause", &in.RootCause, next.RootCause, true)
	set("trigger", &in.Trigger, next.Trigger, true)
	set("detection", &in.Detection, next.Detection, true)
	set("response", &in.Response, next.Response, true)
	set("lessons", &in.Lessons, next.Lessons, true)
	if next.PostmortemState != "" && next.PostmortemState != "none" {
		set("postmortem_state", &in.PostmortemState, next.PostmortemState, false)
	}
	if len(next.Services) > 0 && !sameNames(in.Services, next.Services) {
		changes = append(changes, "services")
		in.Services = next.Services
	}
	if len(next.Regions) > 0 && !sameNames(in.Regions, next.Regions) {
		changes = append(changes, "regions")
		in.Regions = next.Regions
	}
	if len(next.Factors) > 0 && !sameNames(in.Factors, next.Factors) {
		changes = append(changes, "factors")
		in.Factors = next.Factors
	}
	oldTimes, newTimes := in.Milestones.List(), next.Milestones.List()
	for n, t := range newTimes {
		if t != nil && (oldTimes[n] == nil || !instant(*oldTimes[n]).Equal(instant(*t))) {
			changes = append(changes, models.MilestoneNames[n])
			*milestone(&in.Milestones, n) = t
		}
	}

	var children models.Children
	if rec.Children.Timeline != nil {
		merged := mergeTimeline(*current.Timeline, *rec.Children.Timeline)
		if !sameEvents(*current.Timeline, merged) {
			changes = append(changes, "timeline")
			children.Timeline = &merged
		}
	}
	if rec.Children.ImpactWindows != nil && len(*rec.Children.ImpactWindows) > 0 &&
		!sameWindows(*current.ImpactWindows, *rec.Children.ImpactWindows) {
		changes = append(changes, "impact_windows")
		windows := slices.Clone(*rec.Children.ImpactWindows)
		children.ImpactWindows = &windows
	}
	if rec.Children.FollowUps != nil && len(*rec.Children.FollowUps) > 0 &&
		!sameFollowUps(*current.FollowUps, *rec.Children.FollowUps) {
		changes = append(changes, "follow_ups")
		followUps := slices.Clone(*rec.Children.FollowUps)
		children.FollowUps = &followUps
	}
	return in, children, changes
}

func milestone(m *models.Milestones, n int) **time.Time {
	return []**time.Time{&m.TriggeredAt, &m.StartedAt, &m.DetectedAt, &m.AcknowledgedAt, &m.MitigatedAt, &m.ResolvedAt}[n]
}

// mergeTimeline keeps the stored events that are not status updates, adds the record's events
// (an imported note already there is not added twice) and orders everything by time, stored
// events first among equals.
func mergeTimeline(stored, imported []models.EventInput) []models.EventInput {
	var merged []models.EventInput
	kept := map[eventKey]int{}
	for _, ev := range stored {
		if ev.Kind != "status_update" {
			merged = append(merged, ev)
			kept[keyOf(ev)]++
		}
	}
	for _, ev := range imported {
		if k := keyOf(ev); kept[k] > 0 {
			kept[k]--
			continue
		}
		merged = append(merged, ev)
	}
	slices.SortStableFunc(merged, func(a, b models.EventInput) int { return a.At.Compare(b.At) })
	return merged
}

type eventKey struct {
	at                 time.Time
	kind, status, body string
	public             bool
}

func keyOf(ev models.EventInput) eventKey {
	status := ev.Status
	if ev.Kind != "status_update" {
		status = "" // the store keeps a status only on status updates
	}
	// and never shows a note to customers
	return eventKey{instant(ev.At), ev.Kind, status, ev.Body, models.EventPublic(ev.Kind, ev.Public)}
}

func sameEvents(a, b []models.EventInput) bool {
	return sameSorted(a, b, keyOf, func(x, y eventKey) int {
		return cmp.Or(x.at.Compare(y.at), cmp.Compare(x.kind, y.kind), cmp.Compare(x.status, y.status),
			cmp.Compare(x.body, y.body), compareBool(x.public, y.public))
	})
}

type windowKey struct {
	start, end  time.Time
	open        bool
	level, note string
	services    string
}

func windowKeyOf(w models.WindowInput) windowKey {
	k := windowKey{start: instant(w.StartedAt), open: w.EndedAt == nil, level: w.Level, note: w.Note, services: strings.Join(normalNames(w.Services), "\x00")}
	if w.EndedAt != nil {
		k.end = instant(*w.EndedAt)
	}
	return k
}

func sameWindows(a, b []models.WindowInput) bool {
	return sameSorted(a, b, windowKeyOf, func(x, y windowKey) int {
		return cmp.Or(x.start.Compare(y.start), x.end.Compare(y.end), compareBool(x.open, y.open),
			cmp.Compare(x.level, y.level), cmp.Compare(x.note, y.note), cmp.Compare(x.services, y.services))
	})
}

func followUpKey(f models.FollowUpInput) string {
	due := ""
	if f.DueOn != nil {
		due = f.DueOn.Format(time.DateOnly)
	}
	return strings.Join([]string{f.Title, f.Description, f.Kind, f.Priority, f.Owner, due, f.Status, f.TrackerURL, f.Verification,
		strings.Join(normalNames(f.Factors), ",")}, "\x00")
}

func sameFollowUps(a, b []models.FollowUpInput) bool {
	return sameSorted(a, b, followUpKey, strings.Compare)
}

// sameSorted compares two lists as multisets of their keys.
func sameSorted[T, K any](a, b []T, key func(T) K, compare func(K, K) int) bool {
	if len(a) != len(b) {
		return false
	}
	ka, kb := make([]K, len(a)), make([]K, len(b))
	for n := range a {
		ka[n], kb[n] = key(a[n]), key(b[n])
	}
	slices.SortFunc(ka, compare)
	slices.SortFunc(kb, compare)
	for n := range ka {
		if compare(ka[n], kb[n]) != 0 {
			return false
		}
	}
	return true
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// normalNames is a name list as the store keeps it: trimmed, without case-insensitive repeats,
// sorted.
func normalNames(names []string) []string {
	out := models.UniqueNames(names)
	slices.Sort(out)
	return out
}

func sameNames(a, b []string) bool { return slices.Equal(normalNames(a), normalNames(b)) }
