package models_test

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"strconv"
	"testing"

	"hindsight/models"
	"hindsight/models/storetest"
)

// BenchmarkRecurrenceAtScale measures the recurrence report over 100,000 incidents and 300,000
// follow-ups (HINDSIGHT_BENCH_INCIDENTS changes the size) on SQLite and, when
// HINDSIGHT_TEST_POSTGRES_URL is set, on PostgreSQL, listing as many incidents per factor as the
// page (10), the API by default (100) and the API at most (1000). With HINDSIGHT_BENCH_CACHE set,
// the filled SQLite file is kept there and the filled PostgreSQL database on the server.
func BenchmarkRecurrenceAtScale(b *testing.B) {
	size := 100000
	if v, err := strconv.Atoi(os.Getenv("HINDSIGHT_BENCH_INCIDENTS")); err == nil && v > 0 {
		size = v
	}
	fill := func(s *models.Store) {
		storetest.Fill(b, s, size)
		storetest.FillFollowUps(b, s, 3)
	}
	b.Run("sqlite", func(b *testing.B) {
		benchRecurrence(b, storetest.SQLiteFilled(b, "followups-"+strconv.Itoa(size), fill))
	})
	b.Run("postgres", func(b *testing.B) {
		benchRecurrence(b, recurrencePostgresFilled(b, size, fill))
	})
}

func benchRecurrence(b *testing.B, s *models.Store) {
	ctx := context.Background()
	for _, listed := range []int{10, models.RecurrenceListed, models.RecurrenceMaxListed} {
		b.Run("listed-"+strconv.Itoa(listed), func(b *testing.B) {
			b.ReportAllocs()
			before := s.Statements()
			for b.Loop() {
				if _, err := s.RecurrenceListing(ctx, listed); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(s.Statements()-before)/float64(b.N), "statements/op")
		})
	}
}

// recurrencePostgresFilled opens a migrated PostgreSQL store holding what fill writes, or skips
// when no server is configured. With HINDSIGHT_BENCH_CACHE set, the database is named after the
// size and kept on the server for the next run; otherwise it is a fresh database dropped
// afterwards. It has a name of its own so that it never meets a half-filled database of another
// benchmark.
func recurrencePostgresFilled(b *testing.B, size int, fill func(*models.Store)) *models.Store {
	base := os.Getenv(storetest.PostgresEnv)
	if base == "" {
		b.Skip(storetest.PostgresEnv + " is not set")
	}
	if os.Getenv(storetest.CacheEnv) == "" {
		s := storetest.Postgres(b)
		fill(s)
		return s
	}
	ctx := context.Background()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		b.Fatal(err)
	}
	defer admin.Close()
	name := "hindsight_bench_recurrence_" + strconv.Itoa(size)
	var exists bool
	if err := admin.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		b.Fatal(err)
	}
	if !exists {
		if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
			b.Fatal(err)
		}
	}
	u, err := url.Parse(base)
	if err != nil {
		b.Fatal(err)
	}
	u.Path = "/" + name
	s, err := models.Open(ctx, u.String())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if _, err := s.MigrateUp(ctx); err != nil {
		b.Fatal(err)
	}
	db, err := s.SQLDB()
	if err != nil {
		b.Fatal(err)
	}
	var incidents, followUps int
	if err := db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM incidents), (SELECT count(*) FROM follow_ups)`).Scan(&incidents, &followUps); err != nil {
		b.Fatal(err)
	}
	switch {
	case incidents == size && followUps == 3*size:
	case incidents == 0:
		fill(s)
		if _, err := db.ExecContext(ctx, "VACUUM ANALYZE"); err != nil {
			b.Fatal(err)
		}
	default:
		b.Fatalf("database %s holds %d incidents and %d follow-ups: drop it to fill it again", name, incidents, followUps)
	}
	return s
}
