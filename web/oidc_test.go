package web_test

import (
	"context"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"hindsight/handlers"
	"hindsight/models"
	"hindsight/models/storetest"
	"hindsight/web"
)

// oidcSite is Hindsight served on loopback, signing in with a real provider.
type oidcSite struct {
	t      *testing.T
	URL    string
	store  *models.Store
	idp    *testIdP
	log    *lockedLog
	signIn *handlers.SignIn // its Recheck is called by the tests, not on a timer
}

// The provider's people: an admin, an on-call responder, a viewer, and one whose email the
// provider never verified.
var idpPeople = []idpUser{
	{ID: "alice-sub", Email: "alice@example.com", EmailVerified: true, Name: "Alice Admin", Groups: []string{idpAdminGroup, "staff"}},
	{ID: "rita-sub", Email: "rita@example.com", EmailVerified: true, Name: "Rita Responder", Groups: []string{idpResponderGroup}},
	{ID: "vic-sub", Email: "vic@example.com", EmailVerified: true, Name: "Vic Viewer"},
	{ID: "eve-sub", Email: "eve@example.com", EmailVerified: false, Name: "Eve Unverified", Groups: []string{idpAdminGroup}},
	{ID: "bob-sub", Email: "bob@example.com", EmailVerified: true, Name: "Bob Password"},
}

const breakGlassEmail = "root@example.com"

// newOIDCSite starts a provider and Hindsight configured for it, password sign-in kept for the
// break-glass admin only; issuer, when not empty, replaces the provider's address.
func newOIDCSite(t *testing.T, issuer string) *oidcSite {
	t.Helper()
	return newOIDCSiteOn(t, issuer, storetest.SQLite(t))
}

// newOIDCSiteOn is newOIDCSite over the given store.
func newOIDCSiteOn(t *testing.T, issuer string, store *models.Store) *oidcSite {
	t.Helper()
	idp := startIdP(t, idpPeople...)
	if issuer == "" {
		issuer = idp.URL
	}
	if _, err := store.CreateUser(context.Background(), models.UserInput{Email: breakGlassEmail, Role: models.RoleAdmin, Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	log := &lockedLog{}
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	idp.setRedirect(base + handlers.OIDCCallbackPath)
	logger := slog.New(slog.NewTextHandler(log, nil))
	signIn := handlers.NewSignIn(store, logger,
		handlers.OIDCConfig{Issuer: issuer, ClientID: idpClientID, ClientSecret: idpClientSecret, Name: "Example ID",
			AdminGroups: []string{idpAdminGroup}, ResponderGroups: []string{idpResponderGroup}},
		handlers.PasswordSignIn{BreakGlassOnly: true, BreakGlass: []string{breakGlassEmail}})
	srv.Config.Handler = web.New(web.Deps{Store: store, Log: logger, BaseURL: base, SignIn: signIn})
	srv.Start()
	t.Cleanup(srv.Close)
	return &oidcSite{t: t, URL: base, store: store, idp: idp, log: log, signIn: signIn}
}

// lockedLog keeps the server's log for a test to read.
type lockedLog struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// person is one browser without JavaScript: plain net/http with cookies, following redirects.
type person struct {
	t       *testing.T
	site    *oidcSite
	client  *http.Client
	visited []string // every URL a redirect led to
	csrf    string
}

func (s *oidcSite) person() *person {
	jar, _ := cookiejar.New(nil)
	p := &person{t: s.t, site: s}
	p.client = &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		p.visited = append(p.visited, req.URL.String())
		return nil
	}}
	return p
}

var csrfInPage = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// page is where a request ended, after every redirect.
type page struct {
	status int
	url    *url.URL
	body   string
}

