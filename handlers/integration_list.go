package handlers

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// IntegrationList shows the alerting integrations and the form that adds one.
func (h *Handlers) IntegrationList(c echo.Context) error {
	flash := ""
	if c.QueryParam("revoked") == "1" {
		flash = "Revoked: its receiver refuses every request from now on."
	}
	return h.renderIntegrations(c, http.StatusOK, templates.IntegrationsView{Flash: flash})
}

func (h *Handlers) renderIntegrations(c echo.Context, status int, v templates.IntegrationsView) error {
	ctx := c.Request().Context()
	list, err := h.Store.ListIntegrations(ctx)
	if err != nil {
		return err
	}
	base, err := h.siteBase(ctx)
	if err != nil {
		return err
	}
	v.Page = templates.Page{Title: "Alert integrations", Section: "users"}
	v.Integrations, v.BaseURL = list, strings.TrimSuffix(base, "/")
	if v.Values.Kind == "" {
		v.Values.Kind = "alertmanager"
	}
	return render(c, status, templates.IntegrationsPage(v))
}
