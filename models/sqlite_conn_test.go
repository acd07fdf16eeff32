package models

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// TestSQLiteConnectionsKeepCompiledStatements proves that a statement run again on a connection
// is not compiled again, that a query of the same text while the first one's rows are still open
// gets a statement of its own (and both read right), and that past the limit the oldest are
// closed while the answers stay right.
func TestSQLiteConnectionsKeepCompiledStatements(t *testing.T) {
	ctx := context.Background()
	db, err := openSQLite("file:" + filepath.Join(t.TempDir(), "kept.db") + "?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)"); err != nil {
		t.Fatal(err)
	}
	insert := "INSERT INTO t (id, name) VALUES (?, ?)"
	before := stmtsCompiled.Load()
	for n := 1; n <= 3; n++ {
		if _, err := db.ExecContext(ctx, insert, n, fmt.Sprint("name ", n)); err != nil {
			t.Fatal(err)
		}
	}
	if got := stmtsCompiled.Load() - before; got != 1 {
		t.Errorf("three inserts compiled %d statements, want 1", got)
	}

	// A nested read of the same text inside one transaction, while the outer rows are open.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	query := "SELECT id, name FROM t WHERE id >= ? ORDER BY id"
	outer, err := tx.QueryContext(ctx, query, 1)
	if err != nil {
		t.Fatal(err)
	}
	var pairs []string
	for outer.Next() {
		var id int
		var name string
		if err := outer.Scan(&id, &name); err != nil {
			t.Fatal(err)
		}
		var inner int
		if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM ("+query+")", id).Scan(&inner); err != nil {
			t.Fatal(err)
		}
		var same string
		if err := tx.QueryRowContext(ctx, query, id).Scan(new(int), &same); err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, fmt.Sprintf("%d %s %d %s", id, name, inner, same))
	}
	if err := outer.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	want := []string{"1 name 1 3 name 1", "2 name 2 2 name 2", "3 name 3 1 name 3"}
	if fmt.Sprint(pairs) != fmt.Sprint(want) {
		t.Errorf("nested reads of one text gave %q, want %q", pairs, want)
	}

	// Past the limit, every answer is still right, and the statement at the front stays kept.
	for n := range sqliteStmtLimit + 20 {
		var got int
		if err := db.QueryRowContext(ctx, fmt.Sprintf("SELECT %d + COUNT(*) FROM t", n)).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != n+3 {
			t.Fatalf("statement %d answered %d, want %d", n, got, n+3)
		}
	}
	before = stmtsCompiled.Load()
	for range 2 {
		var got int
		if err := db.QueryRowContext(ctx, fmt.Sprintf("SELECT %d + COUNT(*) FROM t", sqliteStmtLimit+19)).Scan(&got); err != nil {
			t.Fatal(err)
		}
	}
	if got := stmtsCompiled.Load() - before; got != 0 {
		t.Errorf("the most recent statement was compiled %d more times, want 0", got)
	}
}
