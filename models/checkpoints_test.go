package models

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCheckpointsRunBesideTheWriter proves that the writer connection never checkpoints (its
// commits would otherwise copy the log into the file now and then, with an fsync, while every
// other writer waits) and that the store's own checkpointer copies what was written into the file
// once writes stop, and starts the log over, so that it does not grow.
func TestCheckpointsRunBesideTheWriter(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "checkpoints.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.MigrateUp(ctx); err != nil {
		t.Fatal(err)
	}
	var every int
	if err := s.write.Raw("PRAGMA wal_autocheckpoint").Row().Scan(&every); err != nil {
		t.Fatal(err)
	}
	if every != 0 {
		t.Errorf("the writer checkpoints every %d pages, want never (0)", every)
	}
	size := func(name string) int64 {
		info, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		return info.Size()
	}
	before := size(path) // the migrations are in the log: nothing has woken the checkpointer yet
	for n := range 300 {
		_, err := s.CreateIncident(ctx, IncidentInput{Title: fmt.Sprintf("Checkpointed write %d", n), Severity: "sev3",
			Status: "investigating", Summary: "A write the checkpointer copies into the database file."}, Children{})
		if err != nil {
			t.Fatal(err)
		}
	}
	runs := s.Checkpoints()
	// Counted from after the last write: a checkpoint counted later took its last pass in a write
	// turn after that write, so it copied everything.
	waitFor(t, "a checkpoint after the writes", func() bool { return s.Checkpoints() > runs })
	if after := size(path); after <= before {
		t.Errorf("the database file is %d bytes after 300 incidents, %d before: nothing was copied into it", after, before)
	}
	// The next write starts the log over (SQLite moves the checkpoint sequence in the log's header)
	// instead of appending to it: the log does not grow while writes go on.
	sequence := func() uint32 {
		head := make([]byte, 16)
		f, err := os.Open(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := io.ReadFull(f, head); err != nil {
			t.Fatal(err)
		}
		return binary.BigEndian.Uint32(head[12:16])
	}
	was := sequence()
	if _, err := s.CreateIncident(ctx, IncidentInput{Title: "After the checkpoint", Severity: "sev3", Status: "investigating"}, Children{}); err != nil {
		t.Fatal(err)
	}
	if now := sequence(); now == was {
		t.Errorf("the log's checkpoint sequence stayed %d after a whole checkpoint and a write: the log was not started over", now)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); !os.IsNotExist(err) {
		t.Errorf("the log is still there after Close (%v): the last connection checkpoints and removes it", err)
	}
}

// waitFor waits for cond, for a minute at most.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within a minute", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
