package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"testing"

	"hindsight/models"
	"hindsight/models/storetest"
	"hindsight/web"
)

// TestNavigationReachesEveryArea proves the factors are linked from the main navigation, and
// that admins have an Admin area whose pages link each other.
func TestNavigationReachesEveryArea(t *testing.T) {
	admin := newApp(t)
	viewer := admin.as(models.RoleViewer)
	check(t, "a viewer finds the factors", viewer.get("/incidents"), http.StatusOK,
		[]string{`<a href="/factors">Factors</a>`}, []string{`href="/admin/users"`})
	check(t, "the factors page marks its link", viewer.get("/factors"), http.StatusOK, []string{`<a href="/factors" aria-current="page">Factors</a>`}, nil)
	check(t, "an admin has an Admin link", admin.get("/incidents"), http.StatusOK, []string{`<a href="/admin/users">Admin</a>`}, []string{`aria-label="Administration"`})
	for path, current := range map[string]string{
		"/admin/users":    `<a href="/admin/users" aria-current="page">Users</a>`,
		"/admin/settings": `<a href="/admin/settings" aria-current="page">Settings</a>`,
		"/admin/import":   `<a href="/admin/import" aria-current="page">Import</a>`,
	} {
		// Every admin page marks Admin in the main navigation and links the others.
		check(t, path, admin.get(path), http.StatusOK, []string{
			`<a href="/admin/users" aria-current="page">Admin</a>`, `aria-label="Administration"`, current,
			`href="/admin/settings"`, `href="/admin/import"`,
		}, []string{`>Users</a> <a class="button primary small file"`})
	}
}

// TestFreshInstallSaysHowToBegin proves that while no account exists, / and /login say where the
// setup link is and how to create the first admin, without ever showing the token.
func TestFreshInstallSaysHowToBegin(t *testing.T) {
	store := storetest.SQLite(t)
	jar, _ := cookiejar.New(nil)
	const token = "fresh-install-token-4711"
	a := &app{t: t, store: store, jar: jar, e: web.New(web.Deps{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), SetupToken: token})}
	for _, path := range []string{"/", "/login", "/login?next=/incidents/3"} {
		check(t, path, a.get(path), http.StatusOK, []string{
			"Set up Hindsight", "no account exists yet: open the setup page",
			"hindsight user create --email you@example.com --role admin",
		}, []string{token, `name="password"`, "Sign in</h1>"})
	}
	check(t, "the setup link still works", a.get("/setup?token="+token), http.StatusOK, []string{"Create the first admin"}, nil)
	if _, err := store.CreateUser(context.Background(), models.UserInput{Email: "ada@example.com", Role: models.RoleAdmin, Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	check(t, "once an account exists, /login signs in", a.get("/login"), http.StatusOK, []string{"Sign in</h1>", `name="password"`}, []string{"no account exists yet"})
	r := a.get("/")
	if r.status != http.StatusFound || r.header.Get("Location") != "/incidents" {
		t.Errorf("/ after setup: %d to %q", r.status, r.header.Get("Location"))
	}
}

// TestAdminRemovesASuggestedFactor proves a seeded factor can be removed from /factors by an
// admin, after a confirmation that says what happens to the incidents tagged with it.
func TestAdminRemovesASuggestedFactor(t *testing.T) {
	admin := newApp(t)
	responder := admin.as(models.RoleResponder)
	path := admin.createIncident(with(seed000Form(), "factors", "cold-caches"))
	admin.post(path+"/follow-ups", url.Values{"title": {"Warm caches before serving"}, "kind": {"prevent"}, "priority": {"p1"}, "status": {"open"}, "factors": {"cold-caches"}})
	check(t, "the incident is tagged", admin.get(path), http.StatusOK, []string{"Cold caches after restart</a>"}, nil)
	check(t, "the recurrence report counts it", admin.get("/recurrence"), http.StatusOK, []string{"Cold caches after restart"}, nil)
	list := admin.get("/factors")
	m := regexp.MustCompile(`href="/factors/(\d+)/remove">Remove</a></td><td><code>cold-caches</code>`).FindStringSubmatch(list.body)
	if m == nil {
		t.Fatalf("no Remove link for cold-caches on /factors: %.3000s", list.body)
	}
	check(t, "the page says the starting set is a suggestion", list, http.StatusOK, []string{"an admin can rename or remove any of them"}, nil)
	remove := "/factors/" + m[1] + "/remove"
	check(t, "a responder sees no Remove", responder.get("/factors"), http.StatusOK, []string{"cold-caches"}, []string{"/remove"})
	check(t, "a responder may not ask", responder.get(remove), http.StatusForbidden, nil, nil)
	check(t, "a responder may not remove", responder.post(remove, nil), http.StatusForbidden, nil, nil)
	check(t, "the confirmation says what it takes away", admin.get(remove), http.StatusOK, []string{
		"Remove “Cold caches after restart”?", "1 incident and 1 follow-up are tagged with it", "They lose this tag and keep everything else",
		`<button type="submit" class="danger">Remove the factor</button>`,
	}, nil)
	r := admin.post(remove, nil)
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/factors" {
		t.Fatalf("remove: %d to %q: %.300s", r.status, r.header.Get("Location"), r.body)
	}
	check(t, "gone from the taxonomy", admin.get("/factors"), http.StatusOK, []string{"retry-amplification"}, []string{"cold-caches"})
	check(t, "the incident stays, untagged", admin.get(path), http.StatusOK, []string{"Canada - Multiple Services - Degraded Performance"}, []string{"Cold caches after restart</a>"})
	check(t, "the recurrence report forgets it", admin.get("/recurrence"), http.StatusOK, nil, []string{"Cold caches after restart"})
	check(t, "removing it again", admin.post(remove, nil), http.StatusNotFound, nil, nil)
}
