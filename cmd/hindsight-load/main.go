// Command hindsight-load measures a running Hindsight server under mixed traffic: the incident
// list, incident pages, the public status API when there is one, and writes through the JSON API,
// from many keep-alive connections at once. It first measures /healthz alone, the ceiling every
// page stands under. It only ever talks to a server on this machine (a loopback address).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "hindsight-load:", err)
		os.Exit(1)
	}
}

type config struct {
	base        *url.URL
	connections int
	duration    time.Duration
	ceiling     time.Duration
	solo        time.Duration
	maxRequests int64
	token       string
	email       string
	password    string
	seed        int
	writeShare  float64
	serverPID   int
}

// statusAPIPath is the public Statuspage-compatible feed, measured when the server has it.
const statusAPIPath = "/status/api/v2/incidents.json"

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("hindsight-load", flag.ContinueOnError)
	rawURL := fs.String("url", "http://127.0.0.1:8080", "the server to measure; it must be on this machine (loopback)")
	cfg := config{}
	fs.IntVar(&cfg.connections, "connections", 64, "concurrent keep-alive connections")
	fs.DurationVar(&cfg.duration, "duration", 60*time.Second, "how long the mixed traffic runs")
	fs.DurationVar(&cfg.ceiling, "ceiling-duration", 10*time.Second, "how long /healthz runs alone first; 0 skips it")
	fs.DurationVar(&cfg.solo, "page-duration", 15*time.Second, "how long the list page, then the incident page, run alone before the mix; 0 skips them")
	fs.Int64Var(&cfg.maxRequests, "max-requests", 5_000_000, "stop a phase after this many requests even if time remains")
	fs.StringVar(&cfg.token, "token", os.Getenv("HINDSIGHT_TOKEN"), "API token of a responder (hindsight token create); env HINDSIGHT_TOKEN")
	fs.StringVar(&cfg.email, "email", "", "sign in with this account for the pages, as a browser does (default: the token is used for pages too)")
	fs.StringVar(&cfg.password, "password", os.Getenv("HINDSIGHT_PASSWORD"), "its password; env HINDSIGHT_PASSWORD")
	fs.IntVar(&cfg.seed, "seed", 0, "first make sure the database holds at least this many incidents, adding the missing ones through the API")
	fs.Float64Var(&cfg.writeShare, "writes", 0.10, "share of the mixed requests that write through the API (half create, half update)")
	fs.IntVar(&cfg.serverPID, "server-pid", 0, "the server's process id: adds the server's CPU time per request to each phase (read from /proc), which does not depend on what else the machine runs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.token == "" {
		return errors.New("--token is required: create one with 'hindsight token create --email E --name load'")
	}
	if cfg.connections < 1 || cfg.duration <= 0 || cfg.maxRequests < 1 {
		return errors.New("--connections, --duration and --max-requests must be positive")
	}
	base, err := loopbackURL(*rawURL)
	if err != nil {
		return err
	}
	cfg.base = base

	transport := &http.Transport{
		MaxIdleConns: cfg.connections, MaxIdleConnsPerHost: cfg.connections, MaxConnsPerHost: cfg.connections,
		DisableCompression: true, IdleConnTimeout: 90 * time.Second,
	}
	defer transport.CloseIdleConnections()
	client := &http.Client{
		Transport: transport, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	t := &target{cfg: cfg, client: client}
	if err := t.prepare(ctx, stdout); err != nil {
		return err
	}

	fmt.Fprintf(stdout, "hindsight-load: %s, %d connections, client on %d CPUs (%s)\n", base, cfg.connections, runtime.NumCPU(), runtime.Version())
	fmt.Fprintf(stdout, "database: %d incidents; pages as %s; status API %s\n\n", t.total, t.pageAuth(), t.statusAPINote())

	var results []*phaseResult
	if cfg.ceiling > 0 {
		fmt.Fprintf(stdout, "phase 1: GET /healthz alone for %s (the ceiling)\n", cfg.ceiling)
		results = append(results, t.runPhase(ctx, "ceiling", cfg.ceiling, func(*worker) *request { return t.healthz() }))
	}
	if cfg.solo > 0 {
		fmt.Fprintf(stdout, "phase 2: GET /incidents alone for %s, then GET /incidents/:id alone for %s\n", cfg.solo, cfg.solo)
		results = append(results, t.runPhase(ctx, "list alone", cfg.solo, t.listPage))
		results = append(results, t.runPhase(ctx, "incident alone", cfg.solo, t.incidentPage))
	}
	fmt.Fprintf(stdout, "phase 3: mixed traffic for %s (%.0f %% writes)\n\n", cfg.duration, cfg.writeShare*100)
	results = append(results, t.runPhase(ctx, "mixed", cfg.duration, t.mixed))
	printResults(stdout, results)
	for _, r := range results {
		if r.errors() > 0 {
			return fmt.Errorf("%d request(s) failed", r.errors())
		}
	}
	return nil
}

