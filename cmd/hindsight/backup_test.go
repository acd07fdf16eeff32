package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestBackupWhileServingAndRestore takes a backup with the CLI while the real server is taking
// writes, restores it the way the README says (the server stopped, the copy put in place of the
// database file), starts the server on it and reads through the API every incident acknowledged
// before the backup began.
func TestBackupWhileServingAndRestore(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	database := filepath.Join(dir, "hindsight.db")
	token := createUserAndToken(t, database, "backup@example.com")
	srv := startServer(t, bin, database)
	api := newAPIClient(token)
	ctx := context.Background()

	create := func(title string) int64 {
		var inc apiIncident
		status, err := api.call(ctx, http.MethodPost, srv.URL+"/api/v1/incidents", incidentBody(title, 0), &inc)
		if err != nil || status != http.StatusCreated {
			t.Fatalf("create %q: %d, %v", title, status, err)
		}
		return inc.ID
	}
	before := map[int64]string{}
	for n := range 50 {
		title := fmt.Sprintf("Before the backup %d", n)
		before[create(title)] = title
	}

	// Keep writing while the backup runs.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				status, err := api.call(ctx, http.MethodPost, srv.URL+"/api/v1/incidents", incidentBody(fmt.Sprintf("During the backup %d/%d", w, n), 0), nil)
				if err != nil || status != http.StatusCreated {
					t.Errorf("write during the backup: %d, %v", status, err)
					return
				}
			}
		}()
	}
	backup := filepath.Join(dir, "hindsight-backup.db")
	out, err := runCLI(t, "", "backup", backup, "--database", database)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("hindsight backup: %v", err)
	}
	if !strings.Contains(out, "backed up") {
		t.Errorf("backup said %q", out)
	}
	srv.stop()

	// Restore: with the server stopped, the copy replaces the database and its WAL files.
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(database + suffix); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	copyFile(t, backup, database)
	srv = startServer(t, bin, database)
	for id, title := range before {
		var got apiIncident
		status, err := api.call(ctx, http.MethodGet, fmt.Sprintf("%s/api/v1/incidents/%d", srv.URL, id), nil, &got)
		if err != nil || status != http.StatusOK || got.Title != title {
			t.Errorf("incident %d from before the backup, after the restore: %d %q, %v", id, status, got.Title, err)
		}
	}
	// The restored server takes writes too.
	create("After the restore")
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
