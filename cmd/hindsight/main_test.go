package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"hindsight/models"
)

func runCLI(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), args, strings.NewReader(stdin), &out, slog.New(slog.NewTextHandler(io.Discard, nil)))
	return out.String(), err
}

func TestUserAndTokenCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "cli.db")
	if out, err := runCLI(t, "a long enough password\n", "user", "create", "--email", "Ops@Example.com", "--role", "admin", "--database", db); err != nil || !strings.Contains(out, "created ops@example.com (admin)") {
		t.Fatalf("user create: %q, %v", out, err)
	}
	if _, err := runCLI(t, "short\n", "user", "create", "--email", "x@example.com", "--database", db); err == nil || !strings.Contains(err.Error(), "at least 12") {
		t.Errorf("short password: %v", err)
	}
	if _, err := runCLI(t, "another long password\n", "user", "create", "--email", "ops@example.com", "--database", db); err == nil {
		t.Error("duplicate email accepted")
	}
	out, err := runCLI(t, "", "token", "create", "--email", "ops@example.com", "--name", "ci", "--database", db)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	token := lines[len(lines)-1]
	if !strings.HasPrefix(token, models.TokenPrefix) || strings.Contains(token, " ") {
		t.Fatalf("last line %q is not a bare token", token)
	}
	store, err := models.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	u, err := store.UserByToken(context.Background(), token)
	if err != nil || u.Email != "ops@example.com" || u.Role != "admin" {
		t.Errorf("token acts as %+v, %v", u, err)
	}
	if _, err := runCLI(t, "a brand new password\n", "user", "reset-password", "--email", "ops@example.com", "--database", db); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Authenticate(context.Background(), "ops@example.com", "a brand new password"); err != nil {
		t.Errorf("new password does not work: %v", err)
	}
	if out, err := runCLI(t, "", "demo", "--database", db); err != nil || !strings.Contains(out, "added 5") {
		t.Errorf("demo: %q, %v", out, err)
	}
	if out, err := runCLI(t, "", "demo", "--database", db); err != nil || !strings.Contains(out, "added 0") {
		t.Errorf("demo again: %q, %v", out, err)
	}
	if out, err := runCLI(t, "", "migrate", "status", "--database", db); err != nil || !strings.Contains(out, "00001_init.sql") || strings.Contains(out, "pending") {
		t.Errorf("migrate status: %q, %v", out, err)
	}
}
