package handlers

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/models/alertin"
)

// AlertReceiverPath is the receiver address of integration id.
func AlertReceiverPath(id int64) string {
	return "/api/v1/integrations/" + strconv.FormatInt(id, 10) + "/alerts"
}

// IsAlertReceiverPath tells whether a request is for an alert receiver, which authenticates the
// integration's own secret or signature, not an API token or a session.
func IsAlertReceiverPath(path string) bool {
	rest, ok := strings.CutPrefix(path, "/api/v1/integrations/")
	return ok && strings.HasSuffix(rest, "/alerts") && !strings.Contains(strings.TrimSuffix(rest, "/alerts"), "/")
}

// Intake bounds: each integration has AlertIntakeWorkers notifications filed at once and at most
// AlertIntakeWaiting more waiting for them, each at most AlertIntakeWait; past that the sender is
// told 429 with Retry-After. Filing is one write transaction, so more workers would only queue
// at the database; the bound keeps an alert storm to a few of the server's places, and the
// pages keep the rest.
const (
	AlertIntakeWorkers = 2
	AlertIntakeWaiting = 8
	AlertIntakeWait    = 5 * time.Second
)

// alertLimiter holds one semaphore per integration.
type alertLimiter struct {
	mu    sync.Mutex
	slots map[int64]*alertSlots
}

type alertSlots struct {
	work    chan struct{}
	waiting chan struct{}
}

func (l *alertLimiter) of(id int64) *alertSlots {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.slots == nil {
		l.slots = map[int64]*alertSlots{}
	}
	s := l.slots[id]
	if s == nil {
		s = &alertSlots{work: make(chan struct{}, AlertIntakeWorkers), waiting: make(chan struct{}, AlertIntakeWaiting)}
		l.slots[id] = s
	}
	return s
}

// acquire takes a place to file a notification, waiting a little; false means come back later.
func (s *alertSlots) acquire(done <-chan struct{}) bool {
	select {
	case s.work <- struct{}{}:
		return true
	default:
	}
	select {
	case s.waiting <- struct{}{}:
	default:
		return false
	}
	defer func() { <-s.waiting }()
	timer := time.NewTimer(AlertIntakeWait)
	defer timer.Stop()
	select {
	case s.work <- struct{}{}:
		return true
	case <-timer.C:
	case <-done:
	}
	return false
}

func (s *alertSlots) release() { <-s.work }

// alertRetryAfter is what a sender turned away is told to wait, in seconds.
const alertRetryAfter = "5"

// IntegrationAlerts answers POST /api/v1/integrations/{id}/alerts: a notification from the
// integration's alerting system, authenticated by its bearer secret (PagerDuty: its signature).
func (h *Handlers) IntegrationAlerts(c echo.Context) error {
	req := c.Request()
	ctx := req.Context()
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return unauthorizedReceiver(c)
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "The body could not be read.")
	}
	integ, err := h.authenticateReceiver(c, id, body)
	if errors.Is(err, models.ErrUnauthorized) {
		return unauthorizedReceiver(c)
	}
	if err != nil {
		return err
	}
	now := time.Now()
	var notices []models.AlertNotice
	switch integ.Kind {
	case models.IntegrationAlertmanager:
		notices, err = alertin.Alertmanager(body)
	case models.IntegrationGrafana:
		notices, err = alertin.Grafana(body)
	case models.IntegrationPagerDuty:
		notices, err = alertin.PagerDuty(body, now)
	case models.IntegrationGeneric:
		var m models.GenericMapping
		if m, err = models.ParseGenericMapping(integ.Mapping); err == nil {
			notices, err = alertin.Generic(body, m)
		}
	}
	switch {
	case errors.Is(err, alertin.ErrReplayed):
		return c.JSON(http.StatusUnauthorized, APIErrorBody("The event is older than 5 minutes and may be a replay; it was refused."))
	case errors.Is(err, alertin.ErrMalformed):
		return c.JSON(http.StatusBadRequest, APIErrorBody(strings.TrimSuffix(err.Error(), ": "+alertin.ErrMalformed.Error())))
	case err != nil:
		return err
	}
	if len(notices) == 0 {
		return c.JSON(http.StatusOK, models.AlertIntake{})
	}
	slots := h.alerts.of(integ.ID)
	if !slots.acquire(ctx.Done()) {
		c.Response().Header().Set("Retry-After", alertRetryAfter)
		return c.JSON(http.StatusTooManyRequests, APIErrorBody("Too many notifications from this integration at once; send this one again in a few seconds."))
	}
	defer slots.release()
	intake, err := h.Store.ReceiveAlerts(ctx, integ, now, notices)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, intake)
}

// authenticateReceiver checks the request's credentials against integration id: PagerDuty's
// X-PagerDuty-Signature over the raw body, else Authorization: Bearer <secret>.
func (h *Handlers) authenticateReceiver(c echo.Context, id int64, body []byte) (*models.Integration, error) {
	ctx := c.Request().Context()
	integ, err := h.Store.GetIntegration(ctx, id)
	if errors.Is(err, models.ErrNotFound) {
		return nil, models.ErrUnauthorized
	}
	if err != nil {
		return nil, err
	}
	if integ.Kind == models.IntegrationPagerDuty {
		return h.Store.VerifyPagerDutySignature(ctx, id, c.Request().Header.Get("X-PagerDuty-Signature"), body)
	}
	secret, _ := strings.CutPrefix(c.Request().Header.Get(echo.HeaderAuthorization), "Bearer ")
	return h.Store.AuthenticateIntegration(ctx, id, strings.TrimSpace(secret))
}

func unauthorizedReceiver(c echo.Context) error {
	c.Response().Header().Set("WWW-Authenticate", `Bearer realm="hindsight alerts"`)
	return c.JSON(http.StatusUnauthorized, APIErrorBody("The integration is unknown or revoked, or the secret or signature is wrong."))
}
