package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/libtnb/sqlite"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"hindsight/migrations"
)

// Store reads and writes Hindsight's records. On SQLite it holds three pools: many connections
// for the requests' reads, a few that read through a memory map for the scans of every incident
// (scan), and exactly one for writes, so writers queue in Go instead of fighting over the
// database lock. On PostgreSQL all three are the same pool.
type Store struct {
	read     *gorm.DB
	scan     *gorm.DB
	write    *gorm.DB
	dialect  string
	provider *goose.Provider
	// statements counts SQL statements, so tests can prove a page's query count is constant.
	statements atomic.Int64
	// writes counts the writing statements this process ran: see LocalWrites.
	writes atomic.Int64
	// versions is what this process has seen of what changed, in any process (versions.go).
	versions versionFeed
	// insights keeps computed insights while nothing changed.
	insights insightsCache
	// insightRows keeps what the insights read of every incident, to aggregate from memory.
	insightRows insightRows
	// children keeps incidents' nested records while their incident's mark stands still.
	children childrenCache
	// counts keeps the list totals and follow-up counts (list_counts.go).
	counts listCounts
	// webhooks wakes this process's webhook delivery workers.
	webhooks webhookState
	// outbox wakes the subscribers' outbox worker after deliveries were queued.
	outbox outboxSignal
	// components wakes it to announce component statuses after a write that may move them.
	components outboxSignal
	// writeTurn orders SQLite's write transactions by arrival (write_turn.go).
	writeTurn writeQueue
	// checkpoints copies SQLite's write-ahead log into the file off the write path (checkpoints.go).
	checkpoints *checkpointer
}

// pools are the store's distinct connection pools.
func (s *Store) pools() []*gorm.DB {
	if s.dialect == "postgres" {
		return []*gorm.DB{s.read}
	}
	return []*gorm.DB{s.read, s.scan, s.write}
}

// Dialect is "sqlite" or "postgres".
func (s *Store) Dialect() string { return s.dialect }

// IsPostgres tells whether the database is PostgreSQL.
func IsPostgres(databaseURL string) bool {
	return strings.HasPrefix(databaseURL, "postgres://") || strings.HasPrefix(databaseURL, "postgresql://")
}

