package web

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"

	"hindsight/handlers"
	"hindsight/models"
	"hindsight/templates"
)

// Route access levels. Every route in the table names one.
const (
	Public    = "public" // anyone, signed in or not
	Viewer    = models.RoleViewer
	Responder = models.RoleResponder
	Admin     = models.RoleAdmin
)

// RouteRole reads the access level a route was registered with.
func RouteRole(r *echo.Route) string { return strings.TrimPrefix(r.Name, "role:") }

// authenticate finds who is asking: an API token in Authorization: Bearer, else the session's
// user. A session from before the user's last password change no longer counts.
func authenticate(h *handlers.Handlers) echo.MiddlewareFunc {
	store, sessions := h.Store, h.Sessions
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			ctx := req.Context()
			var user *models.User
			if handlers.IsAlertReceiverPath(req.URL.Path) {
				// The bearer secret there is an integration's, which the receiver checks itself.
				return next(c)
			}
			if auth := req.Header.Get(echo.HeaderAuthorization); auth != "" {
				secret, ok := strings.CutPrefix(auth, "Bearer ")
				if !ok {
					if isMetrics(c) {
						return scrapeUnauthorized(c, "invalid_request", "Send an API token as Authorization: Bearer <token>.")
					}
					return echo.NewHTTPError(http.StatusUnauthorized, "Send the API token as Authorization: Bearer <token>.")
				}
				u, err := store.UserByToken(ctx, strings.TrimSpace(secret))
				if errors.Is(err, models.ErrNotFound) {
					if isMetrics(c) {
						return scrapeUnauthorized(c, "invalid_token", "The API token is unknown or revoked.")
					}
					return echo.NewHTTPError(http.StatusUnauthorized, "The API token is unknown or revoked.")
				}
				if err != nil {
					return err
				}
				user = u
				c.Set(handlers.ViaTokenKey, true)
			} else if id := sessions.GetInt64(ctx, handlers.SessionUserKey); id != 0 {
				u, err := store.SessionUser(ctx, id)
				switch {
				case errors.Is(err, models.ErrNotFound):
				case err != nil:
					return err
				case u.SessionEpoch == sessions.GetInt(ctx, handlers.SessionEpochKey):
					user = u
				}
				if user == nil {
					// The account is gone or its password changed since: end this session.
					if err := sessions.Destroy(ctx); err != nil {
						return err
					}
				}
			}
			if user != nil {
				c.Set(handlers.UserKey, user)
				ctx = models.WithActor(ctx, models.Actor{UserID: user.ID, Label: user.Label()})
			}
			pc := templates.PageContext{User: user}
			if _, viaToken := c.Get(handlers.ViaTokenKey).(bool); !viaToken && user != nil {
				pc.CSRF = h.CSRFToken(c)
			}
			c.SetRequest(req.WithContext(templates.WithPageContext(ctx, pc)))
			return next(c)
		}
	}
}

// authorize lets a request through only when its user's role reaches the route's. Anonymous
// visitors are sent to sign in (pages) or told 401 (API, and the metrics with a Bearer challenge).
func authorize(role string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		if role == Public {
			return next
		}
		return func(c echo.Context) error {
			user := handlers.CurrentUser(c)
			if user == nil {
				if isMetrics(c) {
					return scrapeUnauthorized(c, "", "Scraping the metrics needs an API token: Authorization: Bearer <token>.")
				}
				if isAPI(c) {
					return echo.NewHTTPError(http.StatusUnauthorized, "Sign in or send an API token as Authorization: Bearer <token>.")
				}
				if c.Request().Method == http.MethodGet {
					return c.Redirect(http.StatusSeeOther, "/login?next="+url.QueryEscape(c.Request().URL.RequestURI()))
				}
				return echo.NewHTTPError(http.StatusUnauthorized, "Your session has ended. Sign in again; what you typed was not saved.")
			}
			if !user.Can(role) {
				return echo.NewHTTPError(http.StatusForbidden, "Your role ("+user.Role+") may not do this; it needs "+role+".")
			}
			return next(c)
		}
	}
}

// csrfProtect refuses a state-changing request that carries a session but not the session's CSRF
// token (in the csrf_token form field or the X-CSRF-Token header), or that comes from another
// origin. Requests authenticated by an API token carry no ambient credentials and are exempt.
func csrfProtect(sessions *scs.SessionManager) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			switch req.Method {
			case http.MethodGet, http.MethodHead, http.MethodOptions:
				return next(c)
			}
			if viaToken, _ := c.Get(handlers.ViaTokenKey).(bool); viaToken {
				return next(c)
			}
			// Alert receivers carry no ambient credentials either: their secret is in a header
			// or a signature a browser cannot forge; the subscribers' links carry theirs in the path.
			if handlers.IsAlertReceiverPath(req.URL.Path) || csrfExempt[c.Path()] {
				return next(c)
			}
			if !sameOrigin(req) {
				return echo.NewHTTPError(http.StatusForbidden, "This request came from another site and was refused.")
			}
			want := sessions.GetString(req.Context(), handlers.SessionCSRFKey)
			got := req.Header.Get("X-CSRF-Token")
			if got == "" {
				got = c.FormValue("csrf_token")
			}
			if want == "" || subtle.ConstantTimeCompare([]byte(want), []byte(got)) != 1 {
				return echo.NewHTTPError(http.StatusForbidden, "This form has expired or did not come from Hindsight. Go back, reload the page and try again.")
			}
			return next(c)
		}
	}
}

// Subscribers' links: the secret token in the path is the credential, so a forged request from
// another site cannot name it, and a mail client's one-click unsubscribe (RFC 8058) carries no
// session at all.
const (
	subscriptionConfirmPath = "/status/subscriptions/:token/confirm"
	unsubscribePath         = "/status/unsubscribe/:token"
)

// csrfExempt are the routes whose POSTs need no CSRF token, each because of a secret in its path.
var csrfExempt = map[string]bool{subscriptionConfirmPath: true, unsubscribePath: true}

// sameOrigin checks the Origin header, when the browser sends one, against the request's host;
// Sec-Fetch-Site catches cross-site requests from browsers that omit Origin.
func sameOrigin(req *http.Request) bool {
	if site := req.Header.Get("Sec-Fetch-Site"); site == "cross-site" {
		return false
	}
	origin := req.Header.Get("Origin")
	if origin == "" || origin == "null" {
		return origin == ""
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host == req.Host
}
