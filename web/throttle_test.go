package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"hindsight/models"
)

// loginFrom signs in from a client address, as a browser behind that address would: it reads the
// sign-in page for its session and CSRF token, then posts the form. The server takes the address
// from the connection (no proxies are trusted in tests), so the request's RemoteAddr is it.
func (a *app) loginFrom(addr, email, password string) response {
	a.t.Helper()
	a.get("/login")
	form := url.Values{"email": {email}, "password": {password}, "csrf_token": {a.csrf}}
	req := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.RemoteAddr = addr + ":40000"
	for _, c := range a.jar.Cookies(siteURL) {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	a.e.ServeHTTP(rec, req)
	a.jar.SetCookies(siteURL, rec.Result().Cookies())
	return response{rec.Code, rec.Body.String(), rec.Header()}
}

func checkThrottled(t *testing.T, name string, r response) {
	t.Helper()
	check(t, name, r, http.StatusTooManyRequests, []string{"Too many failed sign-ins"}, nil)
	if s, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || s < 1 || s > int(models.LoginFailureWindow.Seconds()) {
		t.Errorf("%s: Retry-After %q", name, r.header.Get("Retry-After"))
	}
}

// TestLoginThrottleCannotLockTheOwnerOut: wrong passwords for an account from many addresses
// do not stop its owner signing in from their own.
func TestLoginThrottleCannotLockTheOwnerOut(t *testing.T) {
	a := newServer(t)
	if _, err := a.store.CreateUser(context.Background(), models.UserInput{Email: "owner@example.com", Role: models.RoleViewer, Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	for i := range models.LoginFailureLimit {
		r := a.anonymous().loginFrom(fmt.Sprintf("203.0.113.%d", i+1), "owner@example.com", "wrong password "+strconv.Itoa(i))
		check(t, "wrong password from attacker "+strconv.Itoa(i+1), r, http.StatusUnauthorized, []string{"Email or password is wrong."}, nil)
	}
	check(t, "owner from a fresh address", a.anonymous().loginFrom("198.51.100.7", "owner@example.com", testPassword), http.StatusSeeOther, nil, nil)
	check(t, "owner from an address with one failure", a.anonymous().loginFrom("203.0.113.1", "owner@example.com", testPassword), http.StatusSeeOther, nil, nil)
}

// TestLoginThrottlePerAddress: an address that keeps guessing one account's password is
// refused for that account, and past the per-address limit for every account, while the owner
// signs in from elsewhere.
func TestLoginThrottlePerAddress(t *testing.T) {
	a := newServer(t)
	ctx := context.Background()
	for _, email := range []string{"victim@example.com", "bystander@example.com"} {
		if _, err := a.store.CreateUser(ctx, models.UserInput{Email: email, Role: models.RoleViewer, Password: testPassword}); err != nil {
			t.Fatal(err)
		}
	}
	const attacker = "203.0.113.66"
	for i := range models.LoginFailureLimit {
		check(t, "guess "+strconv.Itoa(i+1), a.anonymous().loginFrom(attacker, "victim@example.com", "guess "+strconv.Itoa(i)), http.StatusUnauthorized, nil, nil)
	}
	checkThrottled(t, "the guesser, even with the right password", a.anonymous().loginFrom(attacker, "victim@example.com", testPassword))
	check(t, "the guesser for another account", a.anonymous().loginFrom(attacker, "bystander@example.com", "guess"), http.StatusUnauthorized, nil, nil)
	check(t, "the owner from elsewhere", a.anonymous().loginFrom("198.51.100.7", "victim@example.com", testPassword), http.StatusSeeOther, nil, nil)

	// The same address goes on guessing across accounts up to the per-address limit.
	for n := models.LoginFailureLimit + 1; n < models.LoginAddressFailureLimit; n++ {
		if err := a.store.RecordLoginFailure(ctx, fmt.Sprintf("guess%d@example.com", n), attacker); err != nil {
			t.Fatal(err)
		}
	}
	checkThrottled(t, "past the per-address limit, any account", a.anonymous().loginFrom(attacker, "bystander@example.com", testPassword))
	checkThrottled(t, "past the per-address limit, an unknown account", a.anonymous().loginFrom(attacker, "nobody@example.com", "guess"))
	check(t, "another address is not", a.anonymous().loginFrom("198.51.100.8", "bystander@example.com", testPassword), http.StatusSeeOther, nil, nil)
}

// TestLoginThrottleUnderWideAttack: once an account has many failures from many addresses, each
// of those addresses gets no more guesses for it, and an address without failures still signs in.
func TestLoginThrottleUnderWideAttack(t *testing.T) {
	a := newServer(t)
	ctx := context.Background()
	if _, err := a.store.CreateUser(ctx, models.UserInput{Email: "target@example.com", Role: models.RoleViewer, Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	for n := range models.LoginAccountFailureLimit {
		if err := a.store.RecordLoginFailure(ctx, "target@example.com", fmt.Sprintf("10.%d.%d.1", n/250, n%250)); err != nil {
			t.Fatal(err)
		}
	}
	checkThrottled(t, "an attacking address, once more", a.anonymous().loginFrom("10.0.1.1", "target@example.com", "guess"))
	check(t, "an attacking address for another account", a.anonymous().loginFrom("10.0.1.1", "other@example.com", "guess"), http.StatusUnauthorized, nil, nil)
	check(t, "the owner from a fresh address", a.anonymous().loginFrom("198.51.100.9", "target@example.com", testPassword), http.StatusSeeOther, nil, nil)
}
