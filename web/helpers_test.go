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
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/models/storetest"
	"hindsight/web"
)

// app is one browser or API client of a real server on a temporary SQLite database: it keeps
// its cookies and the CSRF token of the last page it read, and sends that token with its posts.
type app struct {
	t      testing.TB
	e      *echo.Echo
	store  *models.Store
	jar    http.CookieJar
	csrf   string
	bearer string
	// lastStatements counts the statements of the last request sent through do.
	lastStatements *atomic.Int64
}

var siteURL, _ = url.Parse("http://example.com/")

// newApp starts a server and signs in as an admin.
func newApp(t *testing.T) *app {
	t.Helper()
	return newServer(t).as(models.RoleAdmin)
}

// newServer starts a server and returns an anonymous client of it.
func newServer(t testing.TB) *app {
	t.Helper()
	store := storetest.SQLite(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	jar, _ := cookiejar.New(nil)
	return &app{t: t, e: web.New(web.Deps{Store: store, Log: log}), store: store, jar: jar}
}

// anonymous returns a client of the same server with no cookies.
func (a *app) anonymous() *app {
	jar, _ := cookiejar.New(nil)
	return &app{t: a.t, e: a.e, store: a.store, jar: jar}
}

var userCount atomic.Int64

// as returns a client of the same server signed in as a new user with the role.
func (a *app) as(role string) *app {
	a.t.Helper()
	email := fmt.Sprintf("%s%d@example.com", role, userCount.Add(1))
	if _, err := a.store.CreateUser(context.Background(), models.UserInput{Email: email, Role: role, Password: testPassword}); err != nil {
		a.t.Fatal(err)
	}
	c := a.anonymous()
	c.login(email, testPassword)
	return c
}

const testPassword = "correct horse battery"

func (a *app) login(email, password string) {
	a.t.Helper()
	a.get("/login")
	r := a.post("/login", url.Values{"email": {email}, "password": {password}})
	if r.status != http.StatusSeeOther {
		a.t.Fatalf("login %s: status %d: %.300s", email, r.status, r.body)
	}
	a.get("/account")
}

var csrfPattern = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

type response struct {
	status int
	body   string
	header http.Header
}

func (a *app) do(method, path, contentType string, body io.Reader) response {
	a.t.Helper()
	req := httptest.NewRequest(method, path, body)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for _, c := range a.jar.Cookies(siteURL) {
		req.AddCookie(c)
	}
	if a.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+a.bearer)
	} else if a.csrf != "" && contentType != "application/x-www-form-urlencoded" {
		req.Header.Set("X-CSRF-Token", a.csrf)
	}
	a.lastStatements = new(atomic.Int64)
	req = req.WithContext(models.WithStatementCounter(req.Context(), a.lastStatements))
	rec := httptest.NewRecorder()
	a.e.ServeHTTP(rec, req)
	a.jar.SetCookies(siteURL, rec.Result().Cookies())
	if m := csrfPattern.FindStringSubmatch(rec.Body.String()); m != nil {
		a.csrf = html.UnescapeString(m[1])
	}
	return response{rec.Code, rec.Body.String(), rec.Header()}
}

func (a *app) get(path string) response { return a.do(http.MethodGet, path, "", nil) }

// doWith sends a form with extra headers.
func (a *app) doWith(method, path string, form url.Values, headers map[string]string) response {
	a.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	for _, c := range a.jar.Cookies(siteURL) {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	a.e.ServeHTTP(rec, req)
	return response{rec.Code, rec.Body.String(), rec.Header()}
}

var tokenPattern = regexp.MustCompile(`hs_[A-Za-z0-9_-]{40,}`)

// post sends a form with the client's CSRF token, as a browser would.
func (a *app) post(path string, form url.Values) response {
	a.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if form.Get("csrf_token") == "" && a.csrf != "" {
		form = with(form, "csrf_token", a.csrf)
	}
	return a.postRaw(path, form)
}

// postRaw sends a form exactly as given.
func (a *app) postRaw(path string, form url.Values) response {
	return a.do(http.MethodPost, path, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
}

func (a *app) json(method, path string, body any) response {
	a.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			a.t.Fatal(err)
		}
		r = strings.NewReader(string(raw))
	}
	return a.do(method, path, "application/json", r)
}

func (r response) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.body), v); err != nil {
		t.Fatalf("decode %q: %v", r.body, err)
	}
}

// check asserts a status and that the body holds every want and none of the notWant strings.
func check(t *testing.T, name string, r response, status int, want []string, notWant []string) {
	t.Helper()
	if r.status != status {
		t.Errorf("%s: status %d, want %d; body: %.400s", name, r.status, status, r.body)
	}
	for _, w := range want {
		if !strings.Contains(r.body, w) {
			t.Errorf("%s: body lacks %q; body: %.1500s", name, w, r.body)
		}
	}
	for _, w := range notWant {
		if strings.Contains(r.body, w) {
			t.Errorf("%s: body contains %q", name, w)
		}
	}
}

// seed000Form is seed 000 as a person types it into the new incident form.
func seed000Form() url.Values {
	return url.Values{
		"title":            {"Canada - Multiple Services - Degraded Performance"},
		"summary":          {"Slow and timing-out requests in Canada for three days."},
		"severity":         {"sev2"},
		"status":           {"resolved"},
		"detection_method": {"customer_report"},
		"services":         {"Orchestrator, Action Center"},
		"regions":          {"Canada"},
		"time_zone":        {"UTC"},
		"started_at":       {"2026-03-09T16:00"},
		"detected_at":      {"2026-03-12T16:54"},
		"mitigated_at":     {"2026-03-12T17:45"},
		"resolved_at":      {"2026-03-12T18:28"},
		"postmortem_state": {"draft"},
		"root_cause":       {"Routing caches came up **cold** after restarts."},
	}
}

// createIncident files seed 000 through the form and returns the new incident's path.
func (a *app) createIncident(form url.Values) string {
	a.t.Helper()
	r := a.post("/incidents", form)
	if r.status != http.StatusSeeOther {
		a.t.Fatalf("create: status %d: %.800s", r.status, r.body)
	}
	return r.header.Get("Location")
}

func with(form url.Values, kv ...string) url.Values {
	out := url.Values{}
	for k, v := range form {
		out[k] = append([]string(nil), v...)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out.Set(kv[i], kv[i+1])
	}
	return out
}
