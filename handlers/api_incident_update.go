package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// APIIncidentUpdate answers PUT /api/v1/incidents/{id}: the body replaces the incident's fields,
// and each nested list present replaces that list. A "version" other than the stored one is a 409.
// Publishing passes the publish check first: its findings are a 422 unless an admin publishes
// over them with "publish_anyway" and a "publish_reason".
func (h *Handlers) APIIncidentUpdate(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	body, in, children, err := readIncidentBody(c)
	if err != nil || body == nil {
		return err
	}
	if err := h.guardStoredPublish(c, id, in.PostmortemState, in.Public); err != nil {
		return err
	}
	stored, err := h.storedForPublish(c, id, in)
	if err != nil {
		return err
	}
	override, refused, err := h.checkPublish(c, stored, in, children, body.PublishAnyway, body.PublishReason)
	if err != nil {
		return err
	}
	if refused != nil {
		return apiPublishRefused(c, refused)
	}
	if override != nil {
		in.PostmortemState = stored.PostmortemState // published below, over the findings
	}
	inc, err := h.Store.UpdateIncident(c.Request().Context(), id, body.Version, in, children)
	if fe, ok := asFieldErrors(err); ok {
		return invalid(c, fe)
	}
	if err != nil {
		return storeError(err, "incident")
	}
	if override != nil {
		if inc, err = h.publishAfterWrite(c, inc, override); err != nil {
			return err
		}
	}
	h.Similar.Queue(inc.ID)
	return c.JSON(http.StatusOK, withSources(apiIncident(inc, inc.Links), inc).wire())
}
