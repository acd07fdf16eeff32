package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// webhookLogSize is how many of an endpoint's latest deliveries its page lists.
const webhookLogSize = 50

// WebhookShow shows one endpoint: its secret right after it was added, its form and its log.
func (h *Handlers) WebhookShow(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	ep, err := h.Store.WebhookEndpoint(ctx, id)
	if err != nil {
		return storeError(err, "webhook endpoint")
	}
	in := models.WebhookEndpointInput{URL: ep.URL, Description: ep.Description, Events: ep.EventList(), Format: ep.Format, Enabled: ep.Enabled}
	return h.renderWebhook(c, http.StatusOK, ep, in, nil)
}

func (h *Handlers) renderWebhook(c echo.Context, status int, ep *models.WebhookEndpoint, in models.WebhookEndpointInput, errs models.FieldErrors) error {
	ctx := c.Request().Context()
	deliveries, err := h.Store.WebhookDeliveries(ctx, ep.ID, webhookLogSize)
	if err != nil {
		return err
	}
	return render(c, status, templates.WebhookPage(templates.WebhookView{
		Endpoint: *ep, Deliveries: deliveries,
		Form: templates.WebhookFormView{
			Page: templates.Page{Title: "Webhook endpoint " + ep.URL, Section: "users"}, ID: ep.ID,
			Values: in, Errors: errs, AllowPrivate: h.WebhooksAllowPrivate,
		},
		NewSecret: h.Sessions.PopString(ctx, "webhook_secret"),
		Flash:     h.Sessions.PopString(ctx, "flash"),
	}))
}
