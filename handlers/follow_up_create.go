package handlers

import (
	"context"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// FollowUpCreate adds a follow-up action from the form on the incident page.
func (h *Handlers) FollowUpCreate(c echo.Context) error {
	return childSave(h, c, false, childForm[templates.FollowUpFormValues, models.FollowUpInput]{
		parse: followUpForm,
		save: func(ctx context.Context, incidentID, _ int64, in models.FollowUpInput) (int64, error) {
			f, err := h.Store.CreateFollowUp(ctx, incidentID, in)
			if err != nil {
				return 0, err
			}
			return f.ID, nil
		},
		place: func(v *templates.IncidentView, f templates.ChildForm[templates.FollowUpFormValues]) {
			v.NewFollowUp, v.Open = f, "follow-ups"
		},
		anchor: "follow-up", what: "follow-up",
	})
}
