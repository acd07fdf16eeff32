package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// SettingsEdit shows the status page settings.
func (h *Handlers) SettingsEdit(c echo.Context) error {
	settings, err := h.Store.StatusSettings(c.Request().Context())
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.SettingsPage(templates.SettingsView{
		Page: templates.Page{Title: "Status page settings", Section: "users"}, Values: settings,
		Saved: c.QueryParam("saved") == "1",
	}))
}
