package handlers

import (
	"context"
	"encoding/json"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/models/statuspage"
)

// The Statuspage v2 read API under /status/api/v2: the same addresses, shapes, field names and
// values as Atlassian Statuspage, so existing clients and widgets read Hindsight's status page
// unchanged. Everything in it is public; widgets on other sites may read it.

// statusAPIIncidents is how many incidents incidents.json lists, as Statuspage does.
const statusAPIIncidents = 50

// statusAPIUnresolved bounds the unresolved incidents listed; a page with more is having a day
// no widget will help with.
const statusAPIUnresolved = 500

// serveStatusJSON answers a Statuspage endpoint from the cache or builds it.
func (h *Handlers) serveStatusJSON(c echo.Context, build func(ctx context.Context, page statuspage.Page, loc *time.Location) (any, error)) error {
	c.Response().Header().Set("Access-Control-Allow-Origin", "*")
	return h.serveStatus(c, echo.MIMEApplicationJSON, func(ctx context.Context) ([]byte, error) {
		settings, err := h.Store.StatusSettings(ctx)
		if err != nil {
			return nil, err
		}
		updated, err := h.Store.PublicUpdatedAt(ctx)
		if err != nil {
			return nil, err
		}
		doc, err := build(ctx, h.statusPageInfo(settings, updated), settings.Location())
		if err != nil {
			return nil, err
		}
		return json.Marshal(doc)
	})
}

// unresolvedDocument exports the open public incidents and the components' states they and the
// maintenance under way imply.
func (h *Handlers) unresolvedDocument(ctx context.Context, page statuspage.Page, loc *time.Location) ([]statuspage.Incident, []statuspage.Component, error) {
	open, _, err := h.Store.PublicIncidents(ctx, models.PublicFilter{OpenOnly: true, Limit: statusAPIUnresolved})
	if err != nil {
		return nil, nil, err
	}
	incidents, err := h.exportPublic(ctx, open, page, loc)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	st, err := h.componentState(ctx, open, now)
	if err != nil {
		return nil, nil, err
	}
	updated := now
	if page.UpdatedAt != nil {
		updated = page.UpdatedAt.Time
	}
	components := statuspage.ExportComponents(st.components, st.statuses, page, updated)
	return incidents, components, nil
}

// StatusAPISummary serves summary.json: the page, its components, its unresolved incidents and
// its overall status.
func (h *Handlers) StatusAPISummary(c echo.Context) error {
	return h.serveStatusJSON(c, func(ctx context.Context, page statuspage.Page, loc *time.Location) (any, error) {
		incidents, components, err := h.unresolvedDocument(ctx, page, loc)
		if err != nil {
			return nil, err
		}
		maintenances, err := h.exportMaintenances(ctx, maintenanceOpen, page, time.Now())
		if err != nil {
			return nil, err
		}
		return statuspage.SummaryDocument{
			Page: page, Components: components, Incidents: incidents,
			ScheduledMaintenances: maintenances, Status: statuspage.OverallStatus(incidents),
		}, nil
	})
}

// StatusAPIStatus serves status.json: the page and its overall status.
func (h *Handlers) StatusAPIStatus(c echo.Context) error {
	return h.serveStatusJSON(c, func(ctx context.Context, page statuspage.Page, loc *time.Location) (any, error) {
		incidents, _, err := h.unresolvedDocument(ctx, page, loc)
		if err != nil {
			return nil, err
		}
		return statuspage.StatusDocument{Page: page, Status: statuspage.OverallStatus(incidents)}, nil
	})
}

// StatusAPIComponents serves components.json: the services and their states.
func (h *Handlers) StatusAPIComponents(c echo.Context) error {
	return h.serveStatusJSON(c, func(ctx context.Context, page statuspage.Page, loc *time.Location) (any, error) {
		_, components, err := h.unresolvedDocument(ctx, page, loc)
		if err != nil {
			return nil, err
		}
		return statuspage.ComponentsDocument{Page: page, Components: components}, nil
	})
}

// StatusAPIIncidents serves incidents.json: the 50 most recent public incidents.
func (h *Handlers) StatusAPIIncidents(c echo.Context) error {
	return h.serveStatusJSON(c, func(ctx context.Context, page statuspage.Page, loc *time.Location) (any, error) {
		list, _, err := h.Store.PublicIncidents(ctx, models.PublicFilter{Limit: statusAPIIncidents})
		if err != nil {
			return nil, err
		}
		incidents, err := h.exportPublic(ctx, list, page, loc)
		if err != nil {
			return nil, err
		}
		return statuspage.Document{Page: page, Incidents: incidents}, nil
	})
}

// StatusAPIUnresolved serves incidents/unresolved.json: the public incidents not yet resolved.
func (h *Handlers) StatusAPIUnresolved(c echo.Context) error {
	return h.serveStatusJSON(c, func(ctx context.Context, page statuspage.Page, loc *time.Location) (any, error) {
		incidents, _, err := h.unresolvedDocument(ctx, page, loc)
		if err != nil {
			return nil, err
		}
		return statuspage.Document{Page: page, Incidents: incidents}, nil
	})
}
