package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
	"hindsight/web"
)

// TestOverloadAnswers503AtOnceAndRecovers fills every place of a server capped at four requests
// in flight with creates that cannot finish yet, floods it, and checks that every request of the
// flood is turned away with 503 and Retry-After while those four are still held (so none of them
// waited in a queue behind the work), that the probes still answer, and that once the load is
// gone the server answers normally again.
func TestOverloadAnswers503AtOnceAndRecovers(t *testing.T) {
	const maxInFlight, floodClients, floodPerClient = 4, 16, 25
	store := storetest.SQLite(t)
	ctx := context.Background()
	user, err := store.CreateUser(ctx, models.UserInput{Email: "load@example.com", Role: models.RoleResponder, Password: testPassword})
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := store.CreateToken(ctx, user.ID, "overload test")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(web.New(web.Deps{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), MaxInFlight: maxInFlight}))
	t.Cleanup(srv.Close)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 60 * time.Second}
	t.Cleanup(client.CloseIdleConnections)
	get := func(path string) (*http.Response, time.Duration) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			t.Errorf("GET %s: %v", path, err)
			return nil, 0
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp, time.Since(start)
	}

	// A token's first use is written; do it now, before writes are held.
	if resp, _ := get("/api/v1/incidents"); resp == nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("first API call: %v", resp)
	}
	// Hold every place with a create that cannot finish: the one write connection is taken, so
	// each waits inside its handler. (A body still arriving no longer holds a place: it is read
	// before the request takes one.)
	writePool, err := store.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	waitsBefore := writePool.Stats().WaitCount
	writer, err := writePool.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { writer.Close() }) // a failing test lets the held requests go too
	var held sync.WaitGroup
	heldStatus := make([]int, maxInFlight)
	for n := range heldStatus {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/v1/incidents", strings.NewReader(`{"title": "Held request", "severity": "sev3", "status": "investigating"}`))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		held.Add(1)
		go func() {
			defer held.Done()
			resp, err := client.Do(req)
			if err != nil {
				t.Errorf("held request: %v", err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			heldStatus[n] = resp.StatusCode
		}()
	}
	// Wait until all four are inside the handlers, waiting for the write connection: from then
	// on every other request must be refused, since none of them can finish. Probing with
	// requests instead would race them for the places.
	deadline := time.Now().Add(30 * time.Second)
	// One waits for the connection itself, the others in the store's line behind it.
	waiting := func() int64 { return writePool.Stats().WaitCount - waitsBefore + int64(store.WritesWaiting()) }
	for waiting() < maxInFlight {
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s only %d of the held requests wait to write", waiting())
		}
		runtime.Gosched()
	}
	if resp, _ := get("/api/v1/incidents"); resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("with every place held a request was answered %v, want 503", resp)
	}

	// Flood.
	var mu sync.Mutex
	var refusedIn []time.Duration
	statuses := map[int]int{}
	var flood sync.WaitGroup
	for range floodClients {
		flood.Add(1)
		go func() {
			defer flood.Done()
			for range floodPerClient {
				resp, took := get("/incidents")
				if resp == nil {
					return
				}
				mu.Lock()
				statuses[resp.StatusCode]++
				if resp.StatusCode == http.StatusServiceUnavailable {
					refusedIn = append(refusedIn, took)
					if got := resp.Header.Get("Retry-After"); got != "1" {
						t.Errorf("503 with Retry-After %q, want 1", got)
					}
				}
				mu.Unlock()
			}
		}()
	}
	flood.Wait()
	if statuses[http.StatusServiceUnavailable] != floodClients*floodPerClient {
		t.Errorf("flood answered %v, want all %d turned away with 503", statuses, floodClients*floodPerClient)
	}
	// /readyz asks the write connection too, which the test holds; it is checked after.
	if resp, _ := get("/healthz"); resp == nil || resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz during the overload: %v, want 200 (probes are never turned away)", resp)
	}
	if resp, _ := get("/api/v1/incidents"); resp == nil || resp.StatusCode != http.StatusServiceUnavailable ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Errorf("API during the overload: %v, want a JSON 503", resp)
	}

	// Let the held requests finish: they were never cut off.
	if err := writer.Close(); err != nil {
		t.Fatal(err)
	}
	held.Wait()
	if resp, _ := get("/readyz"); resp == nil || resp.StatusCode != http.StatusOK {
		t.Errorf("/readyz after the overload: %v, want 200", resp)
	}
	for n, status := range heldStatus {
		if status != http.StatusCreated {
			t.Errorf("held request %d finished with %d, want 201", n, status)
		}
	}

	// Recovery: with the load gone every request is served again, several at once.
	recovered := map[int]int{}
	var recovery sync.WaitGroup
	var recoveredIn []time.Duration
	for range maxInFlight {
		recovery.Add(1)
		go func() {
			defer recovery.Done()
			for range 10 {
				resp, took := get("/api/v1/incidents")
				if resp == nil {
					return
				}
				mu.Lock()
				recovered[resp.StatusCode]++
				recoveredIn = append(recoveredIn, took)
				mu.Unlock()
			}
		}()
	}
	recovery.Wait()
	if recovered[http.StatusOK] != maxInFlight*10 {
		t.Errorf("after the overload: %v, want every request answered 200", recovered)
	}
	slices.Sort(refusedIn)
	slices.Sort(recoveredIn)
	if len(refusedIn) > 0 && len(recoveredIn) > 0 {
		t.Logf("%d requests refused with 503: p50 %s, p99 %s, max %s; after the overload %d served: p50 %s",
			len(refusedIn), refusedIn[len(refusedIn)/2], refusedIn[len(refusedIn)*99/100], refusedIn[len(refusedIn)-1],
			len(recoveredIn), recoveredIn[len(recoveredIn)/2])
	}
}

// TestReadyzWaitsForWarmCaches keeps /readyz at 503 until start-up says the caches are warm,
// while /healthz answers from the start.
func TestReadyzWaitsForWarmCaches(t *testing.T) {
	warmed := make(chan struct{})
	store := storetest.SQLite(t)
	e := web.New(web.Deps{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Warmed: warmed})
	probe := func(path string) int {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Code
	}
	if got := probe("/readyz"); got != http.StatusServiceUnavailable {
		t.Errorf("/readyz while warming up: %d, want 503", got)
	}
	if got := probe("/healthz"); got != http.StatusOK {
		t.Errorf("/healthz while warming up: %d, want 200", got)
	}
	if err := store.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	close(warmed)
	if got := probe("/readyz"); got != http.StatusOK {
		t.Errorf("/readyz once warm: %d, want 200", got)
	}
}
