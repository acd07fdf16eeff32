package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"strconv"
	"time"

	"hindsight/models"
)

// envInt reads a whole number from the environment, or gives the fallback.
func envInt(name string, fallback int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return n
	}
	return fallback
}

// envDuration reads a duration such as 15m from the environment, or gives the fallback.
func envDuration(name string, fallback time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return d
	}
	return fallback
}

// warmUp warms the store's caches once in the background, the hot queries and then the default
// insights, and closes the returned channel when it is done, whether it worked or not: /readyz
// waits for it, and a failure is logged, never retried (the readiness probe asks the database
// itself on every call).
func warmUp(ctx context.Context, store *models.Store, log *slog.Logger) <-chan struct{} {
	warmed := make(chan struct{})
	go func() {
		defer close(warmed)
		if err := models.Safely(func() error { warmStore(ctx, store, log); return nil }); err != nil {
			log.Error("warming caches failed; serving anyway", "err", err)
		}
	}()
	return warmed
}

// warmStore runs the warm-up: the hot queries, then the default insights.
func warmStore(ctx context.Context, store *models.Store, log *slog.Logger) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := store.Warm(ctx); err != nil {
		log.Warn("warming caches failed; serving anyway", "err", err)
	} else {
		log.Info("caches warm", "duration_ms", time.Since(start).Milliseconds())
	}
	start = time.Now()
	if err := store.WarmInsights(ctx); err != nil {
		log.Warn("warming insights failed; serving anyway", "err", err)
		return
	}
	log.Info("insights warm", "duration_ms", time.Since(start).Milliseconds())
}

// servePprof serves Go's profiler on its own listener, apart from the application's routes and
// their authentication: bind it to loopback.
func servePprof(addr string, log *slog.Logger) error {
	listener, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("pprof: listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	log.Info("profiler listening", "url", "http://"+listener.Addr().String()+"/debug/pprof/")
	go func() {
		if err := srv.Serve(listener); err != nil {
			log.Warn("pprof server stopped", "err", err)
		}
	}()
	return nil
}

// fillSample adds synthetic incidents for load tests (hindsight demo --fill N).
func fillSample(ctx context.Context, store *models.Store, n int, stdout io.Writer) error {
	start := time.Now()
	if err := store.FillSample(ctx, n); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "added %d synthetic incident(s) in %s\n", n, time.Since(start).Round(time.Millisecond))
	return nil
}
