package handlers

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// SettingsUpdate saves the status page's name and time zone and the base URL, or shows the form
// again with the reasons beside the fields.
func (h *Handlers) SettingsUpdate(c echo.Context) error {
	form, err := formValues(c)
	if err != nil {
		return err
	}
	in := models.StatusSettings{
		Name: strings.TrimSpace(form.Get("name")), TimeZone: strings.TrimSpace(form.Get("time_zone")),
		BaseURL:    models.NormalBaseURL(form.Get("base_url")),
		StatusHost: models.NormalHost(form.Get("status_host")), SupportURL: strings.TrimSpace(form.Get("support_url")),
	}
	ctx := c.Request().Context()
	err = h.Store.SaveStatusSettings(ctx, in)
	var errs models.FieldErrors
	if errors.As(err, &errs) {
		view, err := h.settingsView(c)
		if err != nil {
			return err
		}
		view.Values, view.Errors = in, errs
		return render(c, http.StatusUnprocessableEntity, templates.SettingsPage(view))
	}
	if err != nil {
		return err
	}
	if _, err := h.RefreshStatusHost(c.Request().Context()); err != nil {
		return err
	}
	return seeOther(c, "/admin/settings?saved=1")
}