// loopbackURL parses the server's URL and refuses any host that is not this machine: a load test
// must never be pointed at someone else's server.
func loopbackURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSuffix(raw, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--url %q: want http://127.0.0.1:PORT", raw)
	}
	host := u.Hostname()
	if host == "localhost" {
		return u, nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return u, nil
	}
	return nil, fmt.Errorf("--url %q: only a server on this machine (127.0.0.1, ::1, localhost) may be load-tested", raw)
}

// target is the server under test and what the load knows about it.
type target struct {
	cfg       config
	client    *http.Client
	cookies   []*http.Cookie // the signed-in session for pages, when --email is given
	ids       []int64        // existing incidents, for incident pages
	total     int64
	statusAPI bool
	created   atomic.Int64
}

func (t *target) pageAuth() string {
	if t.cookies != nil {
		return "a signed-in browser session (" + t.cfg.email + ")"
	}
	return "the API token"
}

func (t *target) statusAPINote() string {
	if t.statusAPI {
		return statusAPIPath + " included"
	}
	return statusAPIPath + " not served (no 200 when probed), left out of the mix"
}

// prepare checks the server, signs in, seeds when asked, collects incident ids and probes for the
// status API.
func (t *target) prepare(ctx context.Context, stdout io.Writer) error {
	if resp, err := t.do(ctx, t.healthz()); err != nil || resp != http.StatusOK {
		return fmt.Errorf("%s/healthz: status %d, %v: is the server running?", t.cfg.base, resp, err)
	}
	if t.cfg.email != "" {
		if err := t.signIn(ctx); err != nil {
			return err
		}
	}
	total, err := t.countIncidents(ctx)
	if err != nil {
		return err
	}
	if missing := int64(t.cfg.seed) - total; missing > 0 {
		fmt.Fprintf(stdout, "seeding: adding %d incidents through the API (hindsight demo --fill %d is much faster)\n", missing, missing)
		if err := t.seed(ctx, missing); err != nil {
			return err
		}
		if total, err = t.countIncidents(ctx); err != nil {
			return err
		}
	}
	t.total = total
	if err := t.collectIDs(ctx); err != nil {
		return err
	}
	if len(t.ids) == 0 {
		return errors.New("the database holds no incidents: run 'hindsight demo --fill 10000' or pass --seed 10000")
	}
	status, err := t.do(ctx, &request{route: "GET " + statusAPIPath, method: http.MethodGet, path: statusAPIPath})
	t.statusAPI = err == nil && status == http.StatusOK
	return nil
}

