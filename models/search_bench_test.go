package models_test

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// searchBenchQueries mix words that match tens of thousands of rows with rarer ones and one
// pair that matches nothing, since each stresses a different part of the search.
var searchBenchQueries = []string{"latency alert", "retry budget", "cache", "failover runbook", "replication lag"}

// BenchmarkSearchAtScale measures Search and SimilarIncidents over 100,000 incidents and
// 300,000 follow-ups (HINDSIGHT_BENCH_INCIDENTS changes the size) on SQLite and, when
// HINDSIGHT_TEST_POSTGRES_URL is set, on PostgreSQL. With HINDSIGHT_BENCH_CACHE set, the filled
// SQLite file is kept there and the filled PostgreSQL database is kept on the server, so that
// only the first run spends minutes filling.
func BenchmarkSearchAtScale(b *testing.B) {
	size := 100000
	if v, err := strconv.Atoi(os.Getenv("HINDSIGHT_BENCH_INCIDENTS")); err == nil && v > 0 {
		size = v
	}
	fill := func(s *models.Store) {
		storetest.Fill(b, s, size)
		storetest.FillFollowUps(b, s, 3)
	}
	b.Run("sqlite", func(b *testing.B) {
		benchSearch(b, storetest.SQLiteFilled(b, "followups-"+strconv.Itoa(size), fill), size)
	})
	b.Run("postgres", func(b *testing.B) {
		benchSearch(b, postgresFilled(b, size, fill), size)
	})
}

func benchSearch(b *testing.B, s *models.Store, size int) {
	ctx := context.Background()
	for _, q := range searchBenchQueries {
		b.Run("search/"+q, func(b *testing.B) {
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				if _, err := s.Search(ctx, q, 30); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
		})
	}
	inc, err := s.GetIncident(ctx, int64(size/2))
	if err != nil {
		b.Fatal(err)
	}
	for name, text := range map[string]string{
		"draft":    "Elevated errors: requests failed for a subset of customers after a cache rollout",
		"incident": inc.Title + " " + inc.Summary,
	} {
		b.Run("similar/"+name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				_, err := s.SimilarIncidents(ctx, models.SimilarQuery{
					ExcludeID: inc.ID, Before: inc.StartedAt, Text: text,
					Services: inc.ServiceNames(), Factors: inc.FactorSlugs(),
				}, 5)
				if err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
		})
	}
}

// processCPU is the CPU time this process has used. The machine the benchmarks run on is shared,
// so wall time swings with everyone else's load; on SQLite, where the query runs in this
// process, CPU time per operation is the steadier figure. On PostgreSQL it leaves out the
// server's share.
func processCPU() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

func reportCPU(b *testing.B, since time.Duration) {
	b.ReportMetric(float64((processCPU()-since).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// postgresFilled opens a migrated PostgreSQL store holding what fill writes, or skips when no
// server is configured. With HINDSIGHT_BENCH_CACHE set, the database is named after the size and
// kept on the server for the next run; otherwise it is a fresh database dropped afterwards.
func postgresFilled(b *testing.B, size int, fill func(*models.Store)) *models.Store {
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
	name := "hindsight_bench_followups_" + strconv.Itoa(size)
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