func (p *person) read(res *http.Response, err error) page {
	p.t.Helper()
	if err != nil {
		p.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if m := csrfInPage.FindSubmatch(body); m != nil {
		p.csrf = html.UnescapeString(string(m[1]))
	}
	return page{res.StatusCode, res.Request.URL, string(body)}
}

func (p *person) get(path string) page {
	p.t.Helper()
	target := path
	if strings.HasPrefix(path, "/") {
		target = p.site.URL + path
	}
	return p.read(p.client.Get(target))
}

func (p *person) post(path string, form url.Values) page {
	p.t.Helper()
	form.Set("csrf_token", p.csrf)
	return p.read(p.client.PostForm(p.site.URL+path, form))
}

// signIn clicks "Sign in with …" on the sign-in page as the provider's user.
func (p *person) signIn(userID string) page {
	p.t.Helper()
	p.site.idp.signInAs(userID)
	login := p.get("/login")
	if !strings.Contains(login.body, `href="/login/oidc?next=%2F"`) || !strings.Contains(login.body, "Sign in with ") {
		p.t.Fatalf("the sign-in page has no provider button: %.2000s", login.body)
	}
	p.visited = nil
	return p.get("/login/oidc?next=%2F")
}

// callbackURL is the provider's redirect back to Hindsight in the last sign-in.
func (p *person) callbackURL() string {
	for _, u := range p.visited {
		if strings.Contains(u, handlers.OIDCCallbackPath) {
			return u
		}
	}
	p.t.Fatalf("no callback among %v", p.visited)
	return ""
}

func (p *person) passwordSignIn(email string) page {
	p.t.Helper()
	p.get("/login")
	return p.post("/login", url.Values{"email": {email}, "password": {testPassword}})
}

func wantPage(t *testing.T, name string, got page, status int, path string, want ...string) {
	t.Helper()
	if got.status != status {
		t.Errorf("%s: status %d, want %d; body %.1500s", name, got.status, status, got.body)
	}
	if path != "" && got.url.Path != path {
		t.Errorf("%s: ended at %s, want %s", name, got.url, path)
	}
	for _, w := range want {
		if !strings.Contains(got.body, w) && !strings.Contains(got.body, html.EscapeString(w)) {
			t.Errorf("%s: page lacks %q; body %.1500s", name, w, got.body)
		}
	}
}

// signedOut checks the person has no session: a page that needs one sends them to sign in.
func (p *person) signedOut(name string) {
	p.t.Helper()
	if got := p.get("/incidents"); got.url.Path != "/login" {
		p.t.Errorf("%s: signed in after all, at %s", name, got.url)
	}
}

// TestOIDCSignIn: the first sign-in at the provider makes the account, matched by the
// provider's (issuer, subject), with the role its groups map to; the next one finds the same
// account; the groups decide the role again each time.
func TestOIDCSignIn(t *testing.T) {
	site := newOIDCSite(t, "")
	ctx := context.Background()
	alice := site.person()
	got := alice.signIn("alice-sub")
	wantPage(t, "alice signs in", got, http.StatusOK, "/incidents", "alice@example.com")
	if !strings.HasPrefix(alice.callbackURL(), site.URL+handlers.OIDCCallbackPath+"?") {
		t.Errorf("callback %s is not on the base URL", alice.callbackURL())
	}
	// The authorization request carried PKCE, a state and a nonce.
	auth, _ := url.Parse(alice.visited[0])
	for _, param := range []string{"state", "nonce", "code_challenge"} {
		if auth.Query().Get(param) == "" {
			t.Errorf("authorization request %s has no %s", auth, param)
		}
	}
	if m := auth.Query().Get("code_challenge_method"); m != "S256" {
		t.Errorf("code_challenge_method %q, want S256", m)
	}
	u, err := site.store.UserByEmail(ctx, "alice@example.com")
	if err != nil || u.Role != models.RoleAdmin || u.Name != "Alice Admin" {
		t.Fatalf("alice's account: %+v, %v", u, err)
	}
	wantPage(t, "alice is an admin", alice.get("/admin/users"), http.StatusOK, "/admin/users", "alice@example.com")

	rita := site.person()
	wantPage(t, "rita signs in", rita.signIn("rita-sub"), http.StatusOK, "/incidents")
	if u, _ := site.store.UserByEmail(ctx, "rita@example.com"); u == nil || u.Role != models.RoleResponder {
		t.Errorf("rita's account: %+v, want a responder", u)
	}
	vic := site.person()
	wantPage(t, "vic signs in", vic.signIn("vic-sub"), http.StatusOK, "/incidents")
	if u, _ := site.store.UserByEmail(ctx, "vic@example.com"); u == nil || u.Role != models.RoleViewer {
		t.Errorf("vic's account: %+v, want a viewer by default", u)
	}
	wantPage(t, "vic is no admin", vic.get("/admin/users"), http.StatusForbidden, "")

	// A removed group removes the role at the next sign-in.
	site.idp.setGroups("alice-sub", "staff")
	again := site.person()
	wantPage(t, "alice signs in again", again.signIn("alice-sub"), http.StatusOK, "/incidents")
	u2, _ := site.store.UserByEmail(ctx, "alice@example.com")
	if u2 == nil || u2.ID != u.ID || u2.Role != models.RoleViewer {
		t.Errorf("after her admin group went: %+v, want the same account as a viewer", u2)
	}
	wantPage(t, "alice's old session lost admin too", alice.get("/admin/users"), http.StatusForbidden, "")
}

// TestOIDCAttacks: every ID token the client must refuse is refused with a clear page and
// signs nobody in; a state is good for one callback only; an unverified email, and an email
// that belongs to a password account, take no account.
func TestOIDCAttacks(t *testing.T) {
	site := newOIDCSite(t, "")
	for _, tc := range []struct {
		defect string
		want   string
		logged string // go-oidc's reason, so each is refused for its own fault
	}{
		{defectForged, "failed verification", "failed to verify id token signature"},
		{defectExpired, "failed verification", "token is expired"},
		{defectAudience, "failed verification", `expected audience \"hindsight\"`},
		{defectNoNonce, "nonce", "nonce mismatch"},
		{defectWrongNonce, "nonce", "nonce mismatch"},
	} {
		site.idp.setDefect(tc.defect)
		p := site.person()
		before := len(site.log.String())
		wantPage(t, tc.defect, p.signIn("alice-sub"), http.StatusUnauthorized, handlers.OIDCCallbackPath, tc.want, "nobody was signed in")
		if logged := site.log.String()[before:]; !strings.Contains(logged, tc.logged) {
			t.Errorf("%s: refused, but the log does not say %q: %s", tc.defect, tc.logged, logged)
		}
		p.signedOut(tc.defect)
	}
	site.idp.setDefect(defectNone)
	if _, err := site.store.UserByEmail(context.Background(), "alice@example.com"); err == nil {
		t.Errorf("a refused ID token made an account")
	}

	// A replayed state: the callback that signed someone in is refused the second time, in the
	// same browser and in another.
	p := site.person()
	wantPage(t, "sign in", p.signIn("vic-sub"), http.StatusOK, "/incidents")
	callback := p.callbackURL()
	wantPage(t, "replayed state", p.get(callback), http.StatusBadRequest, handlers.OIDCCallbackPath, "expired or was already used")
	thief := site.person()
	wantPage(t, "state from another browser", thief.get(callback), http.StatusBadRequest, "", "expired or was already used")
	thief.signedOut("state from another browser")
	// A state that was never issued, in a browser that did start a sign-in.
	started := site.person()
	started.client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	site.idp.signInAs("vic-sub")
	started.get("/login")
	started.get("/login/oidc")
	wantPage(t, "forged state", started.get(handlers.OIDCCallbackPath+"?code=x&state=made-up"), http.StatusBadRequest, "", "expired or was already used")

	unverified := site.person()
	wantPage(t, "unverified email", unverified.signIn("eve-sub"), http.StatusForbidden, "", "did not confirm your email address")
	unverified.signedOut("unverified email")

	// Bob has a password account; the provider's Bob does not take it over.
	if _, err := site.store.CreateUser(context.Background(), models.UserInput{Email: "bob@example.com", Role: models.RoleAdmin, Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	taker := site.person()
	wantPage(t, "existing password account", taker.signIn("bob-sub"), http.StatusForbidden, "", "already exists here and is not linked")
	taker.signedOut("existing password account")
}

// TestOIDCProviderDown: a provider that does not answer gives a clear page at once, not a hang
// or a 500; the break-glass admin still signs in with a password, nobody else does; once the
// provider is back the next sign-in discovers it.
func TestOIDCProviderDown(t *testing.T) {
	site := newOIDCSite(t, "")
	site.idp.setDown(true)
	p := site.person()
	p.site.idp.signInAs("rita-sub")
	p.get("/login")
	got := p.get("/login/oidc")
	wantPage(t, "provider down", got, http.StatusServiceUnavailable, "/login/oidc", handlers.OIDCDown)

	wantPage(t, "break-glass password sign-in", site.person().passwordSignIn(breakGlassEmail), http.StatusOK, "/incidents", breakGlassEmail)
	if _, err := site.store.CreateUser(context.Background(), models.UserInput{Email: "pat@example.com", Role: models.RoleAdmin, Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	other := site.person()
	wantPage(t, "other password sign-in", other.passwordSignIn("pat@example.com"), http.StatusForbidden, "/login", "Password sign-in is turned off")
	other.signedOut("other password sign-in")

	site.idp.setDown(false)
	wantPage(t, "provider back", site.person().signIn("rita-sub"), http.StatusOK, "/incidents", "rita@example.com")
}

// TestOIDCProviderHangs: a provider that accepts connections and never answers is given up on
// after handlers.OIDCTimeout, and the server started without it.
func TestOIDCProviderHangs(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan net.Conn, 64)
	t.Cleanup(func() {
		ln.Close()
		for len(held) > 0 {
			(<-held).Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held <- c // read nothing, answer nothing
		}
	}()
	site := newOIDCSite(t, "http://"+ln.Addr().String())
	p := site.person()
	p.get("/login")
	start := time.Now()
	got := p.get("/login/oidc")
	took := time.Since(start)
	wantPage(t, "provider hangs", got, http.StatusServiceUnavailable, "", handlers.OIDCDown)
	if took > handlers.OIDCTimeout+2*time.Second {
		t.Errorf("the sign-in page took %s, past the %s timeout", took, handlers.OIDCTimeout)
	}
}

// TestDisableAccount: an admin disables an account; its sessions end and its API tokens get 401
// at once, and it can sign in neither at the provider nor by password.
func TestDisableAccount(t *testing.T) {
	site := newOIDCSite(t, "")
	ctx := context.Background()
	rita := site.person()
	wantPage(t, "rita signs in", rita.signIn("rita-sub"), http.StatusOK, "/incidents")
	u, err := site.store.UserByEmail(ctx, "rita@example.com")
	if err != nil {
		t.Fatal(err)
	}
	secret, _, err := site.store.CreateToken(ctx, u.ID, "ci")
	if err != nil {
		t.Fatal(err)
	}
	api := func() int {
		req, _ := http.NewRequest(http.MethodGet, site.URL+"/api/v1/incidents", nil)
		req.Header.Set("Authorization", "Bearer "+secret)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if got := api(); got != http.StatusOK {
		t.Fatalf("rita's token before: %d", got)
	}

	admin := site.person()
	admin.passwordSignIn(breakGlassEmail)
	users := admin.get("/admin/users")
	wantPage(t, "users page", users, http.StatusOK, "/admin/users", "Disable rita@example.com", "Ends their sessions and revokes their API tokens at once")
	if strings.Contains(users.body, "Disable "+breakGlassEmail) {
		t.Errorf("the users page offers the admin to disable themselves")
	}
	got := admin.post("/admin/users/"+itoa(u.ID)+"/disable", url.Values{})
	wantPage(t, "disable", got, http.StatusOK, "/admin/users", "Disabled rita@example.com", "1 API token was revoked", "Disabled")

	rita.signedOut("rita's session after disable")
	if got := api(); got != http.StatusUnauthorized {
		t.Errorf("rita's token after disable: %d, want 401", got)
	}
	wantPage(t, "rita at the provider", site.person().signIn("rita-sub"), http.StatusForbidden, "", "This account is disabled")

	// A disabled break-glass account cannot use its password either.
	other, err := site.store.UserByEmail(ctx, breakGlassEmail)
	if err != nil {
		t.Fatal(err)
	}
	second := site.person()
	wantPage(t, "alice signs in", second.signIn("alice-sub"), http.StatusOK, "/incidents")
	second.get("/admin/users")
	wantPage(t, "alice disables root", second.post("/admin/users/"+itoa(other.ID)+"/disable", url.Values{}), http.StatusOK, "/admin/users")
	wantPage(t, "root's password", site.person().passwordSignIn(breakGlassEmail), http.StatusForbidden, "/login", "This account is disabled")
	wantPage(t, "self", second.post("/admin/users/"+itoa(mustUser(t, site.store, "alice@example.com").ID)+"/disable", url.Values{}), http.StatusUnprocessableEntity, "", "cannot disable your own account")
}

func mustUser(t *testing.T, s *models.Store, email string) *models.User {
	t.Helper()
	u, err := s.UserByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
