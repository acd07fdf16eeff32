package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// queryNames are the query parameters the handlers read, by name; each GET route is sent each of
// them, whether or not it reads it.
var queryNames = []string{"page", "offset", "limit", "from", "to", "due", "sort", "group_by", "interval",
	"figure", "table", "edit", "edit_event", "edit_window", "edit_follow_up", "mine", "q", "status",
	"severity", "service", "region", "owner", "factor", "postmortem", "next", "return", "saved", "token"}

var nastyValues = []string{"9223372036854775807", "-9223372036854775808", "4611686018427387904",
	"99999999999999999999999", "-1", "0", "1e309", "NaN", "9999-12-31", "0000-01-01", "\x00",
	strings.Repeat("9", 5000), "%ff", "2026-13-45", "sev9", "../../etc/passwd"}

// getRoutes lists the app's GET paths with their parameters filled in with incident 1.
func getRoutes(a *app) []string {
	var paths []string
	for _, route := range a.e.Routes() {
		if route.Method != http.MethodGet || strings.HasPrefix(route.Path, "/static") || route.Path == "/*" {
			continue
		}
		paths = append(paths, strings.NewReplacer(":id", "1", ":child", "1", ":token", "x").Replace(route.Path))
	}
	return paths
}

func fuzzApp(t testing.TB) *app {
	a := newServer(t).as("admin")
	a.json(http.MethodPost, "/api/v1/incidents", seed002JSON)
	return a
}

// No query parameter value makes any GET route answer 5xx or panic: a page number of 2^62 gave a
// 500 from an overflowing offset.
func TestNoQueryParameterAnswers5xx(t *testing.T) {
	a := fuzzApp(t)
	routes := getRoutes(a)
	sent := 0
	for _, path := range routes {
		for _, name := range queryNames {
			for _, value := range nastyValues {
				r := a.get(path + "?" + url.Values{name: {value}}.Encode())
				sent++
				if r.status >= 500 {
					t.Errorf("GET %s?%s=%.40q: %d: %.200s", path, name, value, r.status, r.body)
				}
			}
		}
	}
	if sent < 10000 {
		t.Errorf("only %d requests sent", sent)
	}
	for _, path := range []string{"/api/v1/follow-ups?offset=9223372036854775807", "/api/v1/incidents?offset=9223372036854775807"} {
		check(t, path, a.get(path), http.StatusOK, nil, nil)
	}
	check(t, "a page past the end", a.get("/follow-ups?page=4611686018427387904"), http.StatusOK, nil, nil)
}

func FuzzListQueryParameters(f *testing.F) {
	for n, v := range nastyValues {
		f.Add(n, queryNames[n%len(queryNames)], v)
	}
	a := fuzzApp(f)
	routes := getRoutes(a)
	f.Fuzz(func(t *testing.T, route int, name, value string) {
		if route < 0 {
			route = -route
		}
		path := routes[route%len(routes)]
		client := *a
		client.t = t
		r := client.get(path + "?" + url.Values{name: {value}}.Encode())
		if r.status >= 500 {
			t.Errorf("GET %s?%s=%q: %d: %.200s", path, name, value, r.status, r.body)
		}
	})
}
