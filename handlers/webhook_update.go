package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
)

// WebhookUpdate saves an endpoint's URL, events, format and whether it is on.
func (h *Handlers) WebhookUpdate(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	form, err := formValues(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	ep, err := h.Store.WebhookEndpoint(ctx, id)
	if err != nil {
		return storeError(err, "webhook endpoint")
	}
	in := webhookInput(form)
	err = h.Store.UpdateWebhookEndpoint(ctx, id, in, h.WebhooksAllowPrivate)
	var errs models.FieldErrors
	if errors.As(err, &errs) {
		return h.renderWebhook(c, http.StatusUnprocessableEntity, ep, in, errs)
	}
	if err != nil {
		return storeError(err, "webhook endpoint")
	}
	h.Sessions.Put(ctx, "flash", "Endpoint saved.")
	return seeOther(c, "/admin/webhooks/"+itoa(id))
}
