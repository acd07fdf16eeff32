package storetest

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"hindsight/models"
)

// Fill adds n incidents in one transaction, for benchmarks and query-count tests. They start an
// hour apart going back from 2026-01-01, carry the usual milestones, and are spread over four
// services, three regions and every severity and status (models.Store.FillSample).
func Fill(t testing.TB, s *models.Store, n int) {
	t.Helper()
	if err := s.FillSample(context.Background(), n); err != nil {
		t.Fatal(err)
	}
}

// CacheEnv names a folder where benchmarks at scale keep their filled databases between runs.
const CacheEnv = "HINDSIGHT_BENCH_CACHE"

// SQLiteFilled opens a migrated SQLite store holding what fill writes. When HINDSIGHT_BENCH_CACHE
// names a folder, the filled database is saved there as key.db the first time and copied from
// there afterwards (then migrated up, so a cache made before a new migration still serves), so
// that a benchmark over 100,000 incidents does not spend minutes filling on every run.
func SQLiteFilled(t testing.TB, key string, fill func(*models.Store)) *models.Store {
	t.Helper()
	dir := os.Getenv(CacheEnv)
	if dir == "" {
		s := SQLite(t)
		fill(s)
		return s
	}
	cached := filepath.Join(dir, key+".db")
	if _, err := os.Stat(cached); err != nil {
		s := SQLite(t)
		fill(s)
		// Migrating again does what opening a copy would: published postmortems the fill wrote get
		// their versions recorded once, here, instead of on every run.
		if _, err := s.MigrateUp(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		// Backup writes aside and renames: another run copying the cache never sees half of it.
		if err := s.Backup(context.Background(), cached); err != nil {
			t.Fatal(err)
		}
		return s
	}
	path := SQLiteURL(t)
	if err := copyFile(cached, path); err != nil {
		t.Fatal(err)
	}
	return open(t, path)
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
