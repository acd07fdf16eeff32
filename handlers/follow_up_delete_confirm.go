package handlers

import (
	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// FollowUpDeleteConfirm asks before a follow-up action is deleted.
func (h *Handlers) FollowUpDeleteConfirm(c echo.Context) error {
	return h.confirmChild(c, "follow-up", func(inc *models.Incident, id int64) (templates.ConfirmView, bool) {
		f, ok := findChild(inc.FollowUps, id, func(f *models.FollowUp) int64 { return f.ID })
		if !ok {
			return templates.ConfirmView{}, false
		}
		meta := templates.Label(f.Status) + " · " + templates.Label(f.Priority) + " · " + templates.Label(f.Kind)
		if f.Owner != "" {
			meta += " · owner " + f.Owner
		}
		return templates.ConfirmView{
			Question: "Delete the follow-up “" + f.Title + "”?", Details: []string{meta, "Of incident “" + inc.Title + "”"},
			Cancel: incidentURL(inc.ID) + "#" + anchor("follow-up", id),
		}, true
	})
}
