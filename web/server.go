// Package web assembles Hindsight's HTTP server: the one route table, middleware and error handling.
package web

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"

	"hindsight/handlers"
	"hindsight/models"
	"hindsight/static"
)

// Deps is what the server needs from the outside.
type Deps struct {
	Store *models.Store
	Log   *slog.Logger
	// SecureCookies marks the session cookie Secure; set it whenever Hindsight is served over TLS.
	SecureCookies bool
	// TrustedProxies are the networks whose X-Forwarded-For is believed; without any, the client
	// address is the connection's.
	TrustedProxies []*net.IPNet
	// BaseURL is where people reach the server: the default for every absolute link, feed id and
	// the setup link it logs, unless the settings page names another. Never the Host header.
	BaseURL string
	// StatusHost is the status page's own host name (status.example.com): requests for it get the
	// status page at the root and nothing else. A status host saved on the settings page wins.
	StatusHost string
	// SetupToken fixes the first-run token instead of a random one; tests use it.
	SetupToken string
	// MaxInFlight caps the requests served at once; past it a request gets 503 with Retry-After
	// at once. Zero means DefaultMaxInFlight, negative means no cap.
	MaxInFlight int
	// MaxInFlightPerAddress caps the requests one client address has in flight, bodies still
	// arriving included; past it a request gets 429. Zero means DefaultMaxInFlightPerAddress,
	// negative means no cap.
	MaxInFlightPerAddress int
	// PageCacheBytes bounds the rendered incident and list pages kept in memory (see
	// handlers.Fragments). Zero means handlers.DefaultPageCacheBytes, negative keeps none.
	PageCacheBytes int
	// Warmed, when set, keeps /readyz answering 503 until it is closed: the server's start-up
	// warms its caches first.
	Warmed <-chan struct{}
	// Similar hands out incidents' similar incidents; the server runs its background ranking. When
	// nil, New makes one that ranks on views only.
	Similar *models.SimilarKeeper
	// OIDC configures sign-in with an OpenID Connect provider; off without an issuer.
	OIDC handlers.OIDCConfig
	// PasswordSignIn can turn password sign-in off for all but break-glass accounts.
	PasswordSignIn handlers.PasswordSignIn
	// SignIn, when set, is how people sign in, made by the caller from OIDC and PasswordSignIn
	// so that it can run its re-checks (handlers.SignIn.RunRechecks); New makes one otherwise.
	SignIn *handlers.SignIn
	// WebhooksAllowPrivate lets webhook endpoints name loopback, private and link-local
	// addresses (--webhooks-allow-private).
	WebhooksAllowPrivate bool
	// Mail names the SMTP server and From address of subscribers' mail, for the admins; the
	// outbox worker (models/notify) is run beside the server, not by it.
	Mail handlers.MailInfo
}

func pageCacheBytes(n int) int {
	if n == 0 {
		return handlers.DefaultPageCacheBytes
	}
	return n
}

// BodyLimit is the largest request body accepted; larger ones get 413.
const BodyLimit = "1M"

const bodyLimitBytes = 1 << 20 // BodyLimit in bytes

// Session lifetimes: a session ends after IdleTimeout without use, and after SessionLifetime
// whatever happens.
const (
	SessionLifetime = 7 * 24 * time.Hour
	IdleTimeout     = 12 * time.Hour
)

