package handlers

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/models/ical"
)

// DebriefInvite mails the debrief's invitation to everyone invited, through the outbox and the
// SMTP server that sends subscribers' mail.
func (h *Handlers) DebriefInvite(c echo.Context) error {
	inc, err := h.loadIncident(c)
	if err != nil {
		return err
	}
	if h.Mail.SMTP == "" {
		return echo.NewHTTPError(http.StatusConflict, "No SMTP server is configured (--smtp-url), so no mail can be sent; download the invitation instead.")
	}
	ctx := c.Request().Context()
	d, err := h.Store.DebriefOf(ctx, inc.ID)
	if errors.Is(err, models.ErrNotFound) {
		return echo.NewHTTPError(http.StatusConflict, "Schedule the debrief before sending its invitation.")
	}
	if err != nil {
		return err
	}
	event, err := h.debriefEvent(ctx, inc, d)
	if err != nil {
		return err
	}
	calendar := ical.Request(event)
	when := debriefWhen(d, inc.Location())
	var invitations []models.Invitation
	for _, u := range d.Attendees() {
		role := "a participant"
		switch {
		case d.FacilitatorID != nil && u.ID == *d.FacilitatorID:
			role = "the facilitator"
		case d.NoteTakerID != nil && u.ID == *d.NoteTakerID:
			role = "the note taker"
		}
		body := fmt.Sprintf("You are invited to the debrief of incident #%d, %s, as %s.\n\nWhen: %s, %d minutes\n\n%s\n",
			inc.ID, inc.Title, role, when, d.DurationMinutes, event.Description)
		invitations = append(invitations, models.Invitation{Address: u.Email, Subject: event.Summary, Body: body, Calendar: calendar})
	}
	if err := h.Store.QueueInvitations(ctx, inc.ID, invitations); err != nil {
		return storeError(err, "incident")
	}
	return seeOther(c, incidentURL(inc.ID)+"/debrief?done=invited")
}
