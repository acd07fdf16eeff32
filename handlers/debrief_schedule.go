package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// DebriefSchedule schedules the incident's debrief, or moves it.
func (h *Handlers) DebriefSchedule(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	form, err := formValues(c)
	if err != nil {
		return err
	}
	values := templates.DebriefFormValues{
		StartsAt: strings.TrimSpace(form.Get("starts_at")), TimeZone: form.Get("time_zone"), Duration: strings.TrimSpace(form.Get("duration")),
		Participants: formIDs(form["participants"]),
	}
	values.FacilitatorID, _ = parseID(form.Get("facilitator"))
	values.NoteTakerID, _ = parseID(form.Get("note_taker"))
	var errs models.FieldErrors
	loc := formZone(values.TimeZone, &errs)
	in := models.DebriefInput{FacilitatorID: values.FacilitatorID, NoteTakerID: values.NoteTakerID, ParticipantIDs: values.Participants}
	if values.StartsAt == "" {
		errs.Add("starts_at", "Give the meeting's date and time, like 2026-03-12 15:00.")
	} else if at, _, err := models.ParseTyped(values.StartsAt, loc, nil); err != nil {
		errs.Add("starts_at", "Write a date and time like 2026-03-12 15:00.")
	} else {
		in.StartsAt = at
	}
	if n, err := strconv.Atoi(values.Duration); err == nil {
		in.DurationMinutes = n
		if n < models.DebriefMinMinutes || n > models.DebriefMaxMinutes {
			errs.Add("duration", fmt.Sprintf("Give a length between %d and %d minutes.", models.DebriefMinMinutes, models.DebriefMaxMinutes))
		}
	} else {
		errs.Add("duration", "Give the length in minutes, like 60.")
	}
	if len(errs) == 0 {
		_, err = h.Store.ScheduleDebrief(c.Request().Context(), id, in)
		var fe models.FieldErrors
		switch {
		case err == nil:
			return seeOther(c, incidentURL(id)+"/debrief?done=scheduled")
		case errors.As(err, &fe):
			errs = fe
		default:
			return storeError(err, "incident")
		}
	}
	view, err := h.debriefPage(c)
	if err != nil {
		return err
	}
	view.Form, view.Errors = values, errs
	return render(c, http.StatusUnprocessableEntity, templates.DebriefPage(view))
}
