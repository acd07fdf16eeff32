package handlers

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// StatusIncident serves one public incident: its public updates and, while it is published, the
// version of its postmortem recorded at publication. Anything not public is a 404, the same as
// an incident that does not exist.
func (h *Handlers) StatusIncident(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	var inc *models.Incident
	if err == nil && id > 0 {
		inc, err = h.Store.PublicIncident(ctx, id)
	}
	if inc == nil {
		if err != nil && !errors.Is(err, models.ErrNotFound) && !errors.Is(err, strconv.ErrSyntax) && !errors.Is(err, strconv.ErrRange) {
			return err
		}
		head, err := h.statusHead(c, "Not found")
		if err != nil {
			return err
		}
		return render(c, http.StatusNotFound, templates.StatusNotFound(head))
	}
	head, err := h.statusHead(c, inc.Title)
	if err != nil {
		return err
	}
	versions, err := h.latestPostmortems(ctx, []models.Incident{*inc})
	if err != nil {
		return err
	}
	pm, err := publishedPostmortem(inc, versions, head.Location)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=15")
	return render(c, http.StatusOK, templates.StatusIncidentPage(statusIncidentView(head, inc, pm)))
}
