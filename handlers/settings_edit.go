package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// SettingsEdit shows the status page settings.
func (h *Handlers) SettingsEdit(c echo.Context) error {
	view, err := h.settingsView(c)
	if err != nil {
		return err
	}
	view.Saved = c.QueryParam("saved") == "1"
	return render(c, http.StatusOK, templates.SettingsPage(view))
}

// settingsView is the settings page with the stored values.
func (h *Handlers) settingsView(c echo.Context) (templates.SettingsView, error) {
	ctx := c.Request().Context()
	settings, err := h.Store.StatusSettings(ctx)
	if err != nil {
		return templates.SettingsView{}, err
	}
	logo, err := h.Store.StatusLogoUpdatedAt(ctx)
	if err != nil {
		return templates.SettingsView{}, err
	}
	statusURL := "/status" // on this host, whatever the base URL says
	if h.statusHost(settings) != "" {
		statusURL = h.statusURL(settings)
	}
	return templates.SettingsView{
		Page: templates.Page{Title: "Status page settings", Section: "users"}, Values: settings,
		Logo: logoPath(templates.StatusHead{}, logo), FlagStatusHost: h.StatusHost, StatusURL: statusURL,
	}, nil
}
