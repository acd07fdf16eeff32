package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"hindsight/models"
	"hindsight/models/storetest"
	"hindsight/web"
)

// fillPath turns a route pattern into a real path to an existing record.
func fillPath(path string) string {
	return strings.NewReplacer(":id", "1", ":child", "1").Replace(path)
}

// TestEveryRouteIsGuarded walks the whole route table: each non-public route turns anonymous
// visitors away, each state-changing route refuses a request without the CSRF token, and each
// route refuses the roles below the one it needs.
func TestEveryRouteIsGuarded(t *testing.T) {
	admin := newApp(t)
	admin.createIncident(seed000Form())
	admin.post("/incidents/1/events", url.Values{"at": {"2026-03-12T16:39"}, "time_zone": {"UTC"}, "kind": {"note"}})
	admin.post("/incidents/1/windows", url.Values{"started_at": {"2026-03-11T08:00"}, "time_zone": {"UTC"}, "level": {"degraded"}})
	admin.post("/incidents/1/follow-ups", url.Values{"title": {"t"}, "kind": {"detect"}, "priority": {"p1"}, "status": {"open"}})
	clients := map[string]*app{
		models.RoleViewer:    admin.as(models.RoleViewer),
		models.RoleResponder: admin.as(models.RoleResponder),
	}
	// Approving is a requested reviewer's own, whatever the role (the store refuses anyone else
	// with 403): ask every account, so that the walk sees the route's role alone.
	users, err := admin.store.ListUsers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var everyone []int64
	for _, u := range users {
		everyone = append(everyone, u.ID)
	}
	if err := admin.store.RequestReview(context.Background(), 1, everyone); err != nil {
		t.Fatal(err)
	}
	anonymous := admin.anonymous()
	guarded, unsafe := 0, 0
	for _, route := range admin.e.Routes() {
		role := web.RouteRole(route)
		if role == "" {
			t.Errorf("%s %s has no role in the route table", route.Method, route.Path)
			continue
		}
		if role == web.Public || strings.HasPrefix(route.Path, "/static") {
			continue
		}
		guarded++
		path := fillPath(route.Path)
		name := route.Method + " " + route.Path
		r := anonymous.do(route.Method, path, "application/x-www-form-urlencoded", strings.NewReader(""))
		switch {
		case strings.HasPrefix(path, "/api/") || path == "/metrics":
			if r.status != http.StatusUnauthorized && r.status != http.StatusForbidden {
				t.Errorf("anonymous %s: status %d, want 401", name, r.status)
			}
		case route.Method == http.MethodGet:
			if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/login") {
				t.Errorf("anonymous %s: status %d to %q, want a redirect to sign in", name, r.status, r.header.Get("Location"))
			}
		default:
			if r.status != http.StatusForbidden && r.status != http.StatusUnauthorized {
				t.Errorf("anonymous %s: status %d, want 401 or 403", name, r.status)
			}
		}
		if route.Method != http.MethodGet {
			unsafe++
			if r := admin.postRaw(path, url.Values{"title": {"x"}}); route.Method == http.MethodPost && r.status != http.StatusForbidden {
				t.Errorf("%s without a CSRF token: status %d, want 403", name, r.status)
			}
			if r := admin.postRaw(path, url.Values{"csrf_token": {"forged"}}); route.Method == http.MethodPost && r.status != http.StatusForbidden {
				t.Errorf("%s with a forged CSRF token: status %d, want 403", name, r.status)
			}
			noToken := *admin
			noToken.csrf = ""
			if r := noToken.do(route.Method, path, "application/json", strings.NewReader("{}")); r.status != http.StatusForbidden {
				t.Errorf("%s by JSON without X-CSRF-Token: status %d, want 403", name, r.status)
			}
		}
		for clientRole, client := range clients {
			allowed := models.RoleRank(clientRole) >= models.RoleRank(role)
			var r response
			if route.Method == http.MethodGet {
				r = client.get(path)
			} else {
				r = client.do(route.Method, path, "application/json", strings.NewReader("{}"))
			}
			if !allowed && r.status != http.StatusForbidden {
				t.Errorf("%s as %s: status %d, want 403", name, clientRole, r.status)
			}
			if allowed && (r.status == http.StatusForbidden || r.status == http.StatusUnauthorized) {
				t.Errorf("%s as %s: status %d, want it allowed: %.200s", name, clientRole, r.status, r.body)
			}
		}
	}
	if guarded < 25 || unsafe < 18 {
		t.Errorf("walked only %d guarded and %d unsafe routes", guarded, unsafe)
	}
}

