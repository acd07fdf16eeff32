package models_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// TestBackupIsAConsistentCopyWhileWriting copies a SQLite database while another goroutine keeps
// creating incidents through the single writer, then opens the copy as a database of its own.
func TestBackupIsAConsistentCopyWhileWriting(t *testing.T) {
	ctx := context.Background()
	s := storetest.SQLite(t)
	storetest.Fill(t, s, 500)
	var written atomic.Int64
	stop, underway := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			in := models.IncidentInput{Title: fmt.Sprintf("Written during the backup %d", n), Severity: "sev3", Status: "investigating", TimeZone: "UTC", PostmortemState: "none"}
			if _, err := s.CreateIncident(ctx, in, models.Children{}); err != nil {
				t.Errorf("write during the backup: %v", err)
				return
			}
			if written.Add(1) == 20 {
				close(underway)
			}
		}
	}()
	select {
	case <-underway:
	case <-time.After(time.Minute):
		t.Fatal("the writer never got going")
	}
	before := written.Load()
	path := filepath.Join(t.TempDir(), "backup.db")
	if err := s.Backup(ctx, path); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	if err := s.Backup(ctx, path); err == nil {
		t.Error("a second backup overwrote the first")
	}

	copyStore, err := models.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer copyStore.Close()
	if verdict, err := copyStore.IntegrityCheck(ctx); err != nil || verdict != "ok" {
		t.Fatalf("integrity_check of the copy: %q, %v", verdict, err)
	}
	if err := copyStore.Ready(ctx); err != nil {
		t.Errorf("the copy is not a ready database: %v", err)
	}
	incidents, total, err := copyStore.ListIncidents(ctx, models.IncidentFilter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if total < 500+before || len(incidents) != 10 {
		t.Errorf("the copy holds %d incidents, want at least the %d there before it began", total, 500+before)
	}
	if _, err := copyStore.GetIncident(ctx, incidents[0].ID); err != nil {
		t.Errorf("read an incident from the copy: %v", err)
	}
}

func TestBackupRefusesPostgres(t *testing.T) {
	s := storetest.Postgres(t)
	if err := s.Backup(context.Background(), filepath.Join(t.TempDir(), "x.db")); !errors.Is(err, models.ErrBackupUnsupported) {
		t.Errorf("backup on PostgreSQL: %v, want ErrBackupUnsupported", err)
	}
}
