// Package web assembles Hindsight's HTTP server: the one route table, middleware and error handling.
package web

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"hindsight/handlers"
	"hindsight/models"
	"hindsight/static"
)

// Deps is what the server needs from the outside.
type Deps struct {
	Store *models.Store
	Log   *slog.Logger
}

// BodyLimit is the largest request body accepted; larger ones get 413.
const BodyLimit = "1M"

// New builds the server with every route, ready to be served.
func New(deps Deps) *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	// The client address comes from the connection itself: headers such as X-Forwarded-For and
	// X-Real-IP are set by whoever sends the request, so they are not trusted.
	e.IPExtractor = echo.ExtractIPDirect()
	e.HTTPErrorHandler = errorHandler(deps.Log)

	e.Use(middleware.RequestID())
	e.Use(requestLogger(deps.Log))
	e.Use(middleware.Recover())
	e.Use(securityHeaders)
	e.Use(middleware.BodyLimit(BodyLimit))

	routes(e, handlers.New(deps.Store, deps.Log))
	return e
}

// routes is the whole route table, read top to bottom.
func routes(e *echo.Echo, h *handlers.Handlers) {
	e.GET("/", func(c echo.Context) error { return c.Redirect(http.StatusFound, "/incidents") })
	e.GET("/healthz", h.Healthz)
	e.GET("/readyz", h.Readyz)
	e.StaticFS("/static", static.FS)

	e.GET("/incidents", h.IncidentList)
	e.GET("/incidents/new", h.IncidentNew)
	e.POST("/incidents", h.IncidentCreate)
	e.GET("/incidents/:id", h.IncidentShow)
	e.GET("/incidents/:id/edit", h.IncidentEdit)
	e.POST("/incidents/:id/edit", h.IncidentUpdate)
	e.POST("/incidents/:id/delete", h.IncidentDelete)

	e.POST("/incidents/:id/events", h.EventCreate)
	e.POST("/incidents/:id/events/:child", h.EventUpdate)
	e.POST("/incidents/:id/events/:child/delete", h.EventDelete)
	e.POST("/incidents/:id/windows", h.WindowCreate)
	e.POST("/incidents/:id/windows/:child", h.WindowUpdate)
	e.POST("/incidents/:id/windows/:child/delete", h.WindowDelete)
	e.POST("/incidents/:id/follow-ups", h.FollowUpCreate)
	e.POST("/incidents/:id/follow-ups/:child", h.FollowUpUpdate)
	e.POST("/incidents/:id/follow-ups/:child/delete", h.FollowUpDelete)

	api := e.Group("/api/v1")
	api.GET("/incidents", h.APIIncidentList)
	api.POST("/incidents", h.APIIncidentCreate)
	api.GET("/incidents/:id", h.APIIncidentGet)
	api.PUT("/incidents/:id", h.APIIncidentUpdate)
	api.DELETE("/incidents/:id", h.APIIncidentDelete)
}

func isAPI(c echo.Context) bool { return strings.HasPrefix(c.Request().URL.Path, "/api/") }

// errorHandler answers every error: JSON under /api, a page elsewhere. Only server faults are
// logged as errors, and their detail never reaches the client.
func errorHandler(log *slog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		status, message := http.StatusInternalServerError, "Something went wrong on our side; it has been logged."
		var he *echo.HTTPError
		if errors.As(err, &he) {
			status = he.Code
			message = fmt.Sprint(he.Message)
			switch status {
			case http.StatusNotFound:
				if message == "Not Found" {
					message = "There is no page at this address."
				}
			case http.StatusRequestEntityTooLarge:
				message = "The request body is larger than 1 MiB."
			case http.StatusMethodNotAllowed:
				message = "This address does not take that method."
			}
		}
		if status >= 500 {
			log.Error("request failed", "err", err, "path", c.Request().URL.Path,
				"request_id", c.Response().Header().Get(echo.HeaderXRequestID))
			if status == http.StatusInternalServerError {
				message = "Something went wrong on our side; it has been logged."
			}
		}
		var writeErr error
		if isAPI(c) {
			if c.Request().Method == http.MethodHead {
				writeErr = c.NoContent(status)
			} else {
				writeErr = c.JSON(status, handlers.APIErrorBody(message))
			}
		} else {
			writeErr = handlers.ErrorPage(c, status, message)
		}
		if writeErr != nil {
			log.Error("write error response", "err", writeErr)
		}
	}
}

// requestLogger logs one line per request with its id, status and duration.
func requestLogger(log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil {
				c.Error(err)
			}
			req, res := c.Request(), c.Response()
			log.Info("request", "method", req.Method, "path", req.URL.Path, "status", res.Status,
				"duration_ms", float64(time.Since(start).Microseconds())/1000,
				"request_id", res.Header().Get(echo.HeaderXRequestID), "ip", c.RealIP())
			return nil
		}
	}
}

// securityHeaders forbids inline script and style, framing and MIME sniffing on every response.
func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		return next(c)
	}
}
