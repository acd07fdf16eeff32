package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
)

// TemplateDefaults sets the template each severity's new incidents follow.
func (h *Handlers) TemplateDefaults(c echo.Context) error {
	form, err := formValues(c)
	if err != nil {
		return err
	}
	defaults := map[string]string{}
	for _, sev := range models.Severities {
		defaults[sev] = form.Get("default_" + sev)
	}
	err = h.Store.SetDefaultTemplates(c.Request().Context(), defaults)
	switch {
	case err == nil:
		return seeOther(c, "/admin/templates?saved=defaults")
	case errors.Is(err, models.ErrNotFound):
		return echo.NewHTTPError(http.StatusUnprocessableEntity, "Choose one of the templates listed for each severity.")
	}
	return err
}
