// Command hindsight serves the Hindsight incident postmortem tracker and manages its database.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
	_ "time/tzdata" // time zones work on machines without a zone database

	"hindsight/models"
	"hindsight/models/demo"
	"hindsight/web"
)

const usage = `Hindsight: incident postmortems that stop repeat incidents.

Usage:
  hindsight serve [--addr :8080] [--database hindsight.db]
  hindsight migrate up|status [--database ...]
  hindsight demo [--database ...]      load five sample incidents (idempotent)

The database is a SQLite file path or a postgres:// URL. Environment:
  HINDSIGHT_ADDR, HINDSIGHT_DATABASE_URL
`

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(context.Background(), os.Args[1:], os.Stdout, log); err != nil {
		fmt.Fprintln(os.Stderr, "hindsight:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		return errors.New("no command given")
	}
	command, rest := args[0], args[1:]
	switch command {
	case "serve":
		return serve(ctx, rest, log)
	case "migrate":
		return migrate(ctx, rest, stdout)
	case "demo":
		return loadDemo(ctx, rest, stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return fmt.Errorf("unknown command %q; run hindsight help", command)
}

func env(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

func databaseFlag(fs *flag.FlagSet) *string {
	return fs.String("database", env("HINDSIGHT_DATABASE_URL", "hindsight.db"), "SQLite file or postgres:// URL (env HINDSIGHT_DATABASE_URL)")
}

// openStore opens the database and applies pending migrations.
func openStore(ctx context.Context, database string) (*models.Store, int, error) {
	store, err := models.Open(ctx, database)
	if err != nil {
		return nil, 0, err
	}
	applied, err := store.MigrateUp(ctx)
	if err != nil {
		store.Close()
		return nil, 0, err
	}
	return store, applied, nil
}

func serve(ctx context.Context, args []string, log *slog.Logger) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", env("HINDSIGHT_ADDR", ":8080"), "listen address (env HINDSIGHT_ADDR)")
	database := databaseFlag(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	store, applied, err := openStore(ctx, *database)
	if err != nil {
		return err
	}
	defer store.Close()
	log.Info("database ready", "dialect", store.Dialect(), "migrations_applied", applied)

	listener, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *addr, err)
	}
	srv := &http.Server{
		Handler:           web.New(web.Deps{Store: store, Log: log}),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	log.Info("Hindsight is listening; open it in a browser", "url", openURL(listener.Addr()))

	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(listener) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// Finish the requests in flight, then stop.
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}

// openURL is the address a person can paste into a browser.
func openURL(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || tcp.IP.IsUnspecified() {
		port := 8080
		if ok {
			port = tcp.Port
		}
		return fmt.Sprintf("http://localhost:%d/", port)
	}
	return "http://" + tcp.String() + "/"
}

func migrate(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("migrate needs up or status")
	}
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	database := databaseFlag(fs)
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	store, err := models.Open(ctx, *database)
	if err != nil {
		return err
	}
	defer store.Close()
	switch args[0] {
	case "up":
		n, err := store.MigrateUp(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "applied %d migration(s)\n", n)
		return nil
	case "status":
		statuses, err := store.MigrationStatus(ctx)
		if err != nil {
			return err
		}
		for _, st := range statuses {
			state := "pending"
			if st.Applied {
				state = "applied " + st.AppliedAt.UTC().Format(time.RFC3339)
			}
			fmt.Fprintf(stdout, "%05d  %-30s  %s\n", st.Version, st.Name, state)
		}
		return nil
	}
	return fmt.Errorf("unknown migrate command %q; use up or status", args[0])
}

func loadDemo(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	database := databaseFlag(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	store, _, err := openStore(ctx, *database)
	if err != nil {
		return err
	}
	defer store.Close()
	added, err := demo.Load(ctx, store)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "added %d sample incident(s); %d were already there\n", added, len(demo.Incidents())-added)
	return nil
}
