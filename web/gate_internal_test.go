package web

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

// TestReadGate holds every place of the read gate with reads that do not finish, then proves a
// write passes at once, a read waits for a place but no longer than readGateWait, and a read
// finds a place again once one is given back.
func TestReadGate(t *testing.T) {
	e := echo.New()
	e.Use(gateReads())
	entered, release := make(chan struct{}), make(chan struct{})
	e.GET("/slow", func(c echo.Context) error {
		entered <- struct{}{}
		<-release
		return c.NoContent(http.StatusOK)
	})
	e.GET("/fast", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	e.POST("/write", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	do := func(method, path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
		return rec
	}
	places := readGate * runtime.GOMAXPROCS(0)
	var slow sync.WaitGroup
	for range places {
		slow.Add(1)
		go func() { defer slow.Done(); do(http.MethodGet, "/slow") }()
		<-entered
	}
	done := make(chan int, 1)
	go func() { done <- do(http.MethodPost, "/write").Code }()
	select {
	case code := <-done:
		if code != http.StatusOK {
			t.Errorf("write: %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a write waited behind reads at the gate")
	}
	began := time.Now()
	if code := do(http.MethodGet, "/fast").Code; code != http.StatusOK {
		t.Errorf("read: %d", code)
	}
	if waited := time.Since(began); waited < readGateWait {
		t.Errorf("a read ran after %v with every place taken, want it to wait %v first", waited, readGateWait)
	}
	close(release)
	slow.Wait()
	// Every place was given back: with no limit to the wait, a read still runs at once.
	readGateWait = time.Hour
	defer func() { readGateWait = 250 * time.Millisecond }()
	go func() { done <- do(http.MethodGet, "/fast").Code }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Error("a read waited at the gate with every place free: a place was not given back")
	}
}
