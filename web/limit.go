package web

import (
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
)

// DefaultMaxInFlight is how many requests the server works on at once unless told otherwise. On
// a 2-core machine the pages take well under a millisecond of CPU each, so 256 requests in flight
// already queue about 100 ms of work: beyond that a client is better told to come back than kept
// waiting into its own timeout.
const DefaultMaxInFlight = 256

// RetryAfterSeconds is what a request turned away for overload is told to wait.
const RetryAfterSeconds = "1"

// unlimitedPaths are never turned away: a liveness or readiness probe that fails because the
// server is busy gets a busy server restarted or taken out of rotation, which moves its load to
// the others and makes the overload worse; and the metrics are how anyone sees the overload.
var unlimitedPaths = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true}

// countInFlight keeps count of the requests being answered, which the similar-incident keeper
// reads to rest while the server is busy and to run at full speed while it is idle.
func countInFlight(n *atomic.Int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if unlimitedPaths[c.Request().URL.Path] {
				return next(c)
			}
			n.Add(1)
			defer n.Add(-1)
			return next(c)
		}
	}
}

// readGate is how many reads may be worked on at once per CPU the Go runtime uses. Reads cost
// CPU alone, so a core's worth keeps the cores busy; more only lengthen the run queue, where a
// write waits behind every runnable read each time it comes back from a system call (SQLite's
// file writes, its commit), holding the one writer meanwhile. With 64 connections and 10 %
// writes a write took 420 ms at the median and 2.9 s at the 99th percentile, nearly all of it
// waiting for a core; gated, 7 ms and 49 ms, the reads' median 75 ms (docs/performance.md). Two
// per core and four per core were measured too: the writes' tail grows with each.
const readGate = 1

// readHoldLimit is the longest a read holds its place at the gate: a long one (a large CSV)
// gives its place back and goes on beside the others, so it cannot stall the pages behind it,
// while short reads keep their order however long the line.
var readHoldLimit = 100 * time.Millisecond

// gateReads lets at most readGate × GOMAXPROCS reads (GET, HEAD) run their handlers at once; the
// others wait their turn here, in order, holding nothing. Writes pass by, so a write never waits
// behind more than a few reads for a core. While writing says a write holds or waits for
// SQLite's one writer, a read that has its place also waits for the one place beside the writes:
// then one read runs at a time and the other core is the writer's, whose transaction every
// queued write waits for (docs/performance.md, "Writes, fifth round"). It runs inside the
// session's LoadAndSave, which buffers the response: a slow client reading its page holds no
// place. waiting counts the reads waiting for a place.
func gateReads(waiting *atomic.Int64, writing func() bool) echo.MiddlewareFunc {
	places := make(chan struct{}, readGate*runtime.GOMAXPROCS(0))
	beside := make(chan struct{}, 1)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			method := c.Request().Method
			if (method != http.MethodGet && method != http.MethodHead) || unlimitedPaths[c.Request().URL.Path] {
				return next(c)
			}
			if !take(c, places, waiting) {
				return c.Request().Context().Err()
			}
			besideWrites := false
			if writing() {
				if !take(c, beside, waiting) {
					<-places
					return c.Request().Context().Err()
				}
				besideWrites = true
			}
			leave := sync.OnceFunc(func() {
				if besideWrites {
					<-beside
				}
				<-places
			})
			long := time.AfterFunc(readHoldLimit, leave)
			defer long.Stop()
			defer leave()
			return next(c)
		}
	}
}

// take takes a place in places, waiting in order while there is none, counted in waiting; false
// when the request ended first.
func take(c echo.Context, places chan struct{}, waiting *atomic.Int64) bool {
	select {
	case places <- struct{}{}:
		return true
	default:
	}
	waiting.Add(1)
	defer waiting.Add(-1)
	select {
	case places <- struct{}{}:
		return true
	case <-c.Request().Context().Done():
		return false
	}
}

// limitInFlight lets at most max requests into the handlers at once. A request arriving when all
// places are taken is answered 503 with Retry-After at once, without touching the database or the
// session: waiting in a queue behind work the server cannot finish in time only turns overload
// into timeouts for everyone. max < 0 means no limit.
func limitInFlight(max int, log *slog.Logger) echo.MiddlewareFunc {
	if max < 0 {
		return func(next echo.HandlerFunc) echo.HandlerFunc { return next }
	}
	if max == 0 {
		max = DefaultMaxInFlight
	}
	places := make(chan struct{}, max)
	var rejected atomic.Int64
	var lastReport atomic.Int64
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if unlimitedPaths[c.Request().URL.Path] {
				return next(c)
			}
			select {
			case places <- struct{}{}:
				defer func() { <-places }()
				return next(c)
			default:
			}
			// One log line a second at most: logging every refusal would spend the CPU the
			// overload is short of.
			n := rejected.Add(1)
			now := time.Now().UnixNano()
			if last := lastReport.Load(); now-last >= int64(time.Second) && lastReport.CompareAndSwap(last, now) {
				log.Warn("overloaded: requests turned away with 503", "max_in_flight", max, "rejected_total", n)
			}
			return refuse(c, http.StatusServiceUnavailable, overloadedMessage)
		}
	}
}

const overloadedMessage = "Hindsight is busy right now. Try again in a second."

// refuse writes a 503, 429 or 408 with Retry-After directly, without templates or the error handler,
// so turning a request away costs next to nothing. The message is a constant without markup.
func refuse(c echo.Context, status int, message string) error {
	h := c.Response().Header()
	h.Set("Retry-After", RetryAfterSeconds)
	h.Set("Cache-Control", "no-store")
	if c.Request().ContentLength != 0 {
		// net/http would otherwise read the rest of an unread body before answering, to keep
		// the connection: from a slow client, that is the wait being refused.
		h.Set("Connection", "close")
	}
	if strings.HasPrefix(c.Request().URL.Path, "/api/") {
		return c.JSONBlob(status, []byte(`{"error":"`+message+`"}`))
	}
	title := http.StatusText(status)
	return c.HTMLBlob(status, []byte(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>`+title+` · Hindsight</title></head>`+
		`<body><main><h1>`+title+`</h1><p>`+message+`</p></main></body></html>`))
}
