package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// historyPerPage is how many history entries one page shows: an incident edited for years
// still opens quickly.
const historyPerPage = 100

// IncidentHistory shows a page of the recorded changes to an incident and its records, newest
// first. A page past the end is an empty page.
func (h *Handlers) IncidentHistory(c echo.Context) error {
	inc, err := h.loadIncident(c)
	if err != nil {
		return err
	}
	page, offset := pageParam(c.QueryParam("page"), historyPerPage)
	// One entry more than a page tells whether an older page exists.
	entries, err := h.Store.HistoryPage(c.Request().Context(), inc.ID, historyPerPage+1, offset)
	if err != nil {
		return err
	}
	more := len(entries) > historyPerPage
	if more {
		entries = entries[:historyPerPage]
	}
	return render(c, http.StatusOK, templates.HistoryPage(templates.HistoryView{
		Page:     templates.Page{Title: "History: " + inc.Title, Section: "incidents"},
		Incident: inc, Entries: entries, Location: inc.Location(), PageNumber: page, More: more,
	}))
}
