package web

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"hindsight/models"
)

// metrics are the server's Prometheus metrics. Each server has its own registry, so servers built
// side by side in tests never share or collide.
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// unmatchedRoute labels requests no route matched, so probes of random paths cannot grow the
// number of series without bound.
const unmatchedRoute = "unmatched"

func newMetrics(store *models.Store, log *slog.Logger) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hindsight_http_requests_total",
			Help: "HTTP requests answered, by method, route pattern and status code.",
		}, []string{"method", "route", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "hindsight_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by method and route pattern.",
			Buckets: []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10},
		}, []string{"method", "route"}),
	}
	m.registry.MustRegister(m.requests, m.duration, &storeCollector{store: store, log: log},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// middleware counts and times every request by its route pattern (/incidents/:id, not
// /incidents/42). It sits outside the request logger, so the status is the one finally sent,
// error pages included.
func (m *metrics) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		route := c.Path()
		if route == "" || c.Response().Status == http.StatusNotFound && route == "/*" {
			route = unmatchedRoute
		}
		method := c.Request().Method
		m.requests.WithLabelValues(method, route, strconv.Itoa(c.Response().Status)).Inc()
		m.duration.WithLabelValues(method, route).Observe(time.Since(start).Seconds())
		return err
	}
}

// handler serves the metrics in the Prometheus text format.
func (m *metrics) handler() echo.HandlerFunc {
	return echo.WrapHandler(promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
}

// storeCollector reads the live numbers from the database at each scrape: incidents not yet
// resolved, and follow-ups open past their due date.
type storeCollector struct {
	store *models.Store
	log   *slog.Logger
}

var (
	openIncidentsDesc = prometheus.NewDesc("hindsight_open_incidents",
		"Incidents whose status is not resolved, by severity.", []string{"severity"}, nil)
	overdueFollowUpsDesc = prometheus.NewDesc("hindsight_overdue_follow_ups",
		"Follow-up actions still open or in progress after their due date, by priority.", []string{"priority"}, nil)
)

func (s *storeCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- openIncidentsDesc
	ch <- overdueFollowUpsDesc
}

func (s *storeCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	counts, err := s.store.Operational(ctx, time.Now())
	if err != nil {
		s.log.Error("collect metrics", "err", err)
		ch <- prometheus.NewInvalidMetric(openIncidentsDesc, err)
		return
	}
	for severity, n := range counts.OpenIncidents {
		ch <- prometheus.MustNewConstMetric(openIncidentsDesc, prometheus.GaugeValue, float64(n), severity)
	}
	for priority, n := range counts.OverdueFollowUps {
		ch <- prometheus.MustNewConstMetric(overdueFollowUpsDesc, prometheus.GaugeValue, float64(n), priority)
	}
}

// metricsPath is where Prometheus scrapes.
const metricsPath = "/metrics"

// isMetrics tells whether a request is a scrape of the metrics, which a machine sends.
func isMetrics(c echo.Context) bool { return c.Path() == metricsPath }

// scrapeUnauthorized answers a scrape without a valid token as RFC 6750 asks: 401 with
// WWW-Authenticate: Bearer and a line of plain text. A redirect to the sign-in page would be read
// by Prometheus as a malformed metrics page ("INVALID" is not a valid start token), hiding why.
func scrapeUnauthorized(c echo.Context, tokenError, message string) error {
	challenge := `Bearer realm="hindsight"`
	if tokenError != "" {
		challenge += `, error="` + tokenError + `"`
	}
	c.Response().Header().Set(echo.HeaderWWWAuthenticate, challenge)
	return c.String(http.StatusUnauthorized, message+"\n")
}
