package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// Recurrence shows each contributing factor with its incidents, the follow-ups addressing it and
// the flags: came back after its fix, recurs with no follow-up. The report lists only as many
// incidents and follow-ups per factor as the page shows; its counts cover them all.
func (h *Handlers) Recurrence(c echo.Context) error {
	report, err := h.Store.RecurrenceListing(c.Request().Context(), recurrenceShown)
	if err != nil {
		return err
	}
	fixes, err := h.Store.FixesHeldReport(c.Request().Context())
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.RecurrencePage(templates.RecurrenceView{
		Page: templates.Page{Title: "Recurring causes", Section: "recurrence"}, Factors: report, Shown: recurrenceShown,
		Fixes: fixes,
	}))
}

// recurrenceShown is how many incidents and follow-ups the page shows per factor.
const recurrenceShown = 10
