package web

import (
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/handlers"
	"hindsight/models"
)

// The status host (--status-host, or the settings page) serves the status page at its root and
// nothing of the app: each address it answers is mapped onto a public /status route below, and
// every other address, /login, /api/v1 and the app's pages included, is a 404. The app's own host
// keeps serving the status page under /status, and its root stays the app's.

// statusHostPaths maps the status host's addresses to the routes that serve them; a prefix ends
// in a slash and keeps the rest of the path.
var statusHostPaths = []struct{ from, to string }{
	{"/", "/status"},
	{"/history", "/status/history"},
	{"/feed.atom", "/status/feed.atom"},
	{"/logo", "/status/logo"},
	{"/images/", "/status/images/"},
	{"/incidents/", "/status/incidents/"},
	{"/subscribe", "/status/subscribe"},
	{"/subscriptions/", "/status/subscriptions/"},
	{"/unsubscribe/", "/status/unsubscribe/"},
	{"/api/v2/", "/api/v2/"}, // Statuspage clients look at the root of the page's host
}

// statusHostStatic are the static files the status page itself loads.
var statusHostStatic = []string{"/static/style.css", "/static/favicon.svg"}

// statusHostRouting maps requests for the status host onto the status page's routes, and
// answers everything else there with the status page's 404.
func statusHostRouting(h *handlers.Handlers, log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			host, err := h.CurrentStatusHost(req.Context())
			if err != nil {
				// Without the setting no request can be told apart: fail closed, as a server fault.
				log.Error("read the status host", "err", err)
				return echo.NewHTTPError(http.StatusServiceUnavailable, "The status page is unavailable for a moment; try again.")
			}
			if host == "" || requestHost(req) != host {
				return next(c)
			}
			c.Set(handlers.OnStatusHostKey, true)
			to, ok := statusHostRoute(req.URL.Path)
			if !ok {
				// No route has this address, so the request goes through every middleware to
				// the error handler, which answers with the status page's own 404.
				to = statusHostNowhere
				if strings.HasPrefix(req.URL.Path, "/api/") {
					to = "/api/v2/" + statusHostNowhere // a JSON 404, as under /api
				}
			}
			req.URL.Path, req.URL.RawPath = to, ""
			return next(c)
		}
	}
}

// statusHostNowhere is where the status host's unserved addresses are sent: no route matches it.
const statusHostNowhere = "/.status-host/not-served"

// statusHostRoute is the route that serves an address of the status host; ok is false for
// addresses it does not serve.
func statusHostRoute(path string) (string, bool) {
	for _, f := range statusHostStatic {
		if path == f {
			return path, true
		}
	}
	for _, p := range statusHostPaths {
		if strings.HasSuffix(p.from, "/") && p.from != "/" {
			if rest, ok := strings.CutPrefix(path, p.from); ok && rest != "" {
				return p.to + rest, true
			}
			continue
		}
		if path == p.from {
			return p.to, true
		}
	}
	return "", false
}

// requestHost is the request's host name without its port, lower case.
func requestHost(req *http.Request) string {
	host := req.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return models.NormalHost(host)
}
