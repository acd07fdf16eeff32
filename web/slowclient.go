package web

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/handlers"
)

// DefaultMaxInFlightPerAddress is how many requests one client address may have in flight at
// once, its bodies still arriving included. A browser opens six connections to a host; a whole
// office behind one address stays well under this, while one machine holding hundreds of slow
// requests open is turned away before it takes everyone else's places.
const DefaultMaxInFlightPerAddress = 64

// BodyReadTimeout is how long a request's body may take to arrive. The slowest honest client,
// a phone posting a 1 MiB form over a poor link, needs a few seconds.
const BodyReadTimeout = 10 * time.Second

// limitPerAddress lets at most max requests from one client address in at once, counted from
// their arrival, before their bodies are read; past it a request is answered 429 with
// Retry-After at once. max < 0 means no limit.
func limitPerAddress(max int) echo.MiddlewareFunc {
	if max < 0 {
		return func(next echo.HandlerFunc) echo.HandlerFunc { return next }
	}
	if max == 0 {
		max = DefaultMaxInFlightPerAddress
	}
	var mu sync.Mutex
	inFlight := map[string]int{}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if unlimitedPaths[c.Request().URL.Path] {
				return next(c)
			}
			addr := c.RealIP()
			mu.Lock()
			if inFlight[addr] >= max {
				mu.Unlock()
				return refuse(c, http.StatusTooManyRequests, "Too many requests from your address at once. Try again in a second.")
			}
			inFlight[addr]++
			mu.Unlock()
			defer func() {
				mu.Lock()
				if inFlight[addr]--; inFlight[addr] == 0 {
					delete(inFlight, addr)
				}
				mu.Unlock()
			}()
			return next(c)
		}
	}
}

// readBodyFirst reads a request's whole body, within BodyReadTimeout and its route's size limit,
// before the request takes one of the places limitInFlight counts. A client that sends its body a
// byte at a time then waits on its own connection, holding no place, and is cut off when the time
// is up (408); the handlers read the body from memory.
func readBodyFirst(timeout time.Duration) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if req.Body == nil || req.Body == http.NoBody || req.ContentLength == 0 {
				return next(c)
			}
			limit := int64(bodyLimitBytes)
			if c.Path() == importPath {
				limit = handlers.ImportBodyLimit
			} else if c.Path() == imagesPath {
				limit = handlers.ImageBodyLimit
			}
			if req.ContentLength > limit {
				return next(c) // the body limit answers 413 without reading it
			}
			rc := http.NewResponseController(c.Response().Writer)
			// The deadline covers the body only; net/http sets the next request's itself. A
			// recorder in tests has no connection, and the body is then read without one.
			_ = rc.SetReadDeadline(time.Now().Add(timeout))
			body, err := io.ReadAll(io.LimitReader(req.Body, limit+1))
			_ = rc.SetReadDeadline(time.Time{})
			if errors.Is(err, os.ErrDeadlineExceeded) {
				// Written directly: the request's context ends with its connection's read, and
				// the error page would not render.
				return refuse(c, http.StatusRequestTimeout, "The request body took longer than "+strconv.Itoa(int(timeout.Seconds()))+" seconds to arrive.")
			}
			var he *echo.HTTPError
			if errors.As(err, &he) {
				return he // over the route's limit: 413
			}
			if err != nil {
				return echo.NewHTTPError(http.StatusBadRequest, "The request body could not be read.").SetInternal(err)
			}
			req.Body = io.NopCloser(bytes.NewReader(body))
			if req.ContentLength < 0 {
				req.ContentLength = int64(len(body))
			}
			return next(c)
		}
	}
}
