package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// incidentShowNotice shows the incident page with a message about what was just done (a delete
// with its Undo, a restore). It is rendered for this request only, never kept: the kept body is
// the same for every viewer.
func (h *Handlers) incidentShowNotice(c echo.Context, notice *templates.Notice) error {
	inc, err := h.loadIncident(c)
	if err != nil {
		return err
	}
	view, err := h.incidentView(c, inc)
	if err != nil {
		return err
	}
	view.Notice = notice
	return render(c, http.StatusOK, templates.IncidentPage(view))
}
