package handlers

import (
	"bytes"
	"context"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/models/statuspage"
	"hindsight/templates"
)

// statusHomeHistory is how many past incidents the status page lists before "All past incidents".
const statusHomeHistory = 25

// StatusHome serves the public status page: the overall state, the open public incidents with
// their latest public update, the maintenance under way and to come, each component's state
// with its uptime bar, and the recent history by month.
func (h *Handlers) StatusHome(c echo.Context) error {
	return h.serveStatus(c, echo.MIMETextHTMLCharsetUTF8, func(ctx context.Context) ([]byte, error) {
		head, err := h.statusHead(c, "")
		if err != nil {
			return nil, err
		}
		open, _, err := h.Store.PublicIncidents(ctx, models.PublicFilter{OpenOnly: true, Limit: 200})
		if err != nil {
			return nil, err
		}
		now := time.Now()
		st, err := h.componentState(ctx, open, now)
		if err != nil {
			return nil, err
		}
		impacted, err := h.Store.PublicIncidentsImpactedSince(ctx, uptimeFrom(now, head.Location))
		if err != nil {
			return nil, err
		}
		history, more, err := h.Store.PublicResolvedHistory(ctx, statusHomeHistory)
		if err != nil {
			return nil, err
		}
		view := templates.StatusHomeView{Head: head}
		var exported []statuspage.Incident
		for n := range open {
			inc := &open[n]
			exported = append(exported, statuspage.Incident{Status: inc.Status, Impact: statuspage.Impact(inc)})
			card := templates.StatusCard{
				ID: inc.ID, Title: inc.Title, Status: inc.Status, Impact: statuspage.Impact(inc),
				Started: publicStart(inc), Services: inc.ServiceNames(),
			}
			if updates := models.PublicEvents(inc); len(updates) > 0 {
				card.Latest = &updates[0]
			}
			view.Open = append(view.Open, card)
		}
		overall := statuspage.OverallStatus(exported)
		view.Indicator, view.Description = overall.Indicator, overall.Description
		view.Components = statusComponentRows(st, impacted, now, head.Location)
		view.Maintenances = maintenanceCards(st.maintenances, now)
		view.History = statusMonths(history, head.Location)
		view.MoreHistory = more
		var buf bytes.Buffer
		err = templates.StatusHome(view).Render(ctx, &buf)
		return buf.Bytes(), err
	})
}
