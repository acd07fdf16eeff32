package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// WebhookNew shows the form for a new endpoint.
func (h *Handlers) WebhookNew(c echo.Context) error {
	return render(c, http.StatusOK, templates.WebhookNewPage(templates.WebhookFormView{
		Page:         templates.Page{Title: "Add a webhook endpoint", Section: "users"},
		Values:       models.WebhookEndpointInput{Format: models.WebhookStandard, Events: []string{models.EventIncidentCreated, models.EventPostmortemPublished}, Enabled: true},
		AllowPrivate: h.WebhooksAllowPrivate,
	}))
}
