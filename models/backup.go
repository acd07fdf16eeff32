package models

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrBackupUnsupported is returned by Backup on PostgreSQL, which has its own tools.
var ErrBackupUnsupported = errors.New("hindsight backup copies SQLite databases; back PostgreSQL up with pg_dump (pg_dump --format=custom --file=hindsight.dump URL) and restore with pg_restore")

// Backup writes a consistent copy of the SQLite database to path while the server goes on
// serving. VACUUM INTO reads one snapshot in a read transaction on a reader connection, so writers
// carry on and nothing they commit after the snapshot is half in the copy. The copy is written
// beside path under a temporary name, synced, and renamed into place, so path is either absent
// or a whole database; an existing path is never overwritten.
func (s *Store) Backup(ctx context.Context, path string) error {
	if s.dialect != "sqlite" {
		return ErrBackupUnsupported
	}
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("backup: %s already exists; choose a new file", path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("backup: %w", err)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".partial-*")
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	tmpPath := tmp.Name()
	tmp.Close()
	// VACUUM INTO wants a file that does not exist yet; the temporary name only reserved it.
	if err := os.Remove(tmpPath); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer os.Remove(tmpPath)
	if err := s.read.WithContext(ctx).Exec("VACUUM INTO ?", tmpPath).Error; err != nil {
		return fmt.Errorf("backup: copy the database: %w", err)
	}
	if err := syncFile(tmpPath); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err := os.Rename(tmpPath, path); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	return syncFile(dir)
}

// IntegrityCheck runs SQLite's PRAGMA integrity_check and returns its verdict, "ok" when the
// database is sound. On PostgreSQL there is no such check and it returns "ok" once the server
// answers.
func (s *Store) IntegrityCheck(ctx context.Context) (string, error) {
	if s.dialect != "sqlite" {
		return "ok", s.Ready(ctx)
	}
	var lines []string
	if err := s.read.WithContext(ctx).Raw("PRAGMA integrity_check").Scan(&lines).Error; err != nil {
		return "", fmt.Errorf("integrity check: %w", err)
	}
	if len(lines) == 0 {
		return "", errors.New("integrity check: no answer")
	}
	verdict := lines[0]
	for _, l := range lines[1:] {
		verdict += "\n" + l
	}
	return verdict, nil
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