func TestCrossOriginPostIsRefused(t *testing.T) {
	a := newApp(t)
	req := url.Values{"csrf_token": {a.csrf}}
	r := a.doWith(http.MethodPost, "/incidents", req, map[string]string{"Origin": "https://evil.example"})
	check(t, "cross-origin", r, http.StatusForbidden, []string{"came from another site"}, nil)
	r = a.doWith(http.MethodPost, "/incidents", with(seed000Form(), "csrf_token", a.csrf), map[string]string{"Origin": "http://example.com"})
	check(t, "same origin", r, http.StatusSeeOther, nil, nil)
}

func TestRolesSeeWhatTheyMayDo(t *testing.T) {
	admin := newApp(t)
	admin.createIncident(seed000Form())
	viewer := admin.as(models.RoleViewer)
	check(t, "viewer reads", viewer.get("/incidents/1"), 200, []string{"72 h 54 min", "History"}, []string{"Edit incident", "Add a timeline entry", "File an incident"})
	check(t, "viewer cannot file", viewer.post("/incidents", seed000Form()), http.StatusForbidden, []string{"may not do this"}, nil)
	check(t, "viewer cannot manage users", viewer.get("/admin/users"), http.StatusForbidden, nil, nil)
	responder := admin.as(models.RoleResponder)
	check(t, "responder edits", responder.get("/incidents/1"), 200, []string{"Edit incident", "Add a timeline entry"}, []string{`href="/admin/users"`})
	check(t, "responder files", responder.post("/incidents", seed000Form()), http.StatusSeeOther, nil, nil)
	check(t, "responder cannot manage users", responder.post("/admin/users", url.Values{"email": {"x@example.com"}, "role": {"admin"}, "password": {testPassword}, "password_confirm": {testPassword}}), http.StatusForbidden, nil, nil)
	check(t, "admin sees users", admin.get("/admin/users"), 200, []string{"Users", "viewer", "responder"}, nil)
	check(t, "admin adds a user", admin.post("/admin/users", url.Values{"email": {"New@Example.com"}, "name": {"New"}, "role": {"viewer"}, "password": {testPassword}, "password_confirm": {testPassword}}), http.StatusSeeOther, nil, nil)
	check(t, "duplicate email", admin.post("/admin/users", url.Values{"email": {"new@example.com"}, "role": {"viewer"}, "password": {testPassword}, "password_confirm": {testPassword}}), 422, []string{"An account with this email exists.", `value="new@example.com"`}, nil)
	check(t, "short password", admin.post("/admin/users", url.Values{"email": {"short@example.com"}, "role": {"viewer"}, "password": {"short"}, "password_confirm": {"short"}}), 422, []string{"Must be at least 12 characters."}, nil)
	fresh := admin.anonymous()
	fresh.login("new@example.com", testPassword)
	check(t, "new user signed in", fresh.get("/incidents"), 200, []string{"new@example.com"}, nil)
}

