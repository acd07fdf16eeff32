package models

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

// Every column of incidents is either written by an edit when it changed (incidentColumns) or
// named here as one an edit never changes: a column added without either fails this test, read
// from the migrated schema rather than a hand-written list.
func TestIncidentColumnsAreAllKnownToEdits(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "columns.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.MigrateUp(ctx); err != nil {
		t.Fatal(err)
	}
	var schema []string
	if err := s.read.Raw(`SELECT name FROM pragma_table_info('incidents')`).Scan(&schema).Error; err != nil {
		t.Fatal(err)
	}
	known := []string{"id", "created_at", "deleted_at", "source", "external_id", "version", "updated_at"}
	for _, c := range incidentColumns {
		known = append(known, c.name)
	}
	slices.Sort(schema)
	slices.Sort(known)
	if !slices.Equal(schema, known) {
		t.Errorf("incidents has columns %v;\nedits know %v", schema, known)
	}
}
