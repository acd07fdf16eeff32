package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// APIIncidentCreate answers POST /api/v1/incidents with the new incident, nested records and all.
func (h *Handlers) APIIncidentCreate(c echo.Context) error {
	body, in, children, err := readIncidentBody(c)
	if err != nil || body == nil {
		return err
	}
	if err := publishGuard(c, "none", in.PostmortemState); err != nil {
		return err
	}
	override, refused, err := h.checkPublish(c, nil, in, children, body.PublishAnyway, body.PublishReason)
	if err != nil {
		return err
	}
	if refused != nil {
		return apiPublishRefused(c, refused)
	}
	if override != nil {
		in.PostmortemState = "in_review" // published below, over the findings
	}
	inc, err := h.Store.CreateIncident(c.Request().Context(), in, children)
	if fe, ok := asFieldErrors(err); ok {
		return invalid(c, fe)
	}
	if err != nil {
		return err
	}
	if override != nil {
		if inc, err = h.publishAfterWrite(c, inc, override); err != nil {
			return err
		}
	}
	h.Similar.Queue(inc.ID)
	c.Response().Header().Set(echo.HeaderLocation, "/api/v1/incidents/"+itoa(inc.ID))
	return c.JSON(http.StatusCreated, withSources(apiIncident(inc, inc.Links), inc).wire())
}
