package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"hindsight/models"
)

// tokenRow finds a token's row on the account page by its name.
func tokenRow(t *testing.T, page, name string) string {
	t.Helper()
	m := regexp.MustCompile(`<tr><td[^>]*>` + regexp.QuoteMeta(name) + `</td>.*?</tr>`).FindString(page)
	if m == "" {
		t.Fatalf("no row for token %q on the account page: %.2000s", name, page)
	}
	return m
}

// TestAccountPageShowsTokenUse: a token is listed with its name, when it was made and when it was
// last used, which one API call fills in.
func TestAccountPageShowsTokenUse(t *testing.T) {
	a := newApp(t)
	secret := tokenPattern.FindString(a.post("/account/tokens", url.Values{"name": {"paging bridge"}}).body)
	row := tokenRow(t, a.get("/account").body, "paging bridge")
	if strings.Count(row, " UTC") != 1 || !strings.Contains(row, "never") {
		t.Errorf("unused token: %s", row)
	}
	client := a.anonymous()
	client.bearer = secret
	check(t, "one API call", client.json(http.MethodGet, "/api/v1/incidents", nil), http.StatusOK, nil, nil)
	row = tokenRow(t, a.get("/account").body, "paging bridge")
	if strings.Count(row, " UTC") != 2 || strings.Contains(row, "never") {
		t.Errorf("used token shows no last use: %s", row)
	}
	tokens, err := a.store.ListTokens(context.Background(), 1)
	if err != nil || len(tokens) != 1 || tokens[0].LastUsedAt == nil {
		t.Fatalf("tokens %+v, %v", tokens, err)
	}
	first := *tokens[0].LastUsedAt
	check(t, "another API call", client.json(http.MethodGet, "/api/v1/incidents", nil), http.StatusOK, nil, nil)
	if tokens, _ := a.store.ListTokens(context.Background(), 1); !tokens[0].LastUsedAt.Equal(first) {
		t.Errorf("last use written again within a minute: %v, then %v", first, tokens[0].LastUsedAt)
	}
}

// TestPasswordChangeRevokesTokens: changing one's password ends one's API tokens too, and the
// page says so.
func TestPasswordChangeRevokesTokens(t *testing.T) {
	a := newServer(t)
	if _, err := a.store.CreateUser(context.Background(), models.UserInput{Email: "sre@example.com", Role: models.RoleResponder, Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	a.login("sre@example.com", testPassword)
	client := a.anonymous()
	client.bearer = tokenPattern.FindString(a.post("/account/tokens", url.Values{"name": {"ci"}}).body)
	check(t, "token works", client.json(http.MethodGet, "/api/v1/incidents", nil), http.StatusOK, nil, nil)
	check(t, "change", a.post("/account/password", url.Values{"current_password": {testPassword}, "password": {"a brand new passphrase"}, "password_confirm": {"a brand new passphrase"}}), http.StatusSeeOther, nil, nil)
	page := a.get("/account")
	check(t, "says so", page, http.StatusOK, []string{"Password changed.", "1 API token was revoked"}, nil)
	if row := tokenRow(t, page.body, "ci"); !strings.Contains(row, "Revoked") {
		t.Errorf("token row after the change: %s", row)
	}
	check(t, "token after the change", client.json(http.MethodGet, "/api/v1/incidents", nil), http.StatusUnauthorized, []string{"unknown or revoked"}, nil)
}