// New builds the server with every route, ready to be served.
func New(deps Deps) *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	// The client address comes from the connection itself: headers such as X-Forwarded-For and
	// X-Real-IP are set by whoever sends the request, so they are believed only from configured
	// proxies (GO-2026-6872).
	e.IPExtractor = echo.ExtractIPDirect()
	if len(deps.TrustedProxies) > 0 {
		opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
		for _, n := range deps.TrustedProxies {
			opts = append(opts, echo.TrustIPRange(n))
		}
		e.IPExtractor = echo.ExtractIPFromXFFHeader(opts...)
	}

	sessions := scs.New()
	sessions.Store = sessionStore(deps.Store, sessions.Codec)
	sessions.Lifetime = SessionLifetime
	sessions.IdleTimeout = IdleTimeout
	sessions.Cookie.Name = "hindsight_session"
	sessions.Cookie.HttpOnly = true
	sessions.Cookie.SameSite = http.SameSiteLaxMode
	sessions.Cookie.Secure = deps.SecureCookies
	sessions.ErrorFunc = func(w http.ResponseWriter, r *http.Request, err error) {
		deps.Log.Error("session", "err", err)
		http.Error(w, "Something went wrong on our side; it has been logged.", http.StatusInternalServerError)
	}

	if deps.Similar == nil {
		deps.Similar = models.NewSimilarKeeper(deps.Store, deps.Log)
	}
	h := &handlers.Handlers{Store: deps.Store, Log: deps.Log, BaseURL: deps.BaseURL, Sessions: sessions, Similar: deps.Similar, Fragments: handlers.NewFragments(pageCacheBytes(deps.PageCacheBytes)), Warmed: deps.Warmed}
	h.SignIn = deps.SignIn
	if h.SignIn == nil {
		h.SignIn = handlers.NewSignIn(deps.Store, deps.Log, deps.OIDC, deps.PasswordSignIn)
	}
	h.WebhooksAllowPrivate = deps.WebhooksAllowPrivate
	h.Mail = deps.Mail
	h.StatusHost = deps.StatusHost
	if _, err := h.RefreshStatusHost(context.Background()); err != nil {
		deps.Log.Error("read the status host", "err", err)
	}
	e.HTTPErrorHandler = errorHandler(deps.Log, h)
	if n, err := deps.Store.CountUsers(context.Background()); err == nil && n == 0 {
		h.SetupToken = deps.SetupToken
		if h.SetupToken == "" {
			h.SetupToken = randomToken()
		}
		deps.Log.Warn("no account exists yet: open the setup page to create the first admin",
			"url", strings.TrimSuffix(deps.BaseURL, "/")+"/setup?token="+h.SetupToken)
	}

	// Before routing: a request for the status host is mapped onto the status page's routes, or
	// refused, so that host serves nothing of the app.
	e.Pre(statusHostRouting(h, deps.Log))
	e.Use(middleware.RequestID())
	metrics := newMetrics(deps.Store, deps.Log)
	e.Use(metrics.middleware)
	e.Use(securityHeaders)
	e.Use(privateByDefault)
	// Slow clients are held apart from the work: one address may have only so many requests in
	// flight, and a body is read whole, within its time and size, before the request takes one of
	// the places limitInFlight counts.
	e.Use(limitPerAddress(deps.MaxInFlightPerAddress))
	e.Use(bodyLimits())
	e.Use(readBodyFirst(BodyReadTimeout))
	var inFlight atomic.Int64
	deps.Similar.RestWhile(func() bool { return inFlight.Load() > 0 })
	e.Use(countInFlight(&inFlight))
	e.Use(limitInFlight(deps.MaxInFlight, deps.Log))
	e.Use(requestLogger(deps.Log))
	e.Use(middleware.Recover())
	e.Use(sessionMemo)
	e.Use(echo.WrapMiddleware(sessions.LoadAndSave))
	var readsWaiting atomic.Int64
	metrics.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "hindsight_reads_waiting",
		Help: "Reads (GET, HEAD) waiting for a place at the read gate, which lets one per core run at once, and one while SQLite's writer is busy.",
	}, func() float64 { return float64(readsWaiting.Load()) }))
	e.Use(gateReads(&readsWaiting, deps.Store.Writing))
	e.Use(authenticate(h))
	e.Use(csrfProtect(sessions))

	routes(router{e}, h)
	// Prometheus scrapes with an API token: Authorization: Bearer <token>.
	router{e}.get("/metrics", Viewer, metrics.handler())
	return e
}

func randomToken() string {
	raw := make([]byte, 24)
	_, _ = rand.Read(raw)
	return base64.RawURLEncoding.EncodeToString(raw)
}

// router registers each route with the role it needs, and records that role in the route's
// name so tests can walk the table.
type router struct{ e *echo.Echo }

func (r router) add(method, path, role string, h echo.HandlerFunc) {
	r.e.Add(method, path, h, authorize(role)).Name = "role:" + role
}

// get adds a GET route; a public one answers HEAD too, which uptime checkers and feed readers
// send (net/http drops the body).
func (r router) get(path, role string, h echo.HandlerFunc) {
	r.add(http.MethodGet, path, role, h)
	if role == Public {
		r.add(http.MethodHead, path, role, h)
	}
}
func (r router) post(path, role string, h echo.HandlerFunc) { r.add(http.MethodPost, path, role, h) }
func (r router) put(path, role string, h echo.HandlerFunc)  { r.add(http.MethodPut, path, role, h) }
func (r router) delete(path, role string, h echo.HandlerFunc) {
	r.add(http.MethodDelete, path, role, h)
}

