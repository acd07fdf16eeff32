package handlers

import (
	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// WindowDeleteConfirm asks before an impact window is deleted.
func (h *Handlers) WindowDeleteConfirm(c echo.Context) error {
	return h.confirmChild(c, "impact window", func(inc *models.Incident, id int64) (templates.ConfirmView, bool) {
		w, ok := findChild(inc.ImpactWindows, id, func(w *models.ImpactWindow) int64 { return w.ID })
		if !ok {
			return templates.ConfirmView{}, false
		}
		loc := inc.Location()
		span := templates.Label(w.Level) + " from " + templates.When(w.StartedAt, loc)
		if w.EndedAt != nil {
			span += " to " + templates.When(*w.EndedAt, loc)
		}
		details := []string{span}
		if w.Note != "" {
			details = append(details, excerpt(w.Note, 200))
		}
		return templates.ConfirmView{
			Question: "Delete this impact window of “" + inc.Title + "”?", Details: details,
			Cancel: incidentURL(inc.ID) + "#" + anchor("window", id),
		}, true
	})
}
