package handlers

import (
	"github.com/labstack/echo/v4"
)

// WebhookDelete removes an endpoint with its deliveries and their log.
func (h *Handlers) WebhookDelete(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if err := h.Store.DeleteWebhookEndpoint(ctx, id); err != nil {
		return storeError(err, "webhook endpoint")
	}
	h.Sessions.Put(ctx, "flash", "Endpoint deleted; nothing more is sent to it.")
	return seeOther(c, "/admin/webhooks")
}
