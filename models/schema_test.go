package models_test

import (
	"database/sql"
	"maps"
	"slices"
	"strings"
	"testing"

	"hindsight/models/storetest"
)

// columns lists table → sorted column names, leaving out goose's own bookkeeping table.
func columns(t *testing.T, db *sql.DB, query string) map[string][]string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var table, column string
		if err := rows.Scan(&table, &column); err != nil {
			t.Fatal(err)
		}
		// goose's bookkeeping differs by dialect, SQLite's full-text search lives in FTS5
		// tables that PostgreSQL replaces with GIN indexes on the same columns, and PostgreSQL
		// alone gathers a transaction's changes to kept counts before applying them at commit.
		if strings.HasPrefix(table, "goose_") || strings.Contains(table, "_fts") || strings.HasSuffix(table, "_pending") {
			continue
		}
		out[table] = append(out[table], column)
	}
	for table := range out {
		slices.Sort(out[table])
	}
	return out
}

// TestDialectsHaveTheSameSchema proves that the SQLite and PostgreSQL migrations end with the
// same tables and columns.
func TestDialectsHaveTheSameSchema(t *testing.T) {
	lite, err := storetest.SQLite(t).SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	pg, err := storetest.Postgres(t).SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	liteCols := columns(t, lite, `SELECT m.name, p.name FROM sqlite_master m JOIN pragma_table_info(m.name) p
		WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'`)
	pgCols := columns(t, pg, `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'`)
	if len(liteCols) < 9 {
		t.Fatalf("SQLite has only %d tables: %v", len(liteCols), slices.Sorted(maps.Keys(liteCols)))
	}
	for table, cols := range liteCols {
		if !slices.Equal(cols, pgCols[table]) {
			t.Errorf("table %s: SQLite has %v, PostgreSQL has %v", table, cols, pgCols[table])
		}
	}
	for table := range pgCols {
		if _, ok := liteCols[table]; !ok {
			t.Errorf("table %s exists only on PostgreSQL", table)
		}
	}
}
