package handlers

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// WebhookCreate adds an endpoint and shows its secret, once, on its page; bad input shows the
// form again with the reasons beside the fields.
func (h *Handlers) WebhookCreate(c echo.Context) error {
	form, err := formValues(c)
	if err != nil {
		return err
	}
	in := webhookInput(form)
	in.Enabled = true
	ctx := c.Request().Context()
	ep, err := h.Store.CreateWebhookEndpoint(ctx, in, h.WebhooksAllowPrivate)
	var errs models.FieldErrors
	if errors.As(err, &errs) {
		return render(c, http.StatusUnprocessableEntity, templates.WebhookNewPage(templates.WebhookFormView{
			Page: templates.Page{Title: "Add a webhook endpoint", Section: "users"}, Values: in, Errors: errs,
			AllowPrivate: h.WebhooksAllowPrivate,
		}))
	}
	if err != nil {
		return err
	}
	h.Sessions.Put(ctx, "webhook_secret", ep.Secret)
	return seeOther(c, "/admin/webhooks/"+itoa(ep.ID))
}

// webhookInput reads the endpoint form.
func webhookInput(form url.Values) models.WebhookEndpointInput {
	return models.WebhookEndpointInput{
		URL: strings.TrimSpace(form.Get("url")), Description: strings.TrimSpace(form.Get("description")),
		Events: form["events"], Format: form.Get("format"), Enabled: form.Get("enabled") == "true",
	}
}
