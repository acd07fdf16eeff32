package models_test

import (
	"context"
	"database/sql"
	"testing"

	_ "modernc.org/sqlite"

	"hindsight/models"
	"hindsight/models/storetest"
)

// The store's SQLite write transactions start IMMEDIATE: while one is open, another connection
// cannot take the write lock. A DEFERRED transaction that has only read would let it, and the
// first writer would then fail with "database is locked" instead of waiting its turn.
func TestSQLiteWriteTransactionsStartImmediate(t *testing.T) {
	url := storetest.SQLiteURL(t)
	s, err := models.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.MigrateUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	pool, err := s.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	tx, err := pool.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	// The transaction has run nothing yet: only BEGIN IMMEDIATE holds the lock now.
	other, err := sql.Open("sqlite", "file:"+url+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Exec(`BEGIN IMMEDIATE`); err == nil {
		other.Exec(`ROLLBACK`)
		t.Fatal("another connection took the write lock while the store's write transaction was open: it began DEFERRED")
	}
}
