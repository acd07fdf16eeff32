package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// Healthz says the process is up; it touches nothing else.
func (h *Handlers) Healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// Readyz says whether the server should be sent traffic: start-up has warmed the caches, the
// database answers and every migration is applied. It asks the database once per probe and never
// retries: the prober's own interval is the retry.
func (h *Handlers) Readyz(c echo.Context) error {
	if h.Warmed != nil {
		select {
		case <-h.Warmed:
		default:
			return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": "warming up"})
		}
	}
	if err := h.Store.Ready(c.Request().Context()); err != nil {
		h.Log.Warn("not ready", "err", err)
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": err.Error()})
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
}
