package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestMetricsAskForAToken: a scraper without credentials, or with a bad token, is told 401 with
// WWW-Authenticate: Bearer in plain text (Prometheus reports a redirect to the login page as a
// parse error), and a valid token still scrapes.
func TestMetricsAskForAToken(t *testing.T) {
	a := newApp(t)
	for name, bearer := range map[string]string{"no credentials": "", "unknown token": "hs_not-a-token-at-all"} {
		scraper := a.anonymous()
		scraper.bearer = bearer
		r := scraper.get("/metrics")
		if r.status != http.StatusUnauthorized {
			t.Errorf("%s: status %d, want 401; Location %q", name, r.status, r.header.Get("Location"))
		}
		if got := r.header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
			t.Errorf("%s: WWW-Authenticate %q, want Bearer", name, got)
		}
		if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") || len(r.body) > 200 || strings.Contains(strings.ToLower(r.body), "<html") {
			t.Errorf("%s: %s body %q, want a short plain-text one", name, ct, r.body)
		}
	}
	token := tokenPattern.FindString(a.post("/account/tokens", url.Values{"name": {"prometheus"}}).body)
	scraper := a.anonymous()
	scraper.bearer = token
	check(t, "scrape with a token", scraper.get("/metrics"), http.StatusOK, []string{"hindsight_http_requests_total", "go_goroutines"}, nil)
	check(t, "a signed-in browser", a.get("/metrics"), http.StatusOK, []string{"go_goroutines"}, nil)
	// Pages still send a browser to sign in.
	check(t, "a page, anonymous", a.anonymous().get("/insights"), http.StatusSeeOther, nil, nil)
}
