package models

import (
	"context"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"
)

// ComponentStatuses works out each component's status at now: under maintenance while a
// maintenance covering it (or its group) is under way, else the worst level among the open
// impact windows naming its services (ServiceLevels), else operational. Planned work explains
// the impact it causes, so maintenance wins over a window, as Statuspage sets it. A group takes
// its worst member's status.
func ComponentStatuses(components []Component, open []Incident, maintenances []Maintenance, now time.Time) map[int64]string {
	levels := ServiceLevels(open, now)
	inMaintenance := map[int64]bool{}
	for n := range maintenances {
		if maintenances[n].Active(now) {
			for _, c := range maintenances[n].Components {
				inMaintenance[c.ID] = true
			}
		}
	}
	out := map[int64]string{}
	for _, c := range components {
		if c.IsGroup {
			continue
		}
		status := ComponentOperational
		for _, sv := range c.Services {
			if s := LevelComponentStatus(levels[sv.Name]); componentRank[s] > componentRank[status] {
				status = s
			}
		}
		if inMaintenance[c.ID] || (c.GroupID != nil && inMaintenance[*c.GroupID]) {
			status = ComponentMaintenance
		}
		out[c.ID] = status
	}
	for _, c := range components {
		if !c.IsGroup {
			continue
		}
		status := ComponentOperational
		if inMaintenance[c.ID] {
			status = ComponentMaintenance
		}
		for _, m := range components {
			if m.GroupID != nil && *m.GroupID == c.ID && componentRank[out[m.ID]] > componentRank[status] {
				status = out[m.ID]
			}
		}
		out[c.ID] = status
	}
	return out
}

// UptimeDays is how many days the uptime bars cover, as Statuspage's do.
const UptimeDays = 90

// UptimeDay is one day of a component's uptime bar.
type UptimeDay struct {
	Date      time.Time // midnight in the page's zone
	NoData    bool      // before the component's start date
	Worst     string    // the worst impact level that day, "" for none
	Major     time.Duration
	Partial   time.Duration
	Degraded  time.Duration
	Incidents []UptimeIncident
}

// Affected is how long some impact lasted that day.
func (d UptimeDay) Affected() time.Duration { return d.Major + d.Partial + d.Degraded }

// UptimeIncident names an incident that affected a component on a day.
type UptimeIncident struct {
	ID    int64
	Title string
	Level string // its worst window on the component that day
}

// Uptime is a component's last UptimeDays days.
type Uptime struct {
	Days    []UptimeDay // oldest first
	Percent float64     // 100 when nothing was affected; counts only days with data
}

// levelRankModel orders impact levels from none to worst.
var levelRankModel = map[string]int{"": 0, "degraded": 1, "partial_outage": 2, "major_outage": 3}

