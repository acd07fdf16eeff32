package main

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"hindsight/models/storetest"
)

// TestTwoServersShareOnePostgres runs two server processes on one PostgreSQL database and nothing
// else in common: they start at the same moment (one migrates, the other waits), a session made
// by signing in on one works on the other and signing out on the other ends it, an edit made
// through one is read through the other, and edits racing through both obey the optimistic lock.
func TestTwoServersShareOnePostgres(t *testing.T) {
	dsn := storetest.PostgresURL(t)
	if dsn == "" {
		t.Skip(storetest.PostgresEnv + " is not set; the two-server test needs PostgreSQL")
	}
	bin := buildBinary(t)

	// Both start on an empty database at once: the migration lock lets exactly one migrate.
	servers := make([]*serverProcess, 2)
	var started sync.WaitGroup
	for n := range servers {
		started.Add(1)
		go func() {
			defer started.Done()
			servers[n] = startServer(t, bin, dsn)
		}()
	}
	started.Wait()
	if t.Failed() {
		t.FailNow()
	}
	a, b := servers[0], servers[1]
	token := createUserAndToken(t, dsn, "scale@example.com")

	// A session made on A works on B, and ending it on B ends it on A.
	jar, _ := cookiejar.New(nil) // cookies belong to a host, not a port: A's cookie goes to B too
	browser := &http.Client{Jar: jar, Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	csrf := signInForm(t, browser, a.URL, "scale@example.com", "correct horse battery staple")
	if status, body := getPage(t, browser, b.URL+"/account"); status != http.StatusOK || !strings.Contains(body, "scale@example.com") {
		t.Fatalf("B with the session made on A: %d", status)
	}
	_, body := getPage(t, browser, b.URL+"/account")
	if m := csrfField.FindStringSubmatch(body); m == nil || html.UnescapeString(m[1]) != csrf {
		t.Errorf("B does not see the session's CSRF token made on A")
	}

	// An edit through A is read through B.
	api := newAPIClient(token)
	ctx := context.Background()
	var inc apiIncident
	if status, err := api.call(ctx, http.MethodPost, a.URL+"/api/v1/incidents", incidentBody("Filed on A", 0), &inc); err != nil || status != http.StatusCreated {
		t.Fatalf("create on A: %d, %v", status, err)
	}
	if status, err := api.call(ctx, http.MethodPut, fmt.Sprintf("%s/api/v1/incidents/%d", a.URL, inc.ID), incidentBody("Edited on A", inc.Version), &inc); err != nil || status != http.StatusOK {
		t.Fatalf("edit on A: %d, %v", status, err)
	}
	var seen apiIncident
	if status, err := api.call(ctx, http.MethodGet, fmt.Sprintf("%s/api/v1/incidents/%d", b.URL, inc.ID), nil, &seen); err != nil || status != http.StatusOK {
		t.Fatalf("read on B: %d, %v", status, err)
	}
	if seen.Title != "Edited on A" || seen.Version != inc.Version {
		t.Errorf("B reads %q at version %d, want %q at version %d", seen.Title, seen.Version, "Edited on A", inc.Version)
	}
	if status, page := getPage(t, browser, fmt.Sprintf("%s/incidents/%d", b.URL, inc.ID)); status != http.StatusOK || !strings.Contains(page, "Edited on A") {
		t.Errorf("B's incident page: %d, lacks the edit made on A", status)
	}

	// Edits racing through A and B from the same version: exactly one wins each round.
	for round := range 5 {
		version := seen.Version
		results := make([]int, 2)
		var race sync.WaitGroup
		start := make(chan struct{})
		for n, srv := range []*serverProcess{a, b} {
			race.Add(1)
			go func() {
				defer race.Done()
				<-start
				status, err := api.call(ctx, http.MethodPut, fmt.Sprintf("%s/api/v1/incidents/%d", srv.URL, inc.ID),
					incidentBody(fmt.Sprintf("Round %d edit through server %d", round, n), version), nil)
				if err != nil {
					t.Errorf("round %d through server %d: %v", round, n, err)
				}
				results[n] = status
			}()
		}
		close(start)
		race.Wait()
		won, conflicted := 0, 0
		for _, status := range results {
			switch status {
			case http.StatusOK:
				won++
			case http.StatusConflict:
				conflicted++
			}
		}
		if won != 1 || conflicted != 1 {
			t.Fatalf("round %d: answers %v, want one 200 and one 409", round, results)
		}
		if status, err := api.call(ctx, http.MethodGet, fmt.Sprintf("%s/api/v1/incidents/%d", a.URL, inc.ID), nil, &seen); err != nil || status != http.StatusOK {
			t.Fatalf("read after round %d: %d, %v", round, status, err)
		}
		if seen.Version != version+1 {
			t.Fatalf("after round %d the version is %d, want %d: a lost update", round, seen.Version, version+1)
		}
	}

	// Signing out on B ends the session on A too.
	form := url.Values{"csrf_token": {csrf}}
	req, _ := http.NewRequest(http.MethodPost, b.URL+"/logout", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := browser.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if status, _ := getPage(t, browser, a.URL+"/account"); status != http.StatusSeeOther {
		t.Errorf("A after signing out on B: %d, want a redirect to sign in", status)
	}
}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// signInForm signs in through the sign-in page, as a browser does, and returns the CSRF token.
func signInForm(t *testing.T, browser *http.Client, base, email, password string) string {
	t.Helper()
	_, body := getPage(t, browser, base+"/login")
	m := csrfField.FindStringSubmatch(body)
	if m == nil {
		t.Fatal("the sign-in page has no CSRF token")
	}
	form := url.Values{"email": {email}, "password": {password}, "csrf_token": {html.UnescapeString(m[1])}}
	resp, err := browser.PostForm(base+"/login", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in on %s: %d", base, resp.StatusCode)
	}
	_, body = getPage(t, browser, base+"/account")
	if m = csrfField.FindStringSubmatch(body); m == nil {
		t.Fatal("the account page has no CSRF token")
	}
	return html.UnescapeString(m[1])
}

func getPage(t *testing.T, client *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}