var csrfPattern = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// signIn signs in through the form as a browser does and keeps the session cookie.
func (t *target) signIn(ctx context.Context) error {
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Transport: t.client.Transport, Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, t.cfg.base.String()+"/login", nil)
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("sign in: %w", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfPattern.FindSubmatch(body)
	if m == nil {
		return errors.New("sign in: the sign-in page has no CSRF token")
	}
	form := url.Values{"email": {t.cfg.email}, "password": {t.cfg.password}, "csrf_token": {html.UnescapeString(string(m[1]))}}
	req, _ = http.NewRequestWithContext(ctx, http.MethodPost, t.cfg.base.String()+"/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err = client.Do(req)
	if err != nil {
		return fmt.Errorf("sign in: %w", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return fmt.Errorf("sign in as %s: status %d", t.cfg.email, resp.StatusCode)
	}
	t.cookies = jar.Cookies(t.cfg.base)
	return nil
}

func (t *target) countIncidents(ctx context.Context) (int64, error) {
	var list struct {
		Total int64 `json:"total"`
	}
	if err := t.getJSON(ctx, "/api/v1/incidents?limit=1", &list); err != nil {
		return 0, err
	}
	return list.Total, nil
}

// collectIDs reads the ids of up to 10,000 incidents, newest first, 500 a request.
func (t *target) collectIDs(ctx context.Context) error {
	for offset := 0; offset < 10_000; offset += 500 {
		var list struct {
			Incidents []struct {
				ID int64 `json:"id"`
			} `json:"incidents"`
		}
		if err := t.getJSON(ctx, fmt.Sprintf("/api/v1/incidents?limit=500&offset=%d", offset), &list); err != nil {
			return err
		}
		for _, inc := range list.Incidents {
			t.ids = append(t.ids, inc.ID)
		}
		if len(list.Incidents) < 500 {
			return nil
		}
	}
	return nil
}

func (t *target) getJSON(ctx context.Context, path string, v any) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, t.cfg.base.String()+path, nil)
	req.Header.Set("Authorization", "Bearer "+t.cfg.token)
	resp, err := t.client.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: status %d (is --token a live token?)", path, resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// seed adds n incidents through the API from all connections at once.
func (t *target) seed(ctx context.Context, n int64) error {
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	for range t.cfg.connections {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &worker{rng: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))}
			for i := next.Add(1); i <= n; i = next.Add(1) {
				status, err := t.do(ctx, t.create(w))
				if err != nil || status != http.StatusCreated {
					once.Do(func() { firstErr = fmt.Errorf("seed: status %d, %v", status, err) })
					return
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// request is one HTTP request of the mix, named by its route.
type request struct {
	route    string
	method   string
	path     string
	body     []byte
	want     int
	useToken bool
	// anonymous requests carry no credentials, as a health probe does.
	anonymous bool
	// onBody, when set, reads the response body (a created incident's id and version).
	onBody func([]byte)
}

func (t *target) healthz() *request {
	return &request{route: "GET /healthz", method: http.MethodGet, path: "/healthz", want: http.StatusOK, anonymous: true}
}

// worker is one connection's loop; each has its own random source and its own incidents to edit,
// so its updates never race another worker's.
type worker struct {
	rng   *rand.Rand
	mine  []ownIncident
	stats map[string]*routeStats
}

type ownIncident struct {
	id      int64
	version int
}

// mixed picks the next request: writeShare writes (half creates, half updates of an incident the
// worker created), the rest split between the list, incident pages and the status API.
func (t *target) mixed(w *worker) *request {
	if w.rng.Float64() < t.cfg.writeShare {
		if len(w.mine) > 0 && w.rng.IntN(2) == 0 {
			return t.update(w)
		}
		return t.create(w)
	}
	choices := 2
	if t.statusAPI {
		choices = 3
	}
	switch w.rng.IntN(choices) {
	case 0:
		return t.listPage(w)
	case 1:
		return t.incidentPage(w)
	}
	return &request{route: "GET " + statusAPIPath, method: http.MethodGet, path: statusAPIPath, want: http.StatusOK}
}

// listPage asks for one of the first pages of the list, sometimes filtered, as people read it.
func (t *target) listPage(w *worker) *request {
	path := fmt.Sprintf("/incidents?page=%d", 1+w.rng.IntN(5))
	switch w.rng.IntN(4) {
	case 0:
		path = "/incidents?severity=sev" + fmt.Sprint(1+w.rng.IntN(4))
	case 1:
		path = "/incidents?status=resolved"
	}
	return &request{route: "GET /incidents", method: http.MethodGet, path: path, want: http.StatusOK}
}

// incidentPage asks for any of the incidents.
func (t *target) incidentPage(w *worker) *request {
	id := t.ids[w.rng.IntN(len(t.ids))]
	return &request{route: "GET /incidents/:id", method: http.MethodGet, path: fmt.Sprintf("/incidents/%d", id), want: http.StatusOK}
}

type incidentBody struct {
	Version    int      `json:"version,omitempty"`
	Title      string   `json:"title"`
	Summary    string   `json:"summary"`
	Severity   string   `json:"severity"`
	Status     string   `json:"status"`
	Services   []string `json:"services"`
	Regions    []string `json:"regions"`
	StartedAt  string   `json:"started_at"`
	DetectedAt string   `json:"detected_at"`
	ResolvedAt string   `json:"resolved_at,omitempty"`
	RootCause  string   `json:"root_cause"`
}

func sampleBody(rng *rand.Rand, n int64) incidentBody {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(-time.Duration(rng.IntN(10_000)) * time.Hour)
	return incidentBody{
		Title:      fmt.Sprintf("Load test incident %d: elevated latency", n),
		Summary:    "Requests slowed down for a subset of customers while caches were cold.",
		Severity:   fmt.Sprintf("sev%d", 1+rng.IntN(4)),
		Status:     "investigating",
		Services:   []string{"Router"},
		Regions:    []string{"Europe"},
		StartedAt:  start.Format(time.RFC3339),
		DetectedAt: start.Add(time.Duration(5+rng.IntN(120)) * time.Minute).Format(time.RFC3339),
		RootCause:  "Retries from clients **amplified** the load on the cold cache.",
	}
}

func (t *target) create(w *worker) *request {
	body, _ := json.Marshal(sampleBody(w.rng, t.created.Add(1)))
	return &request{route: "POST /api/v1/incidents", method: http.MethodPost, path: "/api/v1/incidents", body: body,
		want: http.StatusCreated, useToken: true, onBody: func(b []byte) {
			var inc ownIncident
			var created struct {
				ID      int64 `json:"id"`
				Version int   `json:"version"`
			}
			if json.Unmarshal(b, &created) == nil && created.ID != 0 {
				inc.id, inc.version = created.ID, created.Version
				w.mine = append(w.mine, inc)
			}
		}}
}

func (t *target) update(w *worker) *request {
	n := w.rng.IntN(len(w.mine))
	own := &w.mine[n]
	b := sampleBody(w.rng, own.id)
	b.Version, b.Status = own.version, "resolved"
	b.ResolvedAt = time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
	body, _ := json.Marshal(b)
	return &request{route: "PUT /api/v1/incidents/:id", method: http.MethodPut, path: fmt.Sprintf("/api/v1/incidents/%d", own.id), body: body,
		want: http.StatusOK, useToken: true, onBody: func(b []byte) {
			var updated struct {
				Version int `json:"version"`
			}
			if json.Unmarshal(b, &updated) == nil && updated.Version != 0 {
				own.version = updated.Version
			}
		}}
}

// do sends one request and returns its status; the body is read in full so the connection is
// reused.
func (t *target) do(ctx context.Context, r *request) (int, error) {
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, t.cfg.base.String()+r.path, body)
	if err != nil {
		return 0, err
	}
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	switch {
	case r.anonymous:
	case r.useToken || t.cookies == nil || strings.HasPrefix(r.path, "/api/"):
		req.Header.Set("Authorization", "Bearer "+t.cfg.token)
	default:
		for _, c := range t.cookies {
			req.AddCookie(c)
		}
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if r.onBody != nil && resp.StatusCode == r.want {
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return resp.StatusCode, err
		}
		r.onBody(b)
		return resp.StatusCode, nil
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}

// routeStats are one worker's measurements of one route.
type routeStats struct {
	latencies []time.Duration
	errors    int
	statuses  map[int]int
}

type phaseResult struct {
	name      string
	elapsed   time.Duration
	routes    map[string]*routeStats
	serverCPU time.Duration // the server's user and system CPU time during the phase, when known
}

func (p *phaseResult) errors() int {
	n := 0
	for _, r := range p.routes {
		n += r.errors
	}
	return n
}

// runPhase runs the workers until the duration passes or maxRequests have been sent.
func (t *target) runPhase(ctx context.Context, name string, d time.Duration, next func(*worker) *request) *phaseResult {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var sent atomic.Int64
	workers := make([]*worker, t.cfg.connections)
	var wg sync.WaitGroup
	cpuBefore := processCPU(t.cfg.serverPID)
	start := time.Now()
	for n := range workers {
		w := &worker{rng: rand.New(rand.NewPCG(uint64(n), rand.Uint64())), stats: map[string]*routeStats{}}
		workers[n] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil && sent.Add(1) <= t.cfg.maxRequests {
				r := next(w)
				began := time.Now()
				status, err := t.do(ctx, r)
				took := time.Since(began)
				if ctx.Err() != nil {
					return // cut off by the end of the phase: neither a success nor a failure
				}
				st := w.stats[r.route]
				if st == nil {
					st = &routeStats{statuses: map[int]int{}}
					w.stats[r.route] = st
				}
				st.latencies = append(st.latencies, took)
				if err != nil || status != r.want {
					st.errors++
					st.statuses[status]++
				}
				if status == http.StatusServiceUnavailable {
					// How fast refusals come back is the point of the server's in-flight cap.
					refused := w.stats[refusedRoute]
					if refused == nil {
						refused = &routeStats{statuses: map[int]int{}}
						w.stats[refusedRoute] = refused
					}
					refused.latencies = append(refused.latencies, took)
				}
			}
		}()
	}
	wg.Wait()
	result := &phaseResult{name: name, elapsed: time.Since(start), routes: map[string]*routeStats{}}
	if cpuBefore >= 0 {
		if after := processCPU(t.cfg.serverPID); after >= 0 {
			result.serverCPU = after - cpuBefore
		}
	}
	for _, w := range workers {
		for route, st := range w.stats {
			all := result.routes[route]
			if all == nil {
				all = &routeStats{statuses: map[int]int{}}
				result.routes[route] = all
			}
			all.latencies = append(all.latencies, st.latencies...)
			all.errors += st.errors
			for code, n := range st.statuses {
				all.statuses[code] += n
			}
		}
	}
	return result
}

// refusedRoute gathers the answers 503 (server busy) of every route, counted in their routes too.
const refusedRoute = "(of which 503 busy)"

// routeOrder lists the routes in the order the table shows them.
var routeOrder = []string{"GET /healthz", "GET /incidents", "GET /incidents/:id", "GET " + statusAPIPath,
	"POST /api/v1/incidents", "PUT /api/v1/incidents/:id"}

func printResults(out io.Writer, results []*phaseResult) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "phase\troute\trequests\treq/s\tp50\tp99\terrors\t")
	for _, p := range results {
		var all routeStats
		shown := 0
		for _, route := range routeOrder {
			st := p.routes[route]
			if st == nil {
				continue
			}
			shown++
			all.latencies = append(all.latencies, st.latencies...)
			all.errors += st.errors
			printRow(tw, p.name, route, st, p.elapsed)
		}
		if shown > 1 {
			printRow(tw, p.name, "all", &all, p.elapsed)
		}
		if st := p.routes[refusedRoute]; st != nil {
			printRow(tw, p.name, refusedRoute, st, p.elapsed)
		}
	}
	tw.Flush()
	for _, p := range results {
		if p.serverCPU > 0 {
			n := 0
			for route, st := range p.routes {
				if route != refusedRoute {
					n += len(st.latencies)
				}
			}
			if n > 0 {
				fmt.Fprintf(out, "%s: the server used %.2f CPU cores, %.3f ms of CPU per request\n", p.name,
					p.serverCPU.Seconds()/p.elapsed.Seconds(), float64(p.serverCPU.Microseconds())/1000/float64(n))
			}
		}
	}
	for _, p := range results {
		for _, route := range routeOrder {
			if st := p.routes[route]; st != nil && st.errors > 0 {
				fmt.Fprintf(out, "%s %s: failures by status (0 = no response): %v\n", p.name, route, st.statuses)
			}
		}
	}
}

func printRow(w io.Writer, phase, route string, st *routeStats, elapsed time.Duration) {
	slices.Sort(st.latencies)
	n := len(st.latencies)
	fmt.Fprintf(w, "%s\t%s\t%d\t%.0f\t%s\t%s\t%d\t\n", phase, route, n, float64(n)/elapsed.Seconds(),
		ms(percentile(st.latencies, 0.50)), ms(percentile(st.latencies, 0.99)), st.errors)
}

// percentile reads a sorted sample at rank q by nearest rank.
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*q+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// processCPU reads a process's user plus system CPU time from /proc, or -1 when it cannot.
func processCPU(pid int) time.Duration {
	if pid <= 0 {
		return -1
	}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// The command name in parentheses may hold spaces: count the fields after its closing one.
	fields := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	if len(fields) < 13 {
		return -1
	}
	var utime, stime int64
	if _, err := fmt.Sscan(fields[11], &utime); err != nil {
		return -1
	}
	if _, err := fmt.Sscan(fields[12], &stime); err != nil {
		return -1
	}
	// Linux reports clock ticks, 100 a second on every architecture Go supports here.
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
