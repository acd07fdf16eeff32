package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"hindsight/handlers"
	"hindsight/models"
	"hindsight/models/storetest"
)

// TestOIDCRecheckEndsSessions: the provider's refresh token of each sign-in is kept sealed; the
// re-check asks the provider again with it; when the provider refuses (the person disabled or
// removed there: invalid_grant), every session of the account ends, and nothing else: the
// account stays enabled and keeps its API tokens. A provider that is down ends nobody's session.
func TestOIDCRecheckEndsSessions(t *testing.T) {
	site := newOIDCSite(t, "")
	ctx := context.Background()
	later := func() time.Time { return time.Now().Add(time.Hour) } // everyone is due

	alice, rita, vic := site.person(), site.person(), site.person()
	wantPage(t, "alice signs in", alice.signIn("alice-sub"), http.StatusOK, "/incidents")
	wantPage(t, "rita signs in", rita.signIn("rita-sub"), http.StatusOK, "/incidents")
	wantPage(t, "vic signs in", vic.signIn("vic-sub"), http.StatusOK, "/incidents")
	aliceTab := site.person() // a second browser of alice's
	wantPage(t, "alice's second browser", aliceTab.signIn("alice-sub"), http.StatusOK, "/incidents")
	if n := site.idp.refreshes("alice-sub"); n != 2 {
		t.Fatalf("the provider holds %d refresh tokens of alice, want 2 (offline_access asked for)", n)
	}
	due, err := site.store.IdentitiesToRecheck(ctx, site.idp.URL, later(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(due) != 3 {
		t.Fatalf("%d identities due, want 3", len(due))
	}
	for _, ident := range due {
		if !strings.HasPrefix(ident.RefreshToken, "v1.") || len(ident.RefreshToken) < 40 {
			t.Errorf("identity %s keeps its refresh token as %q, want it sealed", ident.Subject, ident.RefreshToken)
		}
	}
	if recent, err := site.store.IdentitiesToRecheck(ctx, site.idp.URL, time.Now().Add(-time.Hour), 10); err != nil || len(recent) != 0 {
		t.Errorf("identities vouched for just now are due already: %v, %v", recent, err)
	}

	secret, _, err := site.store.CreateToken(ctx, mustUser(t, site.store, "alice@example.com").ID, "ci")
	if err != nil {
		t.Fatal(err)
	}

	got, err := site.signIn.Recheck(ctx, later())
	if err != nil || got != (handlers.Rechecked{Vouched: 3}) {
		t.Fatalf("first re-check: %+v, %v; want 3 vouched", got, err)
	}
	if n := site.idp.refreshes("alice-sub"); n != 2 {
		t.Errorf("after a refresh the provider holds %d refresh tokens of alice, want 2 (rotated, not added)", n)
	}
	wantPage(t, "alice after a passed re-check", alice.get("/incidents"), http.StatusOK, "/incidents")

	// The provider is down: nobody is signed out for it.
	site.idp.setDown(true)
	if got, err := site.signIn.Recheck(ctx, later()); err == nil || got.Refused != 0 {
		t.Errorf("re-check while the provider is down: %+v, %v; want an error and nobody refused", got, err)
	}
	site.idp.setDown(false)
	wantPage(t, "vic while the provider was down", vic.get("/incidents"), http.StatusOK, "/incidents")

	// Alice is disabled at the provider and Rita removed from it.
	site.idp.disable("alice-sub")
	site.idp.remove("rita-sub")
	got, err = site.signIn.Recheck(ctx, later())
	if err != nil || got != (handlers.Rechecked{Vouched: 1, Refused: 2}) {
		t.Fatalf("re-check after leaving: %+v, %v; want 1 vouched, 2 refused", got, err)
	}
	alice.signedOut("alice, disabled at the provider")
	aliceTab.signedOut("alice's second browser")
	rita.signedOut("rita, removed at the provider")
	wantPage(t, "vic stays", vic.get("/incidents"), http.StatusOK, "/incidents")

	// Nothing else was revoked: the account is enabled, its API token works, and the refusal is
	// in its history.
	u := mustUser(t, site.store, "alice@example.com")
	if u.DisabledAt != nil {
		t.Errorf("alice's account was disabled; the re-check only ends sessions")
	}
	req, _ := http.NewRequest(http.MethodGet, site.URL+"/api/v1/incidents", nil)
	req.Header.Set("Authorization", "Bearer "+secret)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("alice's API token after the re-check: %d, want 200", res.StatusCode)
	}
	history, err := site.store.UserHistory(ctx, u.ID)
	if err != nil || len(history) != 1 || history[0].Actor != "identity provider" || !strings.Contains(history[0].Changes, "refused") {
		t.Errorf("alice's history: %+v, %v", history, err)
	}
	// The refused token is forgotten: the next pass does not ask about it again.
	if got, err := site.signIn.Recheck(ctx, later()); err != nil || got != (handlers.Rechecked{Vouched: 1}) {
		t.Errorf("third re-check: %+v, %v; want vic alone", got, err)
	}
	// Hindsight did not lock alice out itself: whether she signs in again is the provider's to
	// decide (this test provider's login step lets anyone in).
	wantPage(t, "alice signs in again", site.person().signIn("alice-sub"), http.StatusOK, "/incidents")
}

// TestOIDCConcurrentFirstSignIn: two callbacks of the same new subject at once (two tabs, a
// double click) make one account, and both people end signed in, on SQLite and PostgreSQL.
func TestOIDCConcurrentFirstSignIn(t *testing.T) {
	storetest.Each(t, func(t *testing.T, store *models.Store) {
		site := newOIDCSiteOn(t, "", store)
		const tabs = 4
		people := make([]*person, tabs)
		callbacks := make([]string, tabs)
		site.idp.signInAs("vic-sub")
		for n := range people {
			p := site.person()
			p.get("/login")
			follow := p.client.CheckRedirect
			p.client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
				if req.URL.Path == handlers.OIDCCallbackPath {
					return http.ErrUseLastResponse
				}
				return follow(req, via)
			}
			res, err := p.client.Get(site.URL + "/login/oidc?next=%2F")
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			callbacks[n] = res.Header.Get("Location")
			if !strings.Contains(callbacks[n], handlers.OIDCCallbackPath+"?") {
				t.Fatalf("tab %d: the provider sent back to %q (status %d)", n, callbacks[n], res.StatusCode)
			}
			p.client.CheckRedirect = follow
			people[n] = p
		}
		var wg sync.WaitGroup
		pages := make([]page, tabs)
		start := make(chan struct{})
		for n, p := range people {
			wg.Go(func() {
				<-start
				pages[n] = p.get(callbacks[n])
			})
		}
		close(start)
		wg.Wait()
		for n, got := range pages {
			wantPage(t, "tab "+itoa(int64(n)), got, http.StatusOK, "/incidents")
		}
		users, err := store.ListUsers(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		vics := 0
		for _, u := range users {
			if u.Email == "vic@example.com" {
				vics++
			}
		}
		if vics != 1 {
			t.Errorf("%d accounts of vic, want 1", vics)
		}
		if strings.Contains(site.log.String(), "level=ERROR") {
			t.Errorf("the server logged an error: %s", site.log.String())
		}
	})
}

// TestEnableAccount: an admin enables a disabled account again; it signs in again, its old API
// tokens stay revoked, and both changes are in its history with who made them.
func TestEnableAccount(t *testing.T) {
	site := newOIDCSite(t, "")
	ctx := context.Background()
	rita := site.person()
	wantPage(t, "rita signs in", rita.signIn("rita-sub"), http.StatusOK, "/incidents")
	u := mustUser(t, site.store, "rita@example.com")
	secret, _, err := site.store.CreateToken(ctx, u.ID, "ci")
	if err != nil {
		t.Fatal(err)
	}
	admin := site.person()
	admin.passwordSignIn(breakGlassEmail)
	admin.get("/admin/users")
	wantPage(t, "disable", admin.post("/admin/users/"+itoa(u.ID)+"/disable", url.Values{}), http.StatusOK, "/admin/users", "Enable rita@example.com")
	wantPage(t, "rita refused", site.person().signIn("rita-sub"), http.StatusForbidden, "", "This account is disabled")

	got := admin.post("/admin/users/"+itoa(u.ID)+"/enable", url.Values{})
	wantPage(t, "enable", got, http.StatusOK, "/admin/users", "Enabled rita@example.com", "Disable rita@example.com")
	if mustUser(t, site.store, "rita@example.com").DisabledAt != nil {
		t.Fatal("rita is still disabled")
	}
	wantPage(t, "rita signs in again", site.person().signIn("rita-sub"), http.StatusOK, "/incidents")
	rita.signedOut("rita's session from before the disable")
	if _, err := site.store.UserByToken(ctx, secret); err == nil {
		t.Errorf("rita's revoked token works again")
	}
	history, err := site.store.UserHistory(ctx, u.ID)
	if err != nil || len(history) != 2 {
		t.Fatalf("history: %+v, %v; want 2 entries", history, err)
	}
	if history[0].Actor != breakGlassEmail || !strings.Contains(history[0].Changes, `"before":true,"after":false`) ||
		!strings.Contains(history[1].Changes, `"before":false,"after":true`) {
		t.Errorf("history: %+v", history)
	}

	// Only admins may, and with the form's CSRF token.
	wantPage(t, "rita enables", rita.post("/admin/users/"+itoa(u.ID)+"/enable", url.Values{}), http.StatusUnauthorized, "")
	noToken := site.person()
	noToken.passwordSignIn(breakGlassEmail)
	noToken.csrf = "forged"
	if got := noToken.post("/admin/users/"+itoa(u.ID)+"/enable", url.Values{}); got.status != http.StatusForbidden {
		t.Errorf("enable without the CSRF token: %d", got.status)
	}
	wantPage(t, "unknown account", admin.post("/admin/users/999999/enable", url.Values{}), http.StatusNotFound, "")
}
