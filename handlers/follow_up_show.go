package handlers

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// FollowUpShow shows one follow-up: its incident, verification, tracker link and history.
func (h *Handlers) FollowUpShow(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	f, err := h.Store.GetFollowUp(ctx, id)
	if err != nil {
		return storeError(err, "follow-up")
	}
	history, err := h.Store.FollowUpHistory(ctx, id)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.FollowUpPage(templates.FollowUpView{
		Page: templates.Page{Title: f.Title, Section: "follow-ups"}, FollowUp: f, History: history,
		Location: f.Incident.Location(), Now: time.Now(),
	}))
}