// ComponentUptime works out a component's uptime over the days days ending with today (in loc),
// from the impact windows of the incidents that name its services (a window naming none covers
// its incident's services). Statuspage's weighting: a major outage counts in full against the
// uptime, a partial outage at 30%, degraded performance not at all. Within one level, windows
// that overlap count once; where levels overlap, the worst counts. Days before the component's
// start date have no data and do not count. Windows still open count up to now.
func ComponentUptime(c Component, incidents []Incident, now time.Time, loc *time.Location, days int) Uptime {
	covered := map[string]bool{}
	for _, sv := range c.Services {
		covered[sv.Name] = true
	}
	type span struct {
		from, to time.Time
		level    string
		incident int
		title    string
		id       int64
	}
	var spans []span
	for n := range incidents {
		inc := &incidents[n]
		for _, w := range inc.ImpactWindows {
			names := w.ServiceNames()
			if len(names) == 0 {
				names = inc.ServiceNames()
			}
			if !slices.ContainsFunc(names, func(name string) bool { return covered[name] }) {
				continue
			}
			end := now
			if e := WindowEnd(w, inc); e != nil && e.Before(now) {
				end = *e
			}
			if !end.After(w.StartedAt) {
				continue
			}
			spans = append(spans, span{from: w.StartedAt, to: end, level: w.Level, incident: n, title: inc.Title, id: inc.ID})
		}
	}
	today := now.In(loc)
	first := time.Date(today.Year(), today.Month(), today.Day()-days+1, 0, 0, 0, 0, loc)
	var start time.Time
	if c.StartDate != nil {
		if d, err := time.ParseInLocation("2006-01-02", *c.StartDate, loc); err == nil {
			start = d
		}
	}
	out := Uptime{Days: make([]UptimeDay, days)}
	var total, down float64
	for k := range days {
		dayStart := time.Date(first.Year(), first.Month(), first.Day()+k, 0, 0, 0, 0, loc)
		dayEnd := time.Date(first.Year(), first.Month(), first.Day()+k+1, 0, 0, 0, 0, loc)
		day := UptimeDay{Date: dayStart}
		if !start.IsZero() && dayEnd.Before(start.Add(time.Nanosecond)) {
			day.NoData = true
			out.Days[k] = day
			continue
		}
		if dayEnd.After(now) {
			dayEnd = now
		}
		if !dayEnd.After(dayStart) {
			out.Days[k] = day
			continue
		}
		// Cut the day at every span edge; each piece counts at the worst level covering it.
		cuts := []time.Time{dayStart, dayEnd}
		seen := map[int64]int{}
		for _, s := range spans {
			if !s.from.Before(dayEnd) || !s.to.After(dayStart) {
				continue
			}
			if s.from.After(dayStart) {
				cuts = append(cuts, s.from)
			}
			if s.to.Before(dayEnd) {
				cuts = append(cuts, s.to)
			}
			if levelRankModel[s.level] > levelRankModel[day.Worst] {
				day.Worst = s.level
			}
			if at, ok := seen[s.id]; ok {
				if levelRankModel[s.level] > levelRankModel[day.Incidents[at].Level] {
					day.Incidents[at].Level = s.level
				}
			} else {
				seen[s.id] = len(day.Incidents)
				day.Incidents = append(day.Incidents, UptimeIncident{ID: s.id, Title: s.title, Level: s.level})
			}
		}
		slices.SortFunc(cuts, func(a, b time.Time) int { return a.Compare(b) })
		for i := 0; i+1 < len(cuts); i++ {
			a, b := cuts[i], cuts[i+1]
			if !b.After(a) {
				continue
			}
			worst := ""
			for _, s := range spans {
				if !s.from.After(a) && !s.to.Before(b) && levelRankModel[s.level] > levelRankModel[worst] {
					worst = s.level
				}
			}
			switch worst {
			case "major_outage":
				day.Major += b.Sub(a)
			case "partial_outage":
				day.Partial += b.Sub(a)
			case "degraded":
				day.Degraded += b.Sub(a)
			}
		}
		total += dayEnd.Sub(dayStart).Seconds()
		down += day.Major.Seconds() + 0.3*day.Partial.Seconds()
		out.Days[k] = day
	}
	out.Percent = 100
	if total > 0 {
		out.Percent = 100 * (1 - down/total)
	}
	return out
}

// PublicIncidentsImpactedSince lists the public incidents with an impact window that had not
// ended by from, with their windows and services: what the uptime bars need, and no more (no
// timeline). A window left open takes its end from the incident's milestones (WindowEnd), so
// incidents mitigated or resolved after from are read too. The windows are found by their end
// (impact_windows_ended_idx), so the read grows with the impact of the last days, not with the
// history.
func (s *Store) PublicIncidentsImpactedSince(ctx context.Context, from time.Time) ([]Incident, error) {
	var incidents []Incident
	err := s.read.WithContext(ctx).Model(&Incident{}).
		Select("id", "title", "started_at", "mitigated_at", "resolved_at", "public", "created_at", "updated_at").
		Where("public").
		Where(`id IN (SELECT incident_id FROM impact_windows WHERE ended_at IS NULL
			UNION SELECT incident_id FROM impact_windows WHERE ended_at >= ?)`, from.UTC()).
		Where("(resolved_at IS NULL OR resolved_at >= ? OR id IN (SELECT incident_id FROM impact_windows WHERE ended_at >= ?))", from.UTC(), from.UTC()).
		Preload("Services", orderByName).
		Preload("ImpactWindows", func(db *gorm.DB) *gorm.DB {
			return db.Select("id", "incident_id", "started_at", "ended_at", "level").Order("started_at, id")
		}).
		Preload("ImpactWindows.Services", orderByName).
		Order("id").Find(&incidents).Error
	if err != nil {
		return nil, fmt.Errorf("list impacted public incidents: %w", err)
	}
	return incidents, nil
}
