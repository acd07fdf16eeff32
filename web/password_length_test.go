package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"hindsight/models"
	"hindsight/models/storetest"
	"hindsight/web"
)

// passphrase returns a password of exactly n bytes, past bcrypt's 72 when n is.
func passphrase(n int) string {
	return (strings.Repeat("correct horse battery staple ", n/29+1))[:n]
}

const tooLongMessage = "Must be at most 1024 bytes."

// TestLongPasswordsThroughSetupAndLogin: the first admin may choose a 100-byte passphrase and sign
// in with it; a 2,000-byte one is refused beside the field, and so is signing in with one.
func TestLongPasswordsThroughSetupAndLogin(t *testing.T) {
	store := storetest.SQLite(t)
	jar, _ := cookiejar.New(nil)
	a := &app{t: t, store: store, jar: jar, e: web.New(web.Deps{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), SetupToken: "first-run-token"})}
	a.get("/setup?token=first-run-token")
	huge := passphrase(2000)
	check(t, "setup with 2,000 bytes", a.post("/setup", url.Values{"token": {"first-run-token"}, "email": {"ada@example.com"}, "password": {huge}, "password_confirm": {huge}}),
		http.StatusUnprocessableEntity, []string{`id="password-error"`, tooLongMessage, `value="ada@example.com"`}, nil)
	long := passphrase(100)
	check(t, "setup with 100 bytes", a.post("/setup", url.Values{"token": {"first-run-token"}, "email": {"ada@example.com"}, "password": {long}, "password_confirm": {long}}),
		http.StatusSeeOther, nil, nil)

	fresh := a.anonymous()
	fresh.login("ada@example.com", long)
	check(t, "signed in with 100 bytes", fresh.get("/admin/users"), http.StatusOK, []string{"ada@example.com"}, nil)

	other := a.anonymous()
	other.get("/login")
	check(t, "only the first 72 bytes", other.post("/login", url.Values{"email": {"ada@example.com"}, "password": {long[:72]}}),
		http.StatusUnauthorized, []string{"Email or password is wrong."}, nil)
	check(t, "sign in with 2,000 bytes", other.post("/login", url.Values{"email": {"ada@example.com"}, "password": {huge}}),
		http.StatusUnprocessableEntity, []string{`id="password-error"`, tooLongMessage, `value="ada@example.com"`}, nil)
}

// TestLongPasswordsThroughAccountForms: an admin adds a user with a 100-byte passphrase, who signs
// in and changes it to another; 2,000 bytes is a form error on both forms.
func TestLongPasswordsThroughAccountForms(t *testing.T) {
	admin := newApp(t)
	long, huge := passphrase(100), passphrase(2000)
	check(t, "add with 2,000 bytes", admin.post("/admin/users", url.Values{"email": {"long@example.com"}, "role": {"viewer"}, "password": {huge}, "password_confirm": {huge}}),
		http.StatusUnprocessableEntity, []string{`id="password-error"`, tooLongMessage, `value="long@example.com"`}, nil)
	check(t, "add with 100 bytes", admin.post("/admin/users", url.Values{"email": {"long@example.com"}, "role": {"viewer"}, "password": {long}, "password_confirm": {long}}),
		http.StatusSeeOther, nil, nil)

	user := admin.anonymous()
	user.login("long@example.com", long)
	check(t, "change to 2,000 bytes", user.post("/account/password", url.Values{"current_password": {long}, "password": {huge}, "password_confirm": {huge}}),
		http.StatusUnprocessableEntity, []string{`id="password-error"`, tooLongMessage}, nil)
	check(t, "current password of 2,000 bytes", user.post("/account/password", url.Values{"current_password": {huge}, "password": {testPassword}, "password_confirm": {testPassword}}),
		http.StatusUnprocessableEntity, []string{"This is not your current password."}, nil)
	longer := passphrase(300)
	check(t, "change to 300 bytes", user.post("/account/password", url.Values{"current_password": {long}, "password": {longer}, "password_confirm": {longer}}),
		http.StatusSeeOther, nil, nil)
	again := admin.anonymous()
	again.login("long@example.com", longer)
	check(t, "signed in with the new one", again.get("/account"), http.StatusOK, []string{"long@example.com"}, nil)
	if _, err := admin.store.Authenticate(context.Background(), "long@example.com", long); err == nil {
		t.Error("the old password still works")
	}
	if _, err := admin.store.CreateUser(context.Background(), models.UserInput{Email: "direct@example.com", Role: models.RoleViewer, Password: huge}); err == nil {
		t.Error("the store hashed a 2,000-byte password")
	}
}
