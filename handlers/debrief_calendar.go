package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/models/ical"
)

// DebriefCalendar downloads the debrief's invitation as an iCalendar file.
func (h *Handlers) DebriefCalendar(c echo.Context) error {
	inc, err := h.loadIncident(c)
	if err != nil {
		return err
	}
	d, err := h.Store.DebriefOf(c.Request().Context(), inc.ID)
	if errors.Is(err, models.ErrNotFound) {
		return echo.NewHTTPError(http.StatusNotFound, "No debrief is scheduled for this incident.")
	}
	if err != nil {
		return err
	}
	event, err := h.debriefEvent(c.Request().Context(), inc, d)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="debrief-%d.ics"`, inc.ID))
	c.Response().Header().Set("Cache-Control", "private, no-store")
	return c.Blob(http.StatusOK, "text/calendar; charset=utf-8; method=REQUEST", []byte(ical.Request(event)))
}

// debriefEvent is the debrief as a calendar event: the facilitator organises it, and everyone
// invited attends, the facilitator as chair.
func (h *Handlers) debriefEvent(ctx context.Context, inc *models.Incident, d *models.Debrief) (ical.Event, error) {
	base, err := h.siteBase(ctx)
	if err != nil {
		return ical.Event{}, err
	}
	link := base + incidentURL(inc.ID)
	e := ical.Event{
		UID: d.UID, Sequence: d.Sequence, Stamp: time.Now(), Start: d.StartsAt, End: d.EndsAt(),
		Summary: fmt.Sprintf("Debrief: #%d %s", inc.ID, inc.Title),
		Description: fmt.Sprintf("Debrief of incident #%d, %s.\n\nThe incident: %s\nThe debrief's questions and notes: %s/debrief\n\n"+
			"We talk through what happened and how it looked at the time; follow-ups are decided after the meeting.",
			inc.ID, inc.Title, link, link),
		URL: link,
	}
	if d.Facilitator != nil {
		e.Organizer = ical.Person{Name: userName(d.Facilitator), Email: d.Facilitator.Email}
	}
	for _, u := range d.Attendees() {
		role := "REQ-PARTICIPANT"
		if d.FacilitatorID != nil && u.ID == *d.FacilitatorID {
			role = "CHAIR"
		}
		e.Attendees = append(e.Attendees, ical.Person{Name: userName(&u), Email: u.Email, Role: role})
	}
	return e, nil
}

func userName(u *models.User) string {
	if u.Name != "" {
		return u.Name
	}
	return u.Email
}
