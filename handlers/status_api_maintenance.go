package handlers

import (
	"context"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/models/statuspage"
)

// maintenancesDocument is the shape of Statuspage's scheduled-maintenances.json and its upcoming
// and active lists.
type maintenancesDocument struct {
	Page                  statuspage.Page       `json:"page"`
	ScheduledMaintenances []statuspage.Incident `json:"scheduled_maintenances"`
}

// StatusAPIMaintenances serves scheduled-maintenances.json, upcoming.json and active.json.
// Hindsight keeps no planned maintenance yet, so each lists none, in the shape clients expect:
// a widget that asks for them reads an empty list instead of a 404.
func (h *Handlers) StatusAPIMaintenances(c echo.Context) error {
	return h.serveStatusJSON(c, func(ctx context.Context, page statuspage.Page, loc *time.Location) (any, error) {
		return maintenancesDocument{Page: page, ScheduledMaintenances: []statuspage.Incident{}}, nil
	})
}
