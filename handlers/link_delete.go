package handlers

import (
	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// LinkDelete removes a link, from whichever end it is seen, and says so on the incident page. A
// link holds nothing but its two ends and kind, so it is made again rather than undone.
func (h *Handlers) LinkDelete(c echo.Context) error {
	incidentID, id, err := childIDs(c)
	if err != nil {
		return err
	}
	if err := h.Store.DeleteLink(c.Request().Context(), incidentID, id); err != nil {
		return storeError(err, "link")
	}
	if err := h.putNotice(c, incidentID, templates.Notice{Section: "links", Message: "Deleted the link. Link the incidents again below to bring it back."}); err != nil {
		return err
	}
	return seeOther(c, incidentURL(incidentID)+"#notice")
}
