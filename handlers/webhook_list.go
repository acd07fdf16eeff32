package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// WebhookList shows the webhook endpoints, with a notice for each one switched off.
func (h *Handlers) WebhookList(c echo.Context) error {
	list, err := h.Store.WebhookEndpoints(c.Request().Context())
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.WebhookListPage(templates.WebhooksView{
		Page: templates.Page{Title: "Webhooks", Section: "users"}, Endpoints: list,
		Flash: h.Sessions.PopString(c.Request().Context(), "flash"),
	}))
}
