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
	"strings"
	"syscall"
	"time"
	_ "time/tzdata" // time zones work on machines without a zone database

	"hindsight/handlers"
	"hindsight/models"
	"hindsight/models/demo"
	"hindsight/models/notify"
	"hindsight/web"
)

const usage = `Hindsight: incident postmortems that stop repeat incidents.

Usage:
  hindsight serve [--addr :8080] [--database hindsight.db]
  hindsight migrate up|status [--database ...]
  hindsight demo [--database ...]      load five sample incidents (idempotent)
  hindsight import statuspage|cstate|native FILE [--dry-run] [--skip-invalid] [--database ...]
                                       import a status page's history (idempotent) or restore an export
  hindsight backup FILE [--database ...]
                                       copy a SQLite database consistently, even while it serves
  hindsight user create --email E [--role viewer|responder|admin] [--name N]
  hindsight user reset-password --email E
                                       the password is asked for, or read from standard input
  hindsight token create --email E --name N
                                       print a new API token on the last line
  hindsight integration create --kind alertmanager|grafana|pagerduty|generic --name N [--mapping JSON]
                                       print an alert receiver's URL, and its secret on the last line
  hindsight doctor [--repair]          recompute derived tables and compare
  hindsight export FILE [--database ...]
                                       write the whole database as JSON ("-" for stdout)

The database is a SQLite file path or a postgres:// URL. Environment:
  HINDSIGHT_ADDR, HINDSIGHT_DATABASE_URL, HINDSIGHT_BASE_URL, HINDSIGHT_SECURE_COOKIES,
  HINDSIGHT_TRUSTED_PROXIES, HINDSIGHT_STATUS_HOST
`

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, log); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return // --help printed the usage it asked for
		}
		fmt.Fprintln(os.Stderr, "hindsight:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer, log *slog.Logger) error {
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
	case "import":
		return importCommand(ctx, rest, stdout)
	case "export":
		return exportCommand(ctx, rest, stdout)
	case "backup":
		return backupCommand(ctx, rest, stdout)
	case "user":
		return userCommand(ctx, rest, stdin, stdout)
	case "token":
		return tokenCommand(ctx, rest, stdout)
	case "integration":
		return integrationCommand(ctx, rest, stdout)
	case "doctor":
		return doctorCommand(ctx, rest, stdout)
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

// signInFlags adds the flags of OpenID Connect and password sign-in (see docs/oidc.md); the
// function it returns reads them once parsed.
func signInFlags(fs *flag.FlagSet) func() (handlers.OIDCConfig, handlers.PasswordSignIn, error) {
	issuer := fs.String("oidc-issuer", env("HINDSIGHT_OIDC_ISSUER", ""), "OpenID Connect issuer URL; sign-in with it is off when empty (env HINDSIGHT_OIDC_ISSUER)")
	clientID := fs.String("oidc-client-id", env("HINDSIGHT_OIDC_CLIENT_ID", ""), "OpenID Connect client id (env HINDSIGHT_OIDC_CLIENT_ID)")
	secret := fs.String("oidc-client-secret", env("HINDSIGHT_OIDC_CLIENT_SECRET", ""), "OpenID Connect client secret (env HINDSIGHT_OIDC_CLIENT_SECRET)")
	name := fs.String("oidc-name", env("HINDSIGHT_OIDC_NAME", "your identity provider"), "the provider's name on the sign-in button (env HINDSIGHT_OIDC_NAME)")
	admins := fs.String("oidc-admin-groups", env("HINDSIGHT_OIDC_ADMIN_GROUPS", ""), "comma-separated groups whose members are admins (env HINDSIGHT_OIDC_ADMIN_GROUPS)")
	responders := fs.String("oidc-responder-groups", env("HINDSIGHT_OIDC_RESPONDER_GROUPS", ""), "comma-separated groups whose members are responders; everyone else is a viewer (env HINDSIGHT_OIDC_RESPONDER_GROUPS)")
	link := fs.Bool("oidc-link-by-email", env("HINDSIGHT_OIDC_LINK_BY_EMAIL", "") == "true", "let a first provider sign-in with a verified email take over the existing account with that email (env HINDSIGHT_OIDC_LINK_BY_EMAIL=true)")
	password := fs.String("password-signin", env("HINDSIGHT_PASSWORD_SIGNIN", "all"), "who may sign in with a password: all, or break-glass for only --break-glass-emails (env HINDSIGHT_PASSWORD_SIGNIN)")
	breakGlass := fs.String("break-glass-emails", env("HINDSIGHT_BREAK_GLASS_EMAILS", ""), "comma-separated emails that may still sign in with a password under --password-signin=break-glass (env HINDSIGHT_BREAK_GLASS_EMAILS)")
	list := func(s string) []string {
		var out []string
		for _, v := range strings.Split(s, ",") {
			if v = strings.TrimSpace(v); v != "" {
				out = append(out, v)
			}
		}
		return out
	}
	return func() (handlers.OIDCConfig, handlers.PasswordSignIn, error) {
		cfg := handlers.OIDCConfig{Issuer: strings.TrimSpace(*issuer), ClientID: *clientID, ClientSecret: *secret, Name: *name,
			AdminGroups: list(*admins), ResponderGroups: list(*responders), LinkByEmail: *link}
		policy := handlers.PasswordSignIn{BreakGlassOnly: *password == "break-glass", BreakGlass: list(*breakGlass)}
		switch {
		case cfg.Issuer != "" && cfg.ClientID == "":
			return cfg, policy, errors.New("--oidc-issuer needs --oidc-client-id")
		case *password != "all" && *password != "break-glass":
			return cfg, policy, fmt.Errorf("--password-signin %q: choose all or break-glass", *password)
		case policy.BreakGlassOnly && (cfg.Issuer == "" || len(policy.BreakGlass) == 0):
			return cfg, policy, errors.New("--password-signin=break-glass needs --oidc-issuer and at least one --break-glass-emails address")
		}
		return cfg, policy, nil
	}
}

func serve(ctx context.Context, args []string, log *slog.Logger) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", env("HINDSIGHT_ADDR", ":8080"), "listen address (env HINDSIGHT_ADDR)")
	database := databaseFlag(fs)
	baseURL := fs.String("base-url", env("HINDSIGHT_BASE_URL", ""), "where people reach Hindsight, e.g. https://hindsight.example.com: absolute links, feed and entry ids and the setup link are built on it, never on a request's Host header. A base URL an admin saves on the settings page wins over it; without either, the listen address (env HINDSIGHT_BASE_URL)")
	statusHost := fs.String("status-host", env("HINDSIGHT_STATUS_HOST", ""), "a host name of the status page's own, e.g. status.example.com: requests for it get the status page at its root and nothing of the app. One saved on the settings page wins over it (env HINDSIGHT_STATUS_HOST)")
	secure := fs.Bool("secure-cookies", env("HINDSIGHT_SECURE_COOKIES", "") == "true", "mark the session cookie Secure; on whenever TLS is (env HINDSIGHT_SECURE_COOKIES=true)")
	proxies := fs.String("trusted-proxies", env("HINDSIGHT_TRUSTED_PROXIES", ""), "comma-separated CIDRs of reverse proxies whose X-Forwarded-For is believed (env HINDSIGHT_TRUSTED_PROXIES)")
	tlsCert := fs.String("tls-cert", "", "serve HTTPS with this certificate file")
	tlsKey := fs.String("tls-key", "", "and this key file")
	pageCacheMB := fs.Int("page-cache-mb", envInt("HINDSIGHT_PAGE_CACHE_MB", handlers.DefaultPageCacheBytes>>20), "megabytes of rendered incident and list pages kept in memory; -1 keeps none (env HINDSIGHT_PAGE_CACHE_MB)")
	maxInFlight := fs.Int("max-in-flight", envInt("HINDSIGHT_MAX_IN_FLIGHT", web.DefaultMaxInFlight), "requests served at once; past it, 503 with Retry-After at once; -1 for no cap (env HINDSIGHT_MAX_IN_FLIGHT)")
	maxPerAddress := fs.Int("max-in-flight-per-address", envInt("HINDSIGHT_MAX_IN_FLIGHT_PER_ADDRESS", web.DefaultMaxInFlightPerAddress), "requests one client address may have in flight, bodies still arriving included; past it, 429; -1 for no cap (env HINDSIGHT_MAX_IN_FLIGHT_PER_ADDRESS)")
	pprofAddr := fs.String("pprof-addr", "", "serve Go's profiler (net/http/pprof) on this address, e.g. 127.0.0.1:6060; off when empty")
	webhookWorkers := fs.Int("webhook-workers", envInt("HINDSIGHT_WEBHOOK_WORKERS", 2), "webhook deliveries this instance sends at once; 0 sends none, leaving them to other instances (env HINDSIGHT_WEBHOOK_WORKERS)")
	webhooksAllowPrivate := fs.Bool("webhooks-allow-private", env("HINDSIGHT_WEBHOOKS_ALLOW_PRIVATE", "") == "true", "let webhook endpoints be loopback, private or link-local addresses; off, they are refused when saved and when dialled (env HINDSIGHT_WEBHOOKS_ALLOW_PRIVATE=true)")
	signIn := signInFlags(fs)
	recheck := fs.Duration("oidc-recheck-interval", envDuration("HINDSIGHT_OIDC_RECHECK_INTERVAL", handlers.DefaultRecheckInterval), "how often the identity provider is asked again whether each signed-in account may stay; a refusal ends the account's sessions; 0 turns it off (env HINDSIGHT_OIDC_RECHECK_INTERVAL)")
	mail := mailFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	outbox, mailInfo, err := mail()
	if err != nil {
		return err
	}
	oidcConfig, passwordSignIn, err := signIn()
	if err != nil {
		return err
	}
	trusted, err := parseCIDRs(*proxies)
	if err != nil {
		return err
	}
	if problem := models.BaseURLProblem(*baseURL); problem != "" {
		return fmt.Errorf("--base-url %q: %s", *baseURL, problem)
	}
	if problem := models.StatusHostProblem(*statusHost); problem != "" {
		return fmt.Errorf("--status-host %q: %s", *statusHost, problem)
	}
	useTLS := *tlsCert != "" || *tlsKey != ""
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
	url := openURL(listener.Addr(), useTLS)
	base := models.NormalBaseURL(*baseURL)
	if base == "" {
		base = url
	}
	warmed := warmUp(ctx, store, log)
	similar := models.NewSimilarKeeper(store, log)
	signInWith := handlers.NewSignIn(store, log, oidcConfig, passwordSignIn)
	if *pprofAddr != "" {
		if err := servePprof(*pprofAddr, log); err != nil {
			return err
		}
	}
	srv := &http.Server{
		Handler: web.New(web.Deps{
			Store: store, Log: log, SecureCookies: *secure || useTLS, TrustedProxies: trusted, BaseURL: base, StatusHost: models.NormalHost(*statusHost),
			MaxInFlight: *maxInFlight, MaxInFlightPerAddress: *maxPerAddress, Warmed: warmed, Similar: similar, PageCacheBytes: *pageCacheMB << 20,
			SignIn: signInWith, WebhooksAllowPrivate: *webhooksAllowPrivate, Mail: mailInfo,
		}),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	log.Info("Hindsight is listening; open it in a browser", "url", url)

	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go sweepExpired(ctx, store, log)
	go signInWith.RunRechecks(ctx, *recheck)
	go store.RunWebhookDeliveries(ctx, models.DeliveryOptions{
		Workers: *webhookWorkers, AllowPrivate: *webhooksAllowPrivate, BaseURL: base, Log: log,
	})
	outbox.BaseURL = base
	go notify.NewWorker(store, log, outbox).Run(ctx)
	go func() {
		<-warmed // rank after the warm-up, which /readyz waits for
		similar.Run(ctx)
	}()
	served := make(chan error, 1)
	go func() {
		if useTLS {
			served <- srv.ServeTLS(listener, *tlsCert, *tlsKey)
		} else {
			served <- srv.Serve(listener)
		}
	}()
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

// sweepExpired removes expired sessions and old login failures every ten minutes.
func sweepExpired(ctx context.Context, store *models.Store, log *slog.Logger) {
	ticker := time.NewTicker(10 * time.Minute)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			if err := models.Safely(func() error { return store.DeleteExpired(ctx) }); err != nil {
				log.Warn("sweep expired sessions", "err", err)
			}
		}
	}
}

func parseCIDRs(list string) ([]*net.IPNet, error) {
	var nets []*net.IPNet
	for _, part := range strings.Split(list, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		_, n, err := net.ParseCIDR(part)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q: %w", part, err)
		}
		nets = append(nets, n)
	}
	return nets, nil
}

// openURL is the address a person can paste into a browser.
func openURL(addr net.Addr, useTLS bool) string {
	scheme := "http"
	if useTLS {
		scheme = "https"
	}
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || tcp.IP.IsUnspecified() {
		port := 8080
		if ok {
			port = tcp.Port
		}
		return fmt.Sprintf("%s://localhost:%d/", scheme, port)
	}
	return scheme + "://" + tcp.String() + "/"
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
	fill := fs.Int("fill", 0, "instead, add this many synthetic incidents in one transaction (for load tests)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	store, _, err := openStore(ctx, *database)
	if err != nil {
		return err
	}
	defer store.Close()
	if *fill > 0 {
		return fillSample(ctx, store, *fill, stdout)
	}
	added, err := demo.Load(ctx, store)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "added %d sample incident(s); %d were already there\n", added, len(demo.Incidents())-added)
	return nil
}
