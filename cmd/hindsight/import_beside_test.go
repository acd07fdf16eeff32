package main

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// githubHistory is GitHub's whole public incident history, 1,282 incidents, from the shared data
// laid beside the project.
const githubHistory = "../../../shared/data/statuspage/github_incidents_all.json"

// A CLI import beside a running server failed at once with "database is locked": the driver
// ignored _txlock=immediate, so its write transactions began DEFERRED. Now the import of GitHub's
// 1,282 incidents waits its turn while four clients write through the API, and every write of
// both succeeds.
func TestImportBesideAServerTakingWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 1,282 incidents beside a server under write load")
	}
	if _, err := os.Stat(githubHistory); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the shared data is missing: %v", err)
		}
		t.Skipf("no shared data beside the project: %v", err)
	}
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "beside.db")
	token := createUserAndToken(t, db, "writer@example.com")
	srv := startServer(t, bin, db)
	client := newAPIClient(token)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var writes, failures atomic.Int64
	var failed sync.Map
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ctx.Err() == nil; n++ {
				status, err := client.call(ctx, http.MethodPost, srv.URL+"/api/v1/incidents", incidentBody("Written beside an import", 0), nil)
				if ctx.Err() != nil {
					return
				}
				if err != nil || status != http.StatusCreated {
					failures.Add(1)
					failed.Store(w, err)
					continue
				}
				writes.Add(1)
			}
		}()
	}
	out, err := exec.Command(bin, "import", "statuspage", githubHistory, "--database", db).CombinedOutput()
	cancel()
	wg.Wait()
	if err != nil || !strings.Contains(string(out), "created 1282") {
		t.Fatalf("import beside the server: %v\n%s", err, out)
	}
	if failures.Load() > 0 {
		failed.Range(func(k, v any) bool { t.Errorf("client %v: %v", k, v); return true })
		t.Fatalf("%d of the API writes failed during the import", failures.Load())
	}
	if writes.Load() == 0 {
		t.Fatal("no API write ran during the import")
	}
	t.Logf("the import and %d API writes all succeeded", writes.Load())
}
