package handlers

import (
	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// EventDeleteConfirm asks before a timeline entry is deleted.
func (h *Handlers) EventDeleteConfirm(c echo.Context) error {
	return h.confirmChild(c, "timeline entry", func(inc *models.Incident, id int64) (templates.ConfirmView, bool) {
		ev, ok := findChild(inc.Timeline, id, func(e *models.TimelineEvent) int64 { return e.ID })
		if !ok {
			return templates.ConfirmView{}, false
		}
		head := templates.When(ev.At, inc.Location()) + " · " + templates.Label(ev.Kind)
		if ev.Status != "" {
			head += " · " + templates.Label(ev.Status)
		}
		if ev.Public {
			head += " · shown to customers"
		}
		details := []string{head}
		if ev.Body != "" {
			details = append(details, excerpt(ev.Body, 200))
		}
		return templates.ConfirmView{
			Question: "Delete this timeline entry of “" + inc.Title + "”?", Details: details,
			Cancel: incidentURL(inc.ID) + "#" + anchor("event", id),
		}, true
	})
}