func TestLoginThrottleAndOneMessage(t *testing.T) {
	a := newApp(t)
	visitor := a.anonymous()
	visitor.get("/login")
	unknown := visitor.post("/login", url.Values{"email": {"nobody@example.com"}, "password": {"whatever password"}})
	check(t, "unknown email", unknown, http.StatusUnauthorized, []string{"Email or password is wrong.", `value="nobody@example.com"`}, nil)
	if _, err := a.store.CreateUser(context.Background(), models.UserInput{Email: "victim@example.com", Role: "viewer", Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < models.LoginFailureLimit; i++ {
		r := visitor.post("/login", url.Values{"email": {"victim@example.com"}, "password": {"wrong password " + strconv.Itoa(i)}})
		if i == 0 {
			check(t, "wrong password", r, http.StatusUnauthorized, []string{"Email or password is wrong."}, nil)
		}
	}
	r := visitor.post("/login", url.Values{"email": {"victim@example.com"}, "password": {testPassword}})
	check(t, "throttled even with the right password", r, http.StatusTooManyRequests, []string{"Too many failed sign-ins"}, nil)
	if ra, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || ra < 60 || ra > 15*60 {
		t.Errorf("Retry-After = %q", r.header.Get("Retry-After"))
	}
	other := a.anonymous()
	other.get("/login")
	// Ten failures for one account stop this address for that account only; the limit across
	// accounts is higher (throttle_test.go).
	check(t, "other accounts from the same address", other.post("/login", url.Values{"email": {"someone@example.com"}, "password": {"x"}}), http.StatusUnauthorized, nil, nil)
}

func TestPasswordChangeEndsOtherSessions(t *testing.T) {
	a := newServer(t)
	if _, err := a.store.CreateUser(context.Background(), models.UserInput{Email: "sre@example.com", Role: "responder", Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	laptop, phone := a.anonymous(), a.anonymous()
	laptop.login("sre@example.com", testPassword)
	phone.login("sre@example.com", testPassword)
	check(t, "wrong current password", laptop.post("/account/password", url.Values{"current_password": {"nope"}, "password": {"a brand new passphrase"}, "password_confirm": {"a brand new passphrase"}}), 422, []string{"This is not your current password."}, nil)
	check(t, "mismatch", laptop.post("/account/password", url.Values{"current_password": {testPassword}, "password": {"a brand new passphrase"}, "password_confirm": {"another"}}), 422, []string{"The two passwords differ."}, nil)
	check(t, "change", laptop.post("/account/password", url.Values{"current_password": {testPassword}, "password": {"a brand new passphrase"}, "password_confirm": {"a brand new passphrase"}}), http.StatusSeeOther, nil, nil)
	check(t, "this session goes on", laptop.get("/account"), 200, []string{"Password changed."}, nil)
	r := phone.get("/incidents")
	if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/login") {
		t.Errorf("other session after the change: status %d to %q", r.status, r.header.Get("Location"))
	}
	check(t, "logout", laptop.post("/logout", nil), http.StatusSeeOther, nil, nil)
	if r := laptop.get("/incidents"); r.status != http.StatusSeeOther {
		t.Errorf("after logout: status %d", r.status)
	}
}

func TestSessionCookie(t *testing.T) {
	a := newServer(t)
	if _, err := a.store.CreateUser(context.Background(), models.UserInput{Email: "c@example.com", Role: "viewer", Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	a.get("/login")
	r := a.post("/login", url.Values{"email": {"c@example.com"}, "password": {testPassword}})
	cookie := r.header.Get("Set-Cookie")
	for _, want := range []string{"hindsight_session=", "HttpOnly", "SameSite=Lax"} {
		if !strings.Contains(cookie, want) {
			t.Errorf("Set-Cookie %q lacks %s", cookie, want)
		}
	}
	a.get("/account")
	check(t, "safe redirect", a.post("/login", url.Values{"email": {"c@example.com"}, "password": {testPassword}, "next": {"//evil.example/"}}), http.StatusSeeOther, nil, nil)
}

func TestAPITokens(t *testing.T) {
	a := newApp(t)
	a.createIncident(seed000Form())
	check(t, "no token", a.anonymous().json(http.MethodGet, "/api/v1/incidents", nil), http.StatusUnauthorized, []string{`"error"`}, nil)
	r := a.post("/account/tokens", url.Values{"name": {"paging bridge"}})
	check(t, "create", r, http.StatusCreated, []string{"shown only once", "hs_"}, nil)
	secret := tokenPattern.FindString(r.body)
	check(t, "listed without the secret", a.get("/account"), 200, []string{"paging bridge"}, []string{secret})
	client := a.anonymous()
	client.bearer = secret
	check(t, "read with token", client.json(http.MethodGet, "/api/v1/incidents/1", nil), 200, []string{`"time_to_detect_seconds":262440`}, nil)
	check(t, "write with token, no CSRF needed", client.json(http.MethodPost, "/api/v1/incidents", seed002JSON), http.StatusCreated, nil, nil)
	check(t, "history names the token's user", a.get("/incidents/2/history"), 200, []string{"admin", "created the incident"}, nil)
	check(t, "malformed header", client.doWith(http.MethodGet, "/api/v1/incidents", nil, map[string]string{"Authorization": "Token abc"}), http.StatusUnauthorized, nil, nil)
	check(t, "empty name", a.post("/account/tokens", url.Values{"name": {" "}}), 422, []string{"Give the token a name"}, nil)
	check(t, "revoke", a.post("/account/tokens/1/revoke", nil), http.StatusSeeOther, nil, nil)
	check(t, "revoked", client.json(http.MethodGet, "/api/v1/incidents", nil), http.StatusUnauthorized, []string{`"error":"The API token is unknown or revoked."`}, nil)
	check(t, "revoke again", a.post("/account/tokens/1/revoke", nil), 404, nil, nil)

	viewer := a.as(models.RoleViewer)
	vr := viewer.post("/account/tokens", url.Values{"name": {"read only"}})
	vclient := a.anonymous()
	vclient.bearer = tokenPattern.FindString(vr.body)
	check(t, "viewer token reads", vclient.json(http.MethodGet, "/api/v1/incidents", nil), 200, nil, nil)
	check(t, "viewer token cannot write", vclient.json(http.MethodPost, "/api/v1/incidents", seed002JSON), http.StatusForbidden, []string{`"error"`}, nil)
}

func TestSetupCreatesTheFirstAdmin(t *testing.T) {
	store := storetest.SQLite(t)
	jar, _ := cookiejar.New(nil)
	a := &app{t: t, store: store, jar: jar, e: web.New(web.Deps{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), SetupToken: "first-run-token"})}
	check(t, "anonymous is sent to sign in", a.get("/incidents"), http.StatusSeeOther, nil, nil)
	check(t, "wrong token", a.get("/setup?token=guess"), http.StatusForbidden, []string{"not valid"}, nil)
	check(t, "setup page", a.get("/setup?token=first-run-token"), 200, []string{"Create the first admin"}, nil)
	check(t, "bad input keeps it", a.post("/setup", url.Values{"token": {"first-run-token"}, "email": {"not-an-email"}, "name": {"Ada"}, "password": {"short"}, "password_confirm": {"short"}}), 422, []string{`value="Ada"`, `value="not-an-email"`}, nil)
	check(t, "create", a.post("/setup", url.Values{"token": {"first-run-token"}, "email": {"ada@example.com"}, "name": {"Ada"}, "password": {testPassword}, "password_confirm": {testPassword}}), http.StatusSeeOther, nil, nil)
	check(t, "signed in as admin", a.get("/admin/users"), 200, []string{"ada@example.com"}, nil)
	check(t, "setup is closed", a.anonymous().get("/setup?token=first-run-token"), http.StatusNotFound, []string{"Setup is done"}, nil)
}

func TestHistoryRecordsEveryChange(t *testing.T) {
	a := newApp(t)
	path := a.createIncident(seed000Form())
	a.post(path+"/edit", with(seed000Form(), "title", "Renamed", "severity", "sev1", "version", "1"))
	a.post(path+"/events", url.Values{"at": {"2026-03-12T16:39"}, "time_zone": {"UTC"}, "kind": {"note"}, "body": {"first"}})
	a.post(path+"/events/1", url.Values{"at": {"2026-03-12T16:39"}, "time_zone": {"UTC"}, "kind": {"note"}, "body": {"second"}})
	a.post(path+"/windows", url.Values{"started_at": {"2026-03-11T08:00"}, "time_zone": {"UTC"}, "level": {"degraded"}})
	a.post(path+"/windows/1/delete", nil)
	a.post(path+"/follow-ups", url.Values{"title": {"Alert on latency"}, "kind": {"detect"}, "priority": {"p1"}, "status": {"open"}})
	a.post(path+"/follow-ups/1", url.Values{"title": {"Alert on latency"}, "kind": {"detect"}, "priority": {"p1"}, "status": {"done"}, "version": {"1"}})
	r := a.get(path + "/history")
	check(t, "history", r, 200, []string{
		"created the incident", "changed the incident", "Canada - Multiple Services - Degraded Performance", "Renamed", "SEV2", "SEV1",
		"created timeline entry #1", "changed timeline entry #1", "first", "second",
		"created impact window #1", "deleted impact window #1",
		"created follow-up #1", "changed follow-up #1", "Open", "Done",
		"admin",
	}, nil)
	if strings.Count(r.body, "<li>") != 8 {
		t.Errorf("history has %d entries, want 8", strings.Count(r.body, "<li>"))
	}
	a.post(path+"/delete", nil)
	entries, err := a.store.History(context.Background(), 1)
	if err != nil || len(entries) != 9 || entries[0].Action != models.ActionDelete {
		t.Errorf("after delete: %d entries, err %v", len(entries), err)
	}
	for _, route := range a.e.Routes() {
		if strings.Contains(route.Path, "history") && route.Method != http.MethodGet && route.Method != http.MethodHead {
			t.Errorf("history can be changed through %s %s", route.Method, route.Path)
		}
	}
}

// Wrong current passwords on the password form are throttled like sign-ins: past the limit even
// the right one is refused with 429 and Retry-After, next to the field, and the password stays.
func TestPasswordChangeIsThrottled(t *testing.T) {
	a := newServer(t)
	ctx := context.Background()
	if _, err := a.store.CreateUser(ctx, models.UserInput{Email: "sre@example.com", Role: "responder", Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	laptop := a.anonymous()
	laptop.login("sre@example.com", testPassword)
	change := func(current string) response {
		return laptop.post("/account/password", url.Values{"current_password": {current}, "password": {"a brand new passphrase"}, "password_confirm": {"a brand new passphrase"}})
	}
	for i := range models.LoginFailureLimit {
		check(t, "wrong current password", change("guess "+strconv.Itoa(i)), 422, []string{"This is not your current password."}, nil)
	}
	r := change(testPassword)
	check(t, "throttled even with the right password", r, http.StatusTooManyRequests, []string{"Too many wrong passwords. Try again in"}, []string{"Password changed."})
	if ra, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || ra < 60 || ra > 15*60 {
		t.Errorf("Retry-After = %q", r.header.Get("Retry-After"))
	}
	if _, err := a.store.Authenticate(ctx, "sre@example.com", testPassword); err != nil {
		t.Errorf("the password changed while throttled: %v", err)
	}
}
