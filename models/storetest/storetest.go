// Package storetest opens real, empty Hindsight databases for tests: a temporary SQLite file
// always, and a fresh PostgreSQL database when HINDSIGHT_TEST_POSTGRES_URL is set.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the driver behind database/sql for creating test databases

	"hindsight/models"
)

// PostgresEnv names the variable holding the PostgreSQL server used by tests.
const PostgresEnv = "HINDSIGHT_TEST_POSTGRES_URL"

// SQLite opens a migrated store on a new file in the test's temporary folder.
func SQLite(t testing.TB) *models.Store {
	t.Helper()
	return open(t, filepath.Join(t.TempDir(), "hindsight.db"))
}

// SQLiteURL returns a path for a new SQLite database the test owns.
func SQLiteURL(t testing.TB) string {
	return filepath.Join(t.TempDir(), "hindsight.db")
}

// PostgresURL creates an empty database on the test server and returns its URL, dropping it when
// the test ends. It returns "" when no server is configured.
func PostgresURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(PostgresEnv)
	if base == "" {
		return ""
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("connect to %s: %v", PostgresEnv, err)
	}
	t.Cleanup(func() { admin.Close() })
	suffix := make([]byte, 6)
	_, _ = rand.Read(suffix)
	name := "hindsight_test_" + hex.EncodeToString(suffix)
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse %s: %v", PostgresEnv, err)
	}
	u.Path = "/" + name
	return u.String()
}

// Postgres opens a migrated store on a fresh PostgreSQL database, or skips the test when
// HINDSIGHT_TEST_POSTGRES_URL is not set.
func Postgres(t testing.TB) *models.Store {
	t.Helper()
	dsn := PostgresURL(t)
	if dsn == "" {
		t.Skip(PostgresEnv + " is not set; PostgreSQL store tests skipped")
	}
	return open(t, dsn)
}

// Each runs fn against SQLite and, when configured, PostgreSQL.
func Each(t *testing.T, fn func(t *testing.T, s *models.Store)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, SQLite(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, Postgres(t)) })
}

func open(t testing.TB, dsn string) *models.Store {
	t.Helper()
	ctx := context.Background()
	s, err := models.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.MigrateUp(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return s
}

// EachShared runs fn against a new SQLite database and, when configured, a new PostgreSQL one;
// open opens another migrated store on that same database each time it is called, as another
// server process or the CLI would.
func EachShared(t *testing.T, fn func(t *testing.T, open func() *models.Store)) {
	t.Run("sqlite", func(t *testing.T) {
		dsn := SQLiteURL(t)
		fn(t, func() *models.Store { return open(t, dsn) })
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := PostgresURL(t)
		if dsn == "" {
			t.Skip(PostgresEnv + " is not set")
		}
		fn(t, func() *models.Store { return open(t, dsn) })
	})
}
