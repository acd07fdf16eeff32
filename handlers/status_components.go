package handlers

import (
	"context"
	"slices"
	"time"

	"hindsight/models"
	"hindsight/templates"
)

// statusMaintenanceLimit bounds the public maintenances read for the page and its API.
const statusMaintenanceLimit = 200

// pageState is what the status page and its API know of the components at an instant: the
// components, their statuses, and the public maintenances.
type pageState struct {
	components   []models.Component
	statuses     map[int64]string
	maintenances []models.Maintenance
}

// componentState reads the components and the public maintenances, and works out each
// component's status from the open incidents and the maintenance under way.
func (h *Handlers) componentState(ctx context.Context, open []models.Incident, now time.Time) (pageState, error) {
	components, err := h.Store.ListComponents(ctx)
	if err != nil {
		return pageState{}, err
	}
	maintenances, err := h.Store.ListMaintenances(ctx, models.MaintenanceFilter{PublicOnly: true, Limit: statusMaintenanceLimit})
	if err != nil {
		return pageState{}, err
	}
	return pageState{components, models.ComponentStatuses(components, open, maintenances, now), maintenances}, nil
}

// statusComponentRows builds the page's component list: top-level components and groups in
// page order, each group's members beneath it; a component shown only when degraded is left
// out while operational. Each showcased component gets its uptime bar.
func statusComponentRows(st pageState, impacted []models.Incident, now time.Time, loc *time.Location) []templates.StatusComponentRow {
	row := func(c models.Component) templates.StatusComponentRow {
		r := templates.StatusComponentRow{ID: c.ID, Name: c.Name, Description: c.Description, Status: st.statuses[c.ID], Showcase: c.Showcase && !c.IsGroup}
		if r.Showcase {
			r.Uptime = models.ComponentUptime(c, impacted, now, loc, models.UptimeDays)
		}
		return r
	}
	hidden := func(c models.Component) bool {
		return c.OnlyShowIfDegraded && st.statuses[c.ID] == models.ComponentOperational
	}
	var rows []templates.StatusComponentRow
	for _, c := range st.components {
		if c.GroupID != nil || hidden(c) {
			continue
		}
		r := row(c)
		if c.IsGroup {
			for _, m := range st.components {
				if m.GroupID != nil && *m.GroupID == c.ID && !hidden(m) {
					r.Members = append(r.Members, row(m))
				}
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// maintenanceCards lists the maintenance under way, then that to come, soonest first.
func maintenanceCards(list []models.Maintenance, now time.Time) []templates.StatusMaintenanceCard {
	var active, upcoming []templates.StatusMaintenanceCard
	for n := range list {
		m := &list[n]
		status := m.EffectiveStatus(now)
		if status == models.MaintenanceCompleted {
			continue
		}
		card := templates.StatusMaintenanceCard{ID: m.ID, Title: m.Title, Status: status, For: m.ScheduledFor, Until: m.ScheduledUntil}
		for _, c := range m.Components {
			card.Components = append(card.Components, c.Name)
		}
		if len(m.Updates) > 0 {
			card.Latest = &m.Updates[len(m.Updates)-1]
		}
		if m.Active(now) {
			active = append(active, card)
		} else {
			upcoming = append(upcoming, card)
		}
	}
	soonest := func(a, b templates.StatusMaintenanceCard) int { return a.For.Compare(b.For) }
	slices.SortStableFunc(active, soonest)
	slices.SortStableFunc(upcoming, soonest)
	return append(active, upcoming...)
}

// uptimeFrom is the start of the first day of the uptime bars in loc.
func uptimeFrom(now time.Time, loc *time.Location) time.Time {
	t := now.In(loc)
	return time.Date(t.Year(), t.Month(), t.Day()-models.UptimeDays+1, 0, 0, 0, 0, loc)
}
