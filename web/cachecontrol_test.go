package web_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"

	"hindsight/models"
	"hindsight/models/storetest"
	"hindsight/web"
)

// Pages behind sign-in and the API's answers must not be kept by a shared cache: every GET route
// of the table, walked rather than listed, says private, no-store, apart from the public status
// page's routes, which keep their public caching.
func TestPrivateAnswersAreNotStored(t *testing.T) {
	a := newApp(t)
	check(t, "seed", a.json(http.MethodPost, "/api/v1/incidents", seed002JSON), http.StatusCreated, nil, nil)
	check(t, "public", a.json(http.MethodPost, "/api/v1/incidents", `{"title": "Public one", "severity": "sev3", "status": "resolved", "public": true}`), http.StatusCreated, nil, nil)
	seen := 0
	for _, route := range a.e.Routes() {
		if route.Method != http.MethodGet || strings.HasPrefix(route.Path, "/static") || strings.HasPrefix(route.Path, "/feeds/") {
			continue
		}
		path := strings.NewReplacer(":id", "1", ":child", "1").Replace(route.Path)
		r := a.get(path)
		if r.status >= 300 && r.status < 400 {
			continue // a redirect, such as / to /incidents
		}
		got := r.header.Get("Cache-Control")
		// The subscribe and unsubscribe pages carry a CSRF token: never stored (checked below).
		subscribing := strings.HasPrefix(route.Path, "/status/subscri") || strings.HasPrefix(route.Path, "/status/unsubscribe")
		if !subscribing && (strings.HasPrefix(route.Path, "/status") || strings.HasPrefix(route.Path, "/api/v2/")) {
			if r.status == http.StatusOK && !strings.Contains(got, "public") {
				t.Errorf("%s: Cache-Control %q, want public caching", path, got)
			}
			continue
		}
		seen++
		if got != "private, no-store" {
			t.Errorf("%s (%d): Cache-Control %q, want private, no-store", path, r.status, got)
		}
	}
	if seen < 30 {
		t.Errorf("only %d private GET routes were checked", seen)
	}
	check(t, "anonymous sign-in page", a.anonymous().get("/login"), http.StatusOK, nil, nil)
	if got := a.anonymous().get("/login").header.Get("Cache-Control"); got != "private, no-store" {
		t.Errorf("/login: Cache-Control %q", got)
	}
}

// A feed's secret link is its key: the request log names the route and a redacted path.
func TestRequestLogRedactsFeedSecrets(t *testing.T) {
	var logs bytes.Buffer
	store := storetest.SQLite(t)
	jar, _ := cookiejar.New(nil)
	a := (&app{t: t, e: web.New(web.Deps{Store: store, Log: slog.New(slog.NewTextHandler(&logs, nil))}), store: store, jar: jar}).as(models.RoleViewer)
	a.get("/account")
	r := a.post("/account/feeds", nil)
	if r.status != http.StatusSeeOther {
		t.Fatalf("create feed: %d %.300s", r.status, r.body)
	}
	page := a.get("/account").body
	start := strings.Index(page, "/feeds/")
	if start < 0 {
		t.Fatalf("no feed link on the account page")
	}
	secret := strings.SplitN(page[start+len("/feeds/"):], "/", 2)[0]
	if len(secret) < 16 {
		t.Fatalf("feed secret %q looks wrong", secret)
	}
	check(t, "calendar", a.anonymous().get("/feeds/"+secret+"/calendar.ics"), http.StatusOK, nil, nil)
	check(t, "feed", a.anonymous().get("/feeds/"+secret+"/follow-ups.atom"), http.StatusOK, nil, nil)
	a.anonymous().get("/feeds/not-a-real-secret-but-still-private/calendar.ics")
	for _, s := range []string{secret, "not-a-real-secret-but-still-private"} {
		if strings.Contains(logs.String(), s) {
			t.Errorf("the log holds the feed secret %q", s)
		}
	}
	if !strings.Contains(logs.String(), `path=/feeds/REDACTED/calendar.ics route=/feeds/:token/calendar.ics`) {
		t.Errorf("the log lacks the redacted path and route:\n%s", logs.String())
	}
}
