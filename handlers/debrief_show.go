package handlers

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// DebriefShow shows the incident's debrief: when it is and who comes (or the form to schedule
// it, with everyone named in the incident suggested), the questions for what the timeline
// holds, and the notes.
func (h *Handlers) DebriefShow(c echo.Context) error {
	view, err := h.debriefPage(c)
	if err != nil {
		return err
	}
	view.Notice = noticeText(c.QueryParam("done"))
	return render(c, http.StatusOK, templates.DebriefPage(view))
}

func noticeText(done string) string {
	switch done {
	case "scheduled":
		return "The debrief is scheduled. Download the invitation, or mail it to everyone invited."
	case "invited":
		return "The invitations are on their way to everyone invited."
	case "notes":
		return "The notes are saved."
	}
	return ""
}

func (h *Handlers) debriefPage(c echo.Context) (templates.DebriefPageView, error) {
	inc, err := h.loadIncident(c)
	if err != nil {
		return templates.DebriefPageView{}, err
	}
	ctx := c.Request().Context()
	accounts, err := h.activeAccounts(c)
	if err != nil {
		return templates.DebriefPageView{}, err
	}
	view := templates.DebriefPageView{
		Page:     templates.Page{Title: "Debrief: " + inc.Title, Section: "reviews"},
		Incident: inc, Accounts: accounts, Suggested: models.SuggestedParticipants(inc, accounts),
		Questions: models.DebriefQuestions(inc.Timeline), MailReady: h.Mail.SMTP != "",
	}
	debrief, err := h.Store.DebriefOf(ctx, inc.ID)
	switch {
	case errors.Is(err, models.ErrNotFound):
		zone := inc.TimeZone
		if u := CurrentUser(c); u != nil && u.TimeZone != "" {
			zone = u.TimeZone
		}
		view.Form = templates.DebriefFormValues{TimeZone: zone, Duration: strconv.Itoa(models.DebriefDefaultMins), Participants: view.Suggested}
		if u := CurrentUser(c); u != nil && !view.IsSuggested(u.ID) {
			// Etsy's guide asks for a facilitator who was not in the incident; the person
			// scheduling it is a start.
			view.Form.FacilitatorID = u.ID
		}
	case err != nil:
		return view, err
	default:
		view.Debrief, view.Notes = debrief, debrief.Notes
		view.Form = debriefFormOf(debrief, inc)
		if view.Invitations, err = h.Store.InvitationsOf(ctx, inc.ID); err != nil {
			return view, err
		}
	}
	return view, nil
}

func debriefFormOf(d *models.Debrief, inc *models.Incident) templates.DebriefFormValues {
	loc := inc.Location()
	f := templates.DebriefFormValues{StartsAt: d.StartsAt.In(loc).Format("2006-01-02 15:04"), TimeZone: loc.String(),
		Duration: strconv.Itoa(d.DurationMinutes)}
	if d.FacilitatorID != nil {
		f.FacilitatorID = *d.FacilitatorID
	}
	if d.NoteTakerID != nil {
		f.NoteTakerID = *d.NoteTakerID
	}
	for _, u := range d.Participants {
		f.Participants = append(f.Participants, u.ID)
	}
	return f
}

// debriefWhen formats a debrief's start for mail and pages, in its incident's zone and UTC.
func debriefWhen(d *models.Debrief, loc *time.Location) string {
	return d.StartsAt.In(loc).Format("Monday 2 January 2006, 15:04 MST") + " (" + d.StartsAt.UTC().Format("15:04 UTC") + ")"
}
