package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// IncidentHistory shows every recorded change to an incident and its records.
func (h *Handlers) IncidentHistory(c echo.Context) error {
	inc, err := h.loadIncident(c)
	if err != nil {
		return err
	}
	entries, err := h.Store.History(c.Request().Context(), inc.ID)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.HistoryPage(templates.HistoryView{
		Page: templates.Page{Title: "History: " + inc.Title, Section: "incidents"}, Incident: inc, Entries: entries, Location: inc.Location(),
	}))
}
