package web_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/models/storetest"
	"hindsight/web"
)

type app struct {
	t     *testing.T
	e     *echo.Echo
	store *models.Store
}

func newApp(t *testing.T) *app {
	t.Helper()
	store := storetest.SQLite(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	return &app{t: t, e: web.New(web.Deps{Store: store, Log: log}), store: store}
}

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
	rec := httptest.NewRecorder()
	a.e.ServeHTTP(rec, req)
	return response{rec.Code, rec.Body.String(), rec.Header()}
}

func (a *app) get(path string) response { return a.do(http.MethodGet, path, "", nil) }

func (a *app) post(path string, form url.Values) response {
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
