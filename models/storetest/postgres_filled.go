package storetest

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"hindsight/models"
)

// PostgresFilled opens a migrated PostgreSQL store holding what fill writes, or skips the test
// when no server is configured. Without HINDSIGHT_BENCH_CACHE it is a fresh database dropped
// afterwards. With it, the filled database is kept on the server as hindsight_bench_<key> for
// later runs; it is filled under another name and renamed once complete, so a run stopped
// half-way never leaves a half-filled database to be reused.
func PostgresFilled(t testing.TB, key string, fill func(*models.Store)) *models.Store {
	t.Helper()
	base := os.Getenv(PostgresEnv)
	if base == "" {
		t.Skip(PostgresEnv + " is not set")
	}
	if os.Getenv(CacheEnv) == "" {
		s := Postgres(t)
		fill(s)
		return s
	}
	ctx := context.Background()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := "hindsight_bench_" + strings.NewReplacer("-", "_", ".", "_").Replace(key)
	var exists bool
	if err := admin.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	if !exists {
		filling := name + "_filling"
		for _, q := range []string{"DROP DATABASE IF EXISTS " + filling + " WITH (FORCE)", "CREATE DATABASE " + filling} {
			if _, err := admin.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		u.Path = "/" + filling
		s, err := models.Open(ctx, u.String())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.MigrateUp(ctx); err != nil {
			t.Fatal(err)
		}
		fill(s)
		db, err := s.SQLDB()
		if err == nil {
			_, err = db.ExecContext(ctx, "VACUUM ANALYZE")
		}
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		if _, err := admin.ExecContext(ctx, "ALTER DATABASE "+filling+" RENAME TO "+name); err != nil {
			t.Fatal(err)
		}
	}
	u.Path = "/" + name
	return open(t, u.String())
}

// CPUTime is the CPU time this process has used so far, user and system, every thread. The
// machines benchmarks run on are shared, so wall time swings with everyone else's load; CPU
// time per operation is the steadier figure (on PostgreSQL it leaves out the server's share).
func CPUTime(t testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
