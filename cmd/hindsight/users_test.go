package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"hindsight/models"
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
