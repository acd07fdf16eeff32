package handlers

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// AccountTimeZone remembers the signed-in user's own time zone, which static/when.js reads from
// the browser once; time fields default to it from then on.
func (h *Handlers) AccountTimeZone(c echo.Context) error {
	form, err := formValues(c)
	if err != nil {
		return err
	}
	u := CurrentUser(c)
	if u == nil {
		return echo.NewHTTPError(http.StatusUnauthorized)
	}
	err = h.Store.SetUserTimeZone(c.Request().Context(), u.ID, strings.TrimSpace(form.Get("time_zone")))
	if fe, ok := asFieldErrors(err); ok {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, fe.For("time_zone"))
	}
	if err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
