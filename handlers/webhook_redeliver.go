package handlers

import (
	"github.com/labstack/echo/v4"
)

// WebhookRedeliver queues one delivery again, now, with its message id unchanged.
func (h *Handlers) WebhookRedeliver(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	delivery, err := pathID(c, "delivery")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if err := h.Store.RedeliverWebhook(ctx, id, delivery); err != nil {
		return storeError(err, "webhook delivery")
	}
	h.Sessions.Put(ctx, "flash", "Queued again; it is sent in a moment.")
	return seeOther(c, "/admin/webhooks/"+itoa(id))
}