// routes is the whole route table, read top to bottom: path, who may use it, handler.
func routes(r router, h *handlers.Handlers) {
	r.get("/", Public, h.Home) // the incidents; on a fresh install, how to create the first admin
	r.get("/healthz", Public, h.Healthz)
	r.get("/readyz", Public, h.Readyz)
	r.e.StaticFS("/static", static.FS).Name = "role:" + Public

	// The public status page and its Statuspage v2 API: no sign-in, only what is public.
	r.get("/status", Public, h.StatusHome)
	r.get("/status/history", Public, h.StatusHistory)
	r.get("/status/incidents/:id", Public, h.StatusIncident)
	r.get("/status/feed.atom", Public, h.StatusFeed)
	// Subscribers: the form is not cached (it carries a CSRF token); the confirm and unsubscribe
	// links lead to a button, and their POSTs take the link's token as credential (csrfExempt).
	r.get("/status/subscribe", Public, h.StatusSubscribeForm)
	r.post("/status/subscribe", Public, h.StatusSubscribe)
	r.get(subscriptionConfirmPath, Public, h.StatusConfirmForm)
	r.post(subscriptionConfirmPath, Public, h.StatusConfirm)
	r.get(unsubscribePath, Public, h.StatusUnsubscribeForm)
	r.post(unsubscribePath, Public, h.StatusUnsubscribe) // also RFC 8058's one-click POST
	r.get("/status/logo", Public, h.StatusLogo)
	r.get("/status/images/:id", Public, h.StatusImage) // only images public text refers to
	r.get("/status/api/v2/summary.json", Public, h.StatusAPISummary)
	r.get("/status/api/v2/status.json", Public, h.StatusAPIStatus)
	r.get("/status/api/v2/components.json", Public, h.StatusAPIComponents)
	r.get("/status/api/v2/incidents.json", Public, h.StatusAPIIncidents)
	r.get("/status/api/v2/incidents/unresolved.json", Public, h.StatusAPIUnresolved)
	r.get("/status/api/v2/scheduled-maintenances.json", Public, h.StatusAPIMaintenances)
	r.get("/status/api/v2/scheduled-maintenances/upcoming.json", Public, h.StatusAPIMaintenancesUpcoming)
	r.get("/status/api/v2/scheduled-maintenances/active.json", Public, h.StatusAPIMaintenancesActive)
	// The same API at the root, where Statuspage clients look: they replace a page's whole path
	// with /api/v2/…, since a status page lives at the root of its own host.
	r.get("/api/v2/summary.json", Public, h.StatusAPISummary)
	r.get("/api/v2/status.json", Public, h.StatusAPIStatus)
	r.get("/api/v2/components.json", Public, h.StatusAPIComponents)
	r.get("/api/v2/incidents.json", Public, h.StatusAPIIncidents)
	r.get("/api/v2/incidents/unresolved.json", Public, h.StatusAPIUnresolved)
	r.get("/api/v2/scheduled-maintenances.json", Public, h.StatusAPIMaintenances)
	r.get("/api/v2/scheduled-maintenances/upcoming.json", Public, h.StatusAPIMaintenancesUpcoming)
	r.get("/api/v2/scheduled-maintenances/active.json", Public, h.StatusAPIMaintenancesActive)

	r.get("/login", Public, h.LoginForm)
	r.post("/login", Public, h.Login)
	r.get("/login/oidc", Public, h.OIDCLogin)
	r.get(handlers.OIDCCallbackPath, Public, h.OIDCCallback)
	r.post("/logout", Public, h.Logout)
	r.get("/setup", Public, h.SetupForm)
	r.post("/setup", Public, h.Setup)

	r.get("/account", Viewer, h.Account)
	r.post("/account/password", Viewer, h.PasswordChange)
	r.post("/account/tokens", Viewer, h.TokenCreate)
	r.post("/account/tokens/:id/revoke", Viewer, h.TokenRevoke)
	r.post("/account/language", Viewer, h.LanguageRulesUpdate)
	r.post("/account/time-zone", Viewer, h.AccountTimeZone)
	r.get("/admin/users", Admin, h.UserList)
	r.post("/admin/users", Admin, h.UserCreate)
	r.post("/admin/users/:id/role", Admin, h.UserRole)
	r.post("/admin/users/:id/disable", Admin, h.UserDisable)
	r.post("/admin/users/:id/enable", Admin, h.UserEnable)
	r.get("/admin/settings", Admin, h.SettingsEdit)
	r.post("/admin/settings", Admin, h.SettingsUpdate)
	r.post("/admin/settings/sign-in", Admin, h.SignInSettingsUpdate)
	r.get("/admin/subscribers", Admin, h.SubscriberList)
	r.post("/admin/settings/logo", Admin, h.SettingsLogoUpload)
	r.post("/admin/settings/logo/remove", Admin, h.SettingsLogoRemove)
	r.get("/admin/import", Admin, h.ImportForm)
	r.post(importPath, Admin, h.ImportUpload) // takes up to 20 MiB: see bodyLimits
	r.get("/admin/components", Admin, h.ComponentList)
	r.post("/admin/components", Admin, h.ComponentSave)
	r.post("/admin/components/:id", Admin, h.ComponentSave)
	r.get("/admin/components/:id/delete", Admin, h.ComponentDeleteConfirm) // asks first
	r.post("/admin/components/:id/delete", Admin, h.ComponentDelete)
	r.get("/admin/integrations", Admin, h.IntegrationList)
	r.post("/admin/integrations", Admin, h.IntegrationCreate)
	r.post("/admin/integrations/:id/revoke", Admin, h.IntegrationRevoke)
	r.get("/admin/webhooks", Admin, h.WebhookList)
	r.get("/admin/webhooks/new", Admin, h.WebhookNew)
	r.post("/admin/webhooks", Admin, h.WebhookCreate)
	r.get("/admin/webhooks/:id", Admin, h.WebhookShow)
	r.post("/admin/webhooks/:id", Admin, h.WebhookUpdate)
	r.post("/admin/webhooks/:id/delete", Admin, h.WebhookDelete)
	r.post("/admin/webhooks/:id/deliveries/:delivery/redeliver", Admin, h.WebhookRedeliver)
	r.get("/admin/templates", Admin, h.TemplateList)
	r.post("/admin/templates", Admin, h.TemplateCreate)
	r.post("/admin/templates/defaults", Admin, h.TemplateDefaults)
	r.get("/admin/trash", Admin, h.TrashList)
	r.post("/admin/trash/:id/restore", Admin, h.IncidentRestore)

	// Planned maintenance: anyone signed in sees it, responders schedule and update it.
	r.get("/maintenance", Viewer, h.MaintenanceList)
	r.post("/maintenance", Responder, h.MaintenanceCreate)
	r.get("/maintenance/:id", Viewer, h.MaintenanceShow)
	r.post("/maintenance/:id", Responder, h.MaintenanceUpdate)
	r.post("/maintenance/:id/updates", Responder, h.MaintenancePost)
	r.get("/maintenance/:id/delete", Responder, h.MaintenanceDeleteConfirm) // asks first
	r.post("/maintenance/:id/delete", Responder, h.MaintenanceDelete)

	r.get("/incidents", Viewer, h.IncidentList)
	r.get("/incidents/new", Responder, h.IncidentNew)
	r.post("/incidents/new/similar", Responder, h.IncidentSimilar)
	r.post("/incidents/new/paste", Responder, h.IncidentPaste)
	r.post("/incidents/new/preview", Responder, h.MarkdownPreview) // renders Markdown, saves nothing
	r.post("/incidents", Responder, h.IncidentCreate)
	r.get("/incidents/:id", Viewer, h.IncidentShow)
	r.get("/incidents/:id/history", Viewer, h.IncidentHistory)
	r.get("/incidents/:id/edit", Responder, h.IncidentEdit)
	r.post("/incidents/:id/edit", Responder, h.IncidentUpdate)
	r.post("/incidents/:id/preview", Responder, h.MarkdownPreview) // renders Markdown, saves nothing
	// Every delete asks first: GET on its address is the confirmation page, POST deletes.
	r.get("/incidents/:id/delete", Responder, h.IncidentDeleteConfirm)
	r.post("/incidents/:id/delete", Responder, h.IncidentDelete) // a published one needs admin
	r.get("/incidents/:id/deleted", Responder, h.IncidentDeleted)
	r.post("/incidents/:id/undo", Responder, h.ChildUndo)
	r.get("/incidents/:id/postmortem", Viewer, h.PostmortemPreview)
	r.post("/incidents/:id/postmortem/state", Responder, h.PostmortemState) // publishing needs admin
	// The review and the debrief: internal, never on the status page or in a public export.
	// Responders ask for reviews and comment; approving is the requested reviewer's own (the
	// store refuses anyone else), whatever their role.
	r.get("/incidents/:id/review", Viewer, h.ReviewShow)
	r.post("/incidents/:id/review/requests", Responder, h.ReviewRequest)
	r.post("/incidents/:id/review/approval", Viewer, h.ReviewApprove)
	r.post("/incidents/:id/review/threads", Responder, h.ReviewThreadCreate)
	r.post("/incidents/:id/review/threads/:thread/replies", Responder, h.ReviewReply)
	r.post("/incidents/:id/review/threads/:thread/resolve", Responder, h.ReviewThreadResolve)
	r.get("/incidents/:id/debrief", Viewer, h.DebriefShow)
	r.post("/incidents/:id/debrief", Responder, h.DebriefSchedule)
	r.post("/incidents/:id/debrief/notes", Responder, h.DebriefNotes) // the preview button saves nothing
	r.post("/incidents/:id/debrief/invite", Responder, h.DebriefInvite)
	r.get("/incidents/:id/debrief.ics", Viewer, h.DebriefCalendar)
	r.get("/reviews", Viewer, h.ReviewsMine)
	r.get("/incidents/:id/export.md", Viewer, h.IncidentExportMarkdown)
	r.get("/incidents/:id/export.json", Viewer, h.IncidentExportJSON)
	r.get("/incidents/:id/export.statuspage.json", Viewer, h.IncidentExportStatuspage)

	r.post("/incidents/:id/events", Responder, h.EventCreate)
	r.post("/incidents/:id/events/:child", Responder, h.EventUpdate)
	r.get("/incidents/:id/events/:child/delete", Responder, h.EventDeleteConfirm)
	r.post("/incidents/:id/events/:child/delete", Responder, h.EventDelete)
	r.post("/incidents/:id/windows", Responder, h.WindowCreate)
	r.post("/incidents/:id/windows/:child", Responder, h.WindowUpdate)
	r.get("/incidents/:id/windows/:child/delete", Responder, h.WindowDeleteConfirm)
	r.post("/incidents/:id/windows/:child/delete", Responder, h.WindowDelete)
	r.post("/incidents/:id/follow-ups", Responder, h.FollowUpCreate)
	r.post("/incidents/:id/follow-ups/bulk", Responder, h.FollowUpBulkAdd)
	r.post("/incidents/:id/paste", Responder, h.IncidentPasteRead)
	r.post("/incidents/:id/paste/confirm", Responder, h.IncidentPasteConfirm)
	r.post(imagesPath, Responder, h.ImageUpload) // takes up to 2 MiB: see bodyLimits
	r.get("/images/:id", Viewer, h.ImageShow)
	r.post("/incidents/:id/follow-ups/:child", Responder, h.FollowUpUpdate)
	r.get("/incidents/:id/follow-ups/:child/delete", Responder, h.FollowUpDeleteConfirm)
	r.post("/incidents/:id/follow-ups/:child/delete", Responder, h.FollowUpDelete)
	r.post("/incidents/:id/links", Responder, h.LinkCreate)
	r.get("/incidents/:id/links/:child/delete", Responder, h.LinkDeleteConfirm)
	r.post("/incidents/:id/links/:child/delete", Responder, h.LinkDelete)

	r.get("/follow-ups", Viewer, h.FollowUpList)
	r.get("/follow-ups.csv", Viewer, h.FollowUpCSV)
	r.get("/follow-ups/feed.atom", Viewer, h.FollowUpAtom)
	r.post("/follow-ups/bulk", Responder, h.FollowUpBulk)
	r.get("/follow-ups/:id", Viewer, h.FollowUpShow)
	r.post("/account/feeds", Viewer, h.CalendarFeedCreate)
	r.post("/account/feeds/:id/revoke", Viewer, h.CalendarFeedRevoke)
	// Secret-link feeds for calendars and feed readers, which cannot sign in: the token is the key.
	r.get("/feeds/:token/calendar.ics", Public, h.FeedCalendar)
	r.get("/feeds/:token/follow-ups.atom", Public, h.FeedAtom)

	r.get("/factors", Viewer, h.FactorList)
	r.post("/factors", Admin, h.FactorSave)
	r.post("/factors/:id", Admin, h.FactorSave)
	r.get("/factors/:id/remove", Admin, h.FactorRemoveForm) // asks first
	r.post("/factors/:id/remove", Admin, h.FactorRemove)
	r.get("/recurrence", Viewer, h.Recurrence)
	r.get("/search", Viewer, h.Search)

	r.get("/insights", Viewer, h.Insights)
	r.get("/insights.csv", Viewer, h.InsightsCSV)

	r.get("/api/v1/incidents", Viewer, h.APIIncidentList)
	r.post("/api/v1/incidents", Responder, h.APIIncidentCreate)
	r.post("/api/v1/incidents/parse", Responder, h.APIIncidentParse)
	r.get("/api/v1/incidents/:id", Viewer, h.APIIncidentGet)
	r.put("/api/v1/incidents/:id", Responder, h.APIIncidentUpdate)
	r.delete("/api/v1/incidents/:id", Responder, h.APIIncidentDelete)
	r.get("/api/v1/follow-ups", Viewer, h.APIFollowUpList)
	r.post("/api/v1/follow-ups", Responder, h.APIFollowUpCreate)
	r.put("/api/v1/follow-ups/:id", Responder, h.APIFollowUpUpdate)
	r.get("/api/v1/factors", Viewer, h.APIFactorList)
	r.get("/api/v1/recurrence", Viewer, h.APIRecurrence)
	r.get("/api/v1/insights", Viewer, h.APIInsights)
	r.post("/api/v1/review/language", Viewer, h.APIReviewLanguage) // reads only: a viewer may check wording
	// Alerting systems post here with the integration's own secret or signature (see
	// handlers.IsAlertReceiverPath); no session, no API token, no CSRF token.
	r.post("/api/v1/integrations/:id/alerts", Public, h.IntegrationAlerts)
}

