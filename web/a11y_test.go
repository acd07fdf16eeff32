package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/models/demo"
	"hindsight/models/storetest"
	"hindsight/web"
)

var statusLink = regexp.MustCompile(`href="/status/incidents/(\d+)"`)

// AxeEnv names axe-core's axe.min.js when it is not where .ci/run installs it.
const AxeEnv = "HINDSIGHT_AXE_JS"

// axeScript reads axe-core, installed by .ci/run from npm into .ci/node, or skips the test (fails
// it when the browser is required).
func axeScript(t *testing.T) string {
	t.Helper()
	path := os.Getenv(AxeEnv)
	if path == "" {
		path = filepath.Join("..", ".ci", "node", "node_modules", "axe-core", "axe.min.js")
	}
	src, err := os.ReadFile(path)
	if err != nil {
		msg := fmt.Sprintf("axe-core not found at %s (npm install --no-save --prefix .ci/node axe-core@4.14.1, or set %s): %v", path, AxeEnv, err)
		if os.Getenv(RequireBrowserEnv) != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return string(src)
}

// a11yServer serves the real router over HTTP with the five sample incidents and an admin, who
// sees every page.
func a11yServer(t *testing.T) (*httptest.Server, *echo.Echo) {
	t.Helper()
	store := storetest.SQLite(t)
	ctx := context.Background()
	if _, err := store.CreateUser(ctx, models.UserInput{Email: "admin@example.com", Role: models.RoleAdmin, Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	// A webhook endpoint with deliveries queued by the sample incidents, one of them tried.
	if _, err := store.CreateWebhookEndpoint(ctx, models.WebhookEndpointInput{URL: "https://hooks.example.com/hindsight", Events: models.WebhookEvents, Format: models.WebhookStandard}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := demo.Load(ctx, store); err != nil {
		t.Fatal(err)
	}
	seedStatusExtras(t, store)
	if claimed, err := store.ClaimWebhookDeliveries(ctx, "a11y", time.Now(), models.Lease, 1); err != nil || len(claimed) != 1 {
		t.Fatalf("claim a delivery: %v", err)
	} else if err := store.RecordWebhookAttempt(ctx, &claimed[0], "a11y", models.AttemptResult{StatusCode: 503, ResponseHead: "upstream busy"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	brandStatusPage(t, store)
	e := web.New(web.Deps{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return srv, e
}

// axeViolation is one rule a page breaks, as axe reports it.
type axeViolation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
}

const runAxe = `axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations.map(v => ({
	id: v.id, impact: v.impact || "", help: v.help,
	targets: v.nodes.slice(0, 5).map(n => n.target.join(" "))})))`

// TestAccessibilityOfEveryPage runs axe-core in Chromium on every page a signed-in admin can open,
// and fails on any serious or critical violation. The pages are the route table's GET routes that
// answer with HTML, ids filled in from a sample incident, so a page added later is checked too.
func TestAccessibilityOfEveryPage(t *testing.T) {
	axe := axeScript(t)
	ctx := browser(t)
	srv, e := a11yServer(t)
	pages := htmlPages(t, srv, e)
	steps(t, ctx, "sign in",
		chromedp.Navigate(srv.URL+"/login"),
		chromedp.WaitVisible(chromedp.ID("email")),
		chromedp.SendKeys(chromedp.ID("email"), "admin@example.com"),
		chromedp.SendKeys(chromedp.ID("password"), testPassword),
		chromedp.Click(chromedp.CSS(`form button[type=submit]`)),
		chromedp.WaitReady(chromedp.CSS(signedIn)), // the sign-in page has an h1 too
	)
	// The sign-in page is checked signed out, in a browser of its own.
	anonymous := browser(t)
	check := func(ctx context.Context, path string) {
		steps(t, ctx, "open "+path, chromedp.Navigate(srv.URL+path), chromedp.WaitReady(chromedp.CSS("body")))
		// The Content-Security-Policy forbids inline script; DevTools evaluation is not subject
		// to it, so axe runs on the page exactly as served.
		runCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if _, err := chromedp.Run(runCtx, chromedp.Evaluate[chromedp.Void](axe)); err != nil {
			t.Fatalf("%s: load axe-core: %v", path, err)
		}
		violations, err := chromedp.Run(runCtx, chromedp.Evaluate[[]axeViolation](runAxe, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s: run axe-core: %v", path, err)
		}
		var minor []string
		for _, v := range violations {
			if v.Impact == "serious" || v.Impact == "critical" {
				t.Errorf("%s: %s violation %s (%s) at %s", path, v.Impact, v.ID, v.Help, strings.Join(v.Targets, "; "))
			} else {
				minor = append(minor, v.Impact+" "+v.ID)
			}
		}
		t.Logf("axe %s: %d serious or critical, other findings: %v", path, len(violations)-len(minor), minor)
	}
	check(anonymous, "/login")
	for _, path := range pages {
		check(ctx, path)
	}

	// axe must really be looking: an image without a text alternative and an input without a
	// label, added to a page, are reported.
	broken, err := chromedp.Run(ctx, chromedp.Evaluate[[]axeViolation](`document.querySelector("main").insertAdjacentHTML("beforeend",
		'<img src="/static/favicon.svg"><input type="text" name="unlabelled">'); `+runAxe, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("run axe-core on a broken page: %v", err)
	}
	found := map[string]bool{}
	for _, v := range broken {
		found[v.ID] = true
	}
	if !found["image-alt"] || !found["label"] {
		t.Errorf("axe did not report the broken image and input it was shown: %v", broken)
	}
}

// htmlPages lists the route table's GET pages that answer a signed-in admin with 200 and HTML.
func htmlPages(t *testing.T, srv *httptest.Server, e *echo.Echo) []string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 20 * time.Second}
	get := func(path string) (*http.Response, string) {
		resp, err := client.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}
	_, body := get("/login")
	m := csrfPattern.FindStringSubmatch(body)
	if m == nil {
		t.Fatal("sign-in page without a CSRF token")
	}
	resp, err := client.PostForm(srv.URL+"/login", url.Values{"email": {"admin@example.com"}, "password": {testPassword}, "csrf_token": {html.UnescapeString(m[1])}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	// Ids for the routes that take one: the sample incident with the most follow-ups.
	var list struct {
		Incidents []struct {
			ID        int64 `json:"id"`
			FollowUps []struct {
				ID int64 `json:"id"`
			} `json:"follow_ups"`
		} `json:"incidents"`
	}
	if _, body := get("/api/v1/incidents?limit=50"); json.Unmarshal([]byte(body), &list) != nil || len(list.Incidents) == 0 {
		t.Fatalf("list the sample incidents: %.300s", body)
	}
	incident, followUp := list.Incidents[0].ID, int64(0)
	for _, inc := range list.Incidents {
		if len(inc.FollowUps) > 0 {
			incident, followUp = inc.ID, inc.FollowUps[0].ID
			break
		}
	}
	ids := map[string]int64{"/incidents/": incident, "/follow-ups/": followUp, "/maintenance/": 1, "/admin/components/": 1, "/admin/webhooks/": 1}
	// The public status page links its incidents.
	if _, body := get("/status"); statusLink.MatchString(body) {
		var id int64
		fmt.Sscan(statusLink.FindStringSubmatch(body)[1], &id)
		ids["/status/incidents/"] = id
	}

	seen := map[string]bool{}
	var pages []string
	for _, r := range e.Routes() {
		if r.Method != http.MethodGet || strings.HasPrefix(r.Path, "/api/") || strings.HasPrefix(r.Path, "/static") ||
			r.Path == "/login" || r.Path == "/setup" || strings.Contains(r.Path, "*") {
			continue
		}
		path := r.Path
		if strings.Contains(path, ":") {
			filled := false
			for prefix, id := range ids {
				if strings.HasPrefix(path, prefix+":id") && id != 0 {
					path, filled = strings.Replace(path, ":id", fmt.Sprint(id), 1), true
				}
			}
			if !filled || strings.Contains(path, ":") {
				continue // a route whose parameter this test cannot fill (a feed token)
			}
		}
		if seen[path] {
			continue
		}
		seen[path] = true
		resp, _ := get(path)
		// A redirect (/ to /incidents) is checked where it lands.
		if resp.StatusCode == http.StatusOK && resp.Request.URL.Path == path && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			pages = append(pages, path)
		}
	}
	sort.Strings(pages)
	for _, must := range []string{"/incidents", "/incidents/new", fmt.Sprintf("/incidents/%d", incident),
		fmt.Sprintf("/incidents/%d/edit", incident), "/account", "/admin/users"} {
		if !seen[must] || !contains(pages, must) {
			t.Errorf("%s is not among the pages checked: %v", must, pages)
		}
	}
	t.Logf("pages checked: %v", pages)
	return pages
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestKeyboardOnlyFilingOfAnIncident files an incident without touching the mouse: Tab moves
// through the page to each field, keys type and choose, Enter on the save button submits; every
// control reached shows where the focus is.
func TestKeyboardOnlyFilingOfAnIncident(t *testing.T) {
	ctx := browser(t)
	srv := liveServer(t)
	signIn(t, ctx, srv)
	steps(t, ctx, "open the form", chromedp.Navigate(srv.URL+"/incidents/new"), chromedp.WaitVisible(chromedp.ID("title")))

	// tabTo presses Tab until the element with the id has the focus, checking that every stop
	// on the way shows a focus indicator.
	tabTo := func(id string) {
		t.Helper()
		for range 200 {
			steps(t, ctx, "press Tab", chromedp.KeyEvent(kb.Tab))
			focus, err := chromedp.Run(ctx, chromedp.Evaluate[struct {
				ID      string `json:"id"`
				Tag     string `json:"tag"`
				Visible bool   `json:"visible"`
			}](`(() => { const el = document.activeElement, s = getComputedStyle(el);
				return {id: el.id, tag: el.tagName,
					visible: (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== "none"}; })()`))
			if err != nil {
				t.Fatalf("read the focus: %v", err)
			}
			if !focus.Visible {
				t.Errorf("the focused %s#%s shows no focus indicator", focus.Tag, focus.ID)
			}
			if focus.ID == id {
				return
			}
		}
		t.Fatalf("Tab never reached #%s", id)
	}
	typeKeys := func(keys string) { t.Helper(); steps(t, ctx, "type", chromedp.KeyEvent(keys)) }

	tabTo("title")
	typeKeys("Keyboard-filed outage of the router")
	tabTo("summary")
	typeKeys("Filed with the keyboard alone.")
	tabTo("severity")
	typeKeys(kb.ArrowUp) // from the default sev2 to sev1
	tabTo("save-incident")
	typeKeys(kb.Enter)
	steps(t, ctx, "wait for the incident page", chromedp.WaitVisible(chromedp.ID("figure-time_to_resolve")))
	if got := text(t, ctx, "h1"); got != "Keyboard-filed outage of the router" {
		t.Errorf("after pressing Enter the page says %q", got)
	}
	if got := text(t, ctx, ".badge.sev-sev1"); got == "" {
		t.Errorf("the severity chosen with the arrow key was not saved")
	}
}
