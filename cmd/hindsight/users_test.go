package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"hindsight/models"
	"hindsight/web"
)

// TestUserCommandsTakeLongPassphrases: user create and user reset-password accept a 100-byte
// passphrase that then signs in, and refuse a 2,000-byte one with a message, not a crash.
func TestUserCommandsTakeLongPassphrases(t *testing.T) {
	db := filepath.Join(t.TempDir(), "cli.db")
	long := strings.Repeat("long passphrase ", 7)[:100]
	huge := strings.Repeat("x", 2000)
	if _, err := runCLI(t, huge+"\n", "user", "create", "--email", "huge@example.com", "--database", db); err == nil || !strings.Contains(err.Error(), "at most 1024 bytes") {
		t.Errorf("create with 2,000 bytes: %v", err)
	}
	if out, err := runCLI(t, long+"\n", "user", "create", "--email", "long@example.com", "--database", db); err != nil || !strings.Contains(out, "created long@example.com") {
		t.Fatalf("create with 100 bytes: %q, %v", out, err)
	}
	store, err := models.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := store.Authenticate(context.Background(), "long@example.com", long); err != nil {
		t.Errorf("100-byte password after create: %v", err)
	}
	if _, err := runCLI(t, huge+"\n", "user", "reset-password", "--email", "long@example.com", "--database", db); err == nil || !strings.Contains(err.Error(), "at most 1024 bytes") {
		t.Errorf("reset to 2,000 bytes: %v", err)
	}
	longer := strings.Repeat("an even longer passphrase ", 10)
	if _, err := runCLI(t, longer+"\n", "user", "reset-password", "--email", "long@example.com", "--database", db); err != nil {
		t.Fatalf("reset to %d bytes: %v", len(longer), err)
	}
	if _, err := store.Authenticate(context.Background(), "long@example.com", longer); err != nil {
		t.Errorf("%d-byte password after reset: %v", len(longer), err)
	}
	if _, err := store.Authenticate(context.Background(), "long@example.com", long); err == nil {
		t.Error("the password before the reset still works")
	}
}

// TestResetPasswordRevokesTokens: user reset-password ends the user's API tokens and says so;
// with --keep-tokens they go on working.
func TestResetPasswordRevokesTokens(t *testing.T) {
	db := filepath.Join(t.TempDir(), "cli.db")
	if _, err := runCLI(t, "a long enough password\n", "user", "create", "--email", "ops@example.com", "--database", db); err != nil {
		t.Fatal(err)
	}
	newToken := func(name string) string {
		t.Helper()
		out, err := runCLI(t, "", "token", "create", "--email", "ops@example.com", "--name", name, "--database", db)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		return lines[len(lines)-1]
	}
	kept, ended := newToken("kept"), newToken("ended")
	store, err := models.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	server := web.New(web.Deps{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	api := func(token string) int {
		req := httptest.NewRequest(http.MethodGet, "/api/v1/incidents", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		server.ServeHTTP(rec, req)
		return rec.Code
	}
	if api(kept) != http.StatusOK || api(ended) != http.StatusOK {
		t.Fatalf("tokens before any reset: %d, %d", api(kept), api(ended))
	}

	out, err := runCLI(t, "the first new password\n", "user", "reset-password", "--keep-tokens", "--email", "ops@example.com", "--database", db)
	if err != nil || !strings.Contains(out, "API tokens were kept") {
		t.Errorf("reset with --keep-tokens: %q, %v", out, err)
	}
	if api(kept) != http.StatusOK || api(ended) != http.StatusOK {
		t.Errorf("tokens after a reset with --keep-tokens: %d, %d", api(kept), api(ended))
	}

	out, err = runCLI(t, "the second new password\n", "user", "reset-password", "--email", "ops@example.com", "--database", db)
	if err != nil || !strings.Contains(out, "2 API tokens were revoked") {
		t.Errorf("reset: %q, %v", out, err)
	}
	if api(kept) != http.StatusUnauthorized || api(ended) != http.StatusUnauthorized {
		t.Errorf("tokens after a reset: %d, %d, want 401", api(kept), api(ended))
	}
	if _, err := store.Authenticate(context.Background(), "ops@example.com", "the second new password"); err != nil {
		t.Errorf("new password: %v", err)
	}
}