func isAPI(c echo.Context) bool { return strings.HasPrefix(c.Request().URL.Path, "/api/") }

// errorHandler answers every error: JSON under /api, a page elsewhere. Only server faults are
// logged as errors, and their detail never reaches the client.
func errorHandler(log *slog.Logger, h *handlers.Handlers) echo.HTTPErrorHandler {
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
				if message == http.StatusText(status) {
					message = "The request body is larger than 1 MiB."
				}
			case http.StatusMethodNotAllowed:
				message = "This address does not take that method."
			}
		}
		if status >= 500 {
			log.Error("request failed", "err", err, "path", loggedPath(c),
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
		} else if onStatusHost, _ := c.Get(handlers.OnStatusHostKey).(bool); onStatusHost && status == http.StatusNotFound && h != nil {
			writeErr = h.StatusHostNotFound(c)
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
			log.Info("request", "method", req.Method, "path", loggedPath(c), "route", c.Path(), "status", res.Status,
				"duration_ms", float64(time.Since(start).Microseconds())/1000,
				"request_id", res.Header().Get(echo.HeaderXRequestID), "ip", c.RealIP())
			return nil
		}
	}
}

// secretParams are the path parameters that are keys: a feed's secret link works without
// sign-in, so whoever reads the logs must not learn it.
var secretParams = map[string]bool{"token": true}

// loggedPath is the request's path with every secret path parameter replaced.
func loggedPath(c echo.Context) string {
	path := c.Request().URL.Path
	for n, name := range c.ParamNames() {
		if secretParams[name] {
			if v := c.ParamValues(); n < len(v) && v[n] != "" {
				path = strings.Replace(path, v[n], "REDACTED", 1)
			}
		}
	}
	return path
}

// privateByDefault marks every answer private and not to be stored, so a shared cache between a
// signed-in person and the server keeps nothing of theirs. The public status routes set their own
// public caching over it, and the static files are left to the browser.
func privateByDefault(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !strings.HasPrefix(c.Request().URL.Path, "/static/") {
			c.Response().Header().Set("Cache-Control", "private, no-store")
		}
		return next(c)
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
