package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// IntegrationRevoke stops an integration for good.
func (h *Handlers) IntegrationRevoke(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := h.Store.RevokeIntegration(c.Request().Context(), id); err != nil {
		return storeError(err, "integration")
	}
	return c.Redirect(http.StatusSeeOther, "/admin/integrations?revoked=1")
}
