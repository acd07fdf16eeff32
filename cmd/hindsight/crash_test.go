package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"hindsight/models"
)

// TestCrashKeepsEveryAcknowledgedWrite runs the real server on SQLite, writes incidents through
// the API from eight clients at once, kills the process with SIGKILL in the middle of that, starts
// it again on the same file, and checks that every incident whose create was answered 201 is
// there with its title, and that SQLite finds the file sound.
func TestCrashKeepsEveryAcknowledgedWrite(t *testing.T) {
	const writers, killAfter = 8, 200
	bin := buildBinary(t)
	database := filepath.Join(t.TempDir(), "crash.db")
	token := createUserAndToken(t, database, "crash@example.com")
	srv := startServer(t, bin, database)
	api := newAPIClient(token)

	var mu sync.Mutex
	acknowledged := map[int64]string{} // id → title, for every 201
	failed := 0                        // requests cut off by the kill
	enough := make(chan struct{})
	var once sync.Once
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ctx.Err() == nil; n++ {
				title := fmt.Sprintf("Crash test writer %d incident %d", w, n)
				var created apiIncident
				status, err := api.call(ctx, http.MethodPost, srv.URL+"/api/v1/incidents", incidentBody(title, 0), &created)
				mu.Lock()
				if err == nil && status == http.StatusCreated {
					acknowledged[created.ID] = title
					if len(acknowledged) >= killAfter {
						once.Do(func() { close(enough) })
					}
				} else {
					failed++
				}
				mu.Unlock()
				if err != nil {
					return // the server is gone
				}
				if status != http.StatusCreated {
					t.Errorf("create answered %d before the kill", status)
					return
				}
			}
		}()
	}
	select {
	case <-enough:
	case <-ctx.Done():
		t.Fatalf("only %d writes acknowledged before the deadline", len(acknowledged))
	}
	srv.kill() // SIGKILL while the writers are still writing
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if failed == 0 {
		t.Error("no request was cut off: the kill did not land in the middle of the writes")
	}
	t.Logf("%d creates acknowledged, %d cut off by SIGKILL", len(acknowledged), failed)

	// Derived state commits or rolls back with each write: after the kill the doctor finds every
	// derived table as the base tables say it should be, nothing to repair.
	if out, err := runCLI(t, "", "doctor", "--database", database); err != nil || strings.Contains(out, "differ") {
		t.Errorf("doctor after the SIGKILL: %v\n%s", err, out)
	}

	srv = startServer(t, bin, database)
	for id, title := range acknowledged {
		var got apiIncident
		status, err := api.call(context.Background(), http.MethodGet, fmt.Sprintf("%s/api/v1/incidents/%d", srv.URL, id), nil, &got)
		if err != nil || status != http.StatusOK {
			t.Errorf("acknowledged incident %d (%q) after the restart: %d, %v", id, title, status, err)
			continue
		}
		if got.Title != title {
			t.Errorf("incident %d is titled %q, want %q", id, got.Title, title)
		}
	}
	srv.stop()

	store, err := models.Open(context.Background(), database)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	verdict, err := store.IntegrityCheck(context.Background())
	if err != nil || verdict != "ok" {
		t.Errorf("PRAGMA integrity_check after the crash: %q, %v", verdict, err)
	}
}
