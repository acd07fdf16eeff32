package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// Recurrence shows each contributing factor with its incidents, the follow-ups addressing it and
// the flags: came back after its fix, recurs with no follow-up.
func (h *Handlers) Recurrence(c echo.Context) error {
	report, err := h.Store.Recurrence(c.Request().Context())
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.RecurrencePage(templates.RecurrenceView{
		Page: templates.Page{Title: "Recurring causes", Section: "recurrence"}, Factors: report, Shown: 10,
	}))
}
