package handlers

import (
	"context"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/models/statuspage"
)

// statusAPIMaintenances is how many maintenances scheduled-maintenances.json lists, as
// Statuspage does: the 50 most recent.
const statusAPIMaintenances = 50

// maintenanceSet picks which maintenances an endpoint lists.
type maintenanceSet int

const (
	maintenanceAll      maintenanceSet = iota // scheduled-maintenances.json: the latest, any status
	maintenanceUpcoming                       // upcoming.json: scheduled, not yet started
	maintenanceActive                         // active.json: in progress or verifying
	maintenanceOpen                           // summary.json: upcoming and active
)

// exportMaintenances writes the public maintenances of a set in Statuspage's shape: the latest
// first for the whole list, soonest first for upcoming and active ones, as Statuspage orders
// them.
func (h *Handlers) exportMaintenances(ctx context.Context, set maintenanceSet, page statuspage.Page, now time.Time) ([]statuspage.Maintenance, error) {
	open, _, err := h.Store.PublicIncidents(ctx, models.PublicFilter{OpenOnly: true, Limit: statusAPIUnresolved})
	if err != nil {
		return nil, err
	}
	st, err := h.componentState(ctx, open, now)
	if err != nil {
		return nil, err
	}
	out := []statuspage.Maintenance{}
	for n := range st.maintenances {
		m := &st.maintenances[n]
		status := m.EffectiveStatus(now)
		keep := false
		switch set {
		case maintenanceAll:
			keep = len(out) < statusAPIMaintenances
		case maintenanceUpcoming:
			keep = status == models.MaintenanceScheduled
		case maintenanceActive:
			keep = m.Active(now)
		case maintenanceOpen:
			keep = status != models.MaintenanceCompleted
		}
		if keep {
			out = append(out, statuspage.ExportMaintenance(m, st.statuses, page, now))
		}
	}
	if set != maintenanceAll {
		slices.SortStableFunc(out, func(a, b statuspage.Maintenance) int { return a.ScheduledFor.Time.Compare(b.ScheduledFor.Time) })
	}
	return out, nil
}

func (h *Handlers) serveMaintenances(c echo.Context, set maintenanceSet) error {
	return h.serveStatusJSON(c, func(ctx context.Context, page statuspage.Page, loc *time.Location) (any, error) {
		list, err := h.exportMaintenances(ctx, set, page, time.Now())
		if err != nil {
			return nil, err
		}
		return statuspage.MaintenancesDocument{Page: page, ScheduledMaintenances: list}, nil
	})
}

// StatusAPIMaintenances serves scheduled-maintenances.json: the 50 most recent public
// maintenances, whatever their status.
func (h *Handlers) StatusAPIMaintenances(c echo.Context) error {
	return h.serveMaintenances(c, maintenanceAll)
}

// StatusAPIMaintenancesUpcoming serves scheduled-maintenances/upcoming.json: those not started.
func (h *Handlers) StatusAPIMaintenancesUpcoming(c echo.Context) error {
	return h.serveMaintenances(c, maintenanceUpcoming)
}

// StatusAPIMaintenancesActive serves scheduled-maintenances/active.json: those under way.
func (h *Handlers) StatusAPIMaintenancesActive(c echo.Context) error {
	return h.serveMaintenances(c, maintenanceActive)
}