// Open connects to a SQLite file or a postgres:// URL. It does not migrate.
func Open(ctx context.Context, databaseURL string) (*Store, error) {
	// Row stamps (created_at, updated_at) in UTC to the microsecond, which PostgreSQL keeps: a
	// write that answers with the row it wrote, without reading it back, then answers what a
	// read finds.
	now := func() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
	cfg := &gorm.Config{Logger: logger.Discard, TranslateError: true, PrepareStmt: true, NowFunc: now}
	s := &Store{}
	var path string // the SQLite file
	if IsPostgres(databaseURL) {
		db, err := gorm.Open(postgres.Open(databaseURL), cfg)
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		sqlDB, err := db.DB()
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		sqlDB.SetMaxOpenConns(20)
		sqlDB.SetMaxIdleConns(20)
		sqlDB.SetConnMaxIdleTime(5 * time.Minute)
		s.read, s.scan, s.write, s.dialect = db, db, db, "postgres"
	} else {
		path = sqlitePath(databaseURL)
		read, scan, write, err := openSQLitePools(path, cfg)
		if err != nil {
			return nil, err
		}
		s.read, s.scan, s.write, s.dialect = read, scan, write, "sqlite"
	}
	for _, db := range s.pools() {
		if err := s.countStatements(db); err != nil {
			return nil, err
		}
		if err := s.checkInstants(db); err != nil {
			return nil, err
		}
	}
	if err := s.countWrites(); err != nil {
		return nil, err
	}
	sqlDB, err := s.write.DB()
	if err != nil {
		return nil, err
	}
	if err := sqlDB.PingContext(ctx); err != nil {
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	dialect, dir := goose.DialectSQLite3, "sqlite"
	if s.dialect == "postgres" {
		dialect, dir = goose.DialectPostgres, "postgres"
	}
	sub, err := fs.Sub(migrations.FS, dir)
	if err != nil {
		return nil, err
	}
	var options []goose.ProviderOption
	if s.dialect == "postgres" {
		// Several servers may start at once on one database: a session advisory lock lets one
		// migrate while the others wait (checking every second, for two minutes at most) and
		// then find nothing left to do.
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 120))
		if err != nil {
			return nil, fmt.Errorf("migration lock: %w", err)
		}
		options = append(options, goose.WithSessionLocker(locker))
	}
	s.provider, err = goose.NewProvider(dialect, sqlDB, sub, options...)
	if err != nil {
		return nil, fmt.Errorf("load migrations: %w", err)
	}
	if s.dialect == "sqlite" {
		if err := s.startCheckpoints(path); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// sqlitePath is the file a SQLite database URL names.
func sqlitePath(databaseURL string) string {
	path := strings.TrimPrefix(strings.TrimPrefix(databaseURL, "sqlite://"), "file:")
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	return path
}

// openSQLitePools opens the SQLite file at path three times: the requests' reads, the scans'
// reads and the one writer.
func openSQLitePools(path string, cfg *gorm.Config) (reader, scanner, writer *gorm.DB, err error) {
	// Times are written in the format the driver names "sqlite" (2006-01-02 15:04:05+00:00),
	// and write transactions start IMMEDIATE, so a writer beside another process waits for
	// the lock instead of failing once it has read.
	// Each connection may keep 16 MiB of pages (SQLite's default is 2 MiB): without the memory
	// map, a follow-ups page filtered by factor at 100,000 incidents read its pages again from
	// the file on every view (23 ms, 8 ms kept). A commit by another connection empties the
	// cache anyway, so a small database never fills it.
	params := url.Values{"_time_format": {"sqlite"}}
	for _, p := range []string{"journal_mode(WAL)", "busy_timeout(10000)", "foreign_keys(1)", "synchronous(NORMAL)", "cache_size(-16384)"} {
		params.Add("_pragma", p)
	}
	// The connections keep their compiled statements (sqlite_conn.go): gorm's statement
	// cache would compile again in every transaction.
	cfg.PrepareStmt = false
	pool := func(params url.Values, conns int) (*gorm.DB, error) {
		db, err := openSQLite("file:" + path + "?" + params.Encode())
		if err != nil {
			return nil, fmt.Errorf("open sqlite %s: %w", path, err)
		}
		db.SetMaxOpenConns(conns)
		db.SetMaxIdleConns(conns)
		g, err := gorm.Open(sqlite.New(sqlite.Config{Conn: db}), cfg)
		if err != nil {
			return nil, fmt.Errorf("open sqlite %s: %w", path, err)
		}
		return g, nil
	}
	if reader, err = pool(params, 8); err != nil {
		return nil, nil, nil, err
	}
	// The scans read through a memory map instead of read(2) into each connection's page
	// cache: at 100,000 incidents the system calls were half the time of a large scan. The
	// requests' connections do not: SQLite drops a connection's map whenever another commit
	// came between two of its reads, and under a stream of writes the unmapping and the page
	// faults after it cost a short read more than read(2) did (docs/performance.md).
	scanParams := url.Values{"_time_format": params["_time_format"], "_pragma": append(slices.Clone(params["_pragma"]), "mmap_size(1073741824)")}
	if scanner, err = pool(scanParams, 4); err == nil {
		// The writer never checkpoints: the store's checkpointer does, beside it (checkpoints.go).
		params.Set("_txlock", "immediate")
		params.Add("_pragma", "wal_autocheckpoint(0)")
		if writer, err = pool(params, 1); err == nil {
			return reader, scanner, writer, nil
		}
	}
	for _, g := range []*gorm.DB{reader, scanner} {
		if g == nil {
			continue
		}
		if db, dbErr := g.DB(); dbErr == nil {
			db.Close()
		}
	}
	return nil, nil, nil, err
}

func (s *Store) countStatements(db *gorm.DB) error {
	count := func(db *gorm.DB) {
		s.statements.Add(1)
		if c, ok := db.Statement.Context.Value(statementCounterKey{}).(*atomic.Int64); ok {
			c.Add(1)
		}
	}
	cb := db.Callback()
	for _, err := range []error{
		cb.Create().After("gorm:create").Register("hindsight:count", count),
		cb.Query().After("gorm:query").Register("hindsight:count", count),
		cb.Update().After("gorm:update").Register("hindsight:count", count),
		cb.Delete().After("gorm:delete").Register("hindsight:count", count),
		cb.Row().After("gorm:row").Register("hindsight:count", count),
		cb.Raw().After("gorm:raw").Register("hindsight:count", count),
	} {
		if err != nil {
			return fmt.Errorf("register statement counter: %w", err)
		}
	}
	return nil
}

type statementCounterKey struct{}

// WithStatementCounter returns a context under which every statement the store runs, in any
// goroutine the work starts with it, also adds one to n: a test counts one request's statements
// without those of the background workers running beside it.
func WithStatementCounter(ctx context.Context, n *atomic.Int64) context.Context {
	return context.WithValue(ctx, statementCounterKey{}, n)
}

// Statements returns how many SQL statements the store has run since it opened.
func (s *Store) Statements() int64 { return s.statements.Load() }

// Close closes the database connections.
func (s *Store) Close() error {
	s.stopCheckpoints()
	var errs []error
	for _, db := range s.pools() {
		if sqlDB, err := db.DB(); err == nil {
			errs = append(errs, sqlDB.Close())
		}
	}
	return errors.Join(errs...)
}

// MigrateUp applies every pending migration and returns how many it applied.
func (s *Store) MigrateUp(ctx context.Context) (int, error) {
	results, err := s.provider.Up(ctx)
	if err != nil {
		return len(results), fmt.Errorf("migrate up: %w", err)
	}
	// Postmortems published before versions were kept get theirs, so the status page shows them.
	if err := s.backfillPublications(ctx); err != nil {
		return len(results), err
	}
	s.wakeCheckpoints() // goose writes beside gorm's callbacks, which wake it otherwise
	return len(results), nil
}

// MigrationStatus describes one migration and whether it is applied.
type MigrationStatus struct {
	Version   int64
	Name      string
	Applied   bool
	AppliedAt time.Time
}

// MigrationStatus lists every migration with its state.
func (s *Store) MigrationStatus(ctx context.Context) ([]MigrationStatus, error) {
	statuses, err := s.provider.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("migration status: %w", err)
	}
	out := make([]MigrationStatus, len(statuses))
	for n, st := range statuses {
		out[n] = MigrationStatus{Version: st.Source.Version, Name: st.Source.Path, Applied: st.State == goose.StateApplied, AppliedAt: st.AppliedAt}
	}
	return out, nil
}

// Ready checks that the database answers and no migration is pending.
func (s *Store) Ready(ctx context.Context) error {
	for _, db := range s.pools() {
		sqlDB, err := db.DB()
		if err != nil {
			return err
		}
		if err := sqlDB.PingContext(ctx); err != nil {
			return fmt.Errorf("database does not answer: %w", err)
		}
	}
	pending, err := s.provider.HasPending(ctx)
	if err != nil {
		return fmt.Errorf("check migrations: %w", err)
	}
	if pending {
		return errors.New("migrations are pending")
	}
	return nil
}

// SQLDB exposes the write pool for maintenance tasks and tests that inspect the schema.
func (s *Store) SQLDB() (*sql.DB, error) { return s.write.DB() }

// notFound maps gorm's missing-row error to ErrNotFound and wraps the rest with context.
func notFound(err error, what string) error {
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	return fmt.Errorf("%s: %w", what, err)
}
