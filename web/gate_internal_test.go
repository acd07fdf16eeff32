package web

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

// TestReadGate holds every place of the read gate with reads that do not finish, then proves a
// write passes at once, a read waits for a place for as long as the places are held, a read
// holding its place past readHoldLimit gives it back, and every place is given back once.
func TestReadGate(t *testing.T) {
	defer func(was time.Duration) { readHoldLimit = was }(readHoldLimit)
	readHoldLimit = time.Hour
	var waiting atomic.Int64
	e := echo.New()
	e.Use(gateReads(&waiting, func() bool { return false }))
	entered, release := make(chan struct{}), make(chan struct{})
	e.GET("/slow", func(c echo.Context) error {
		entered <- struct{}{}
		<-release
		return c.NoContent(http.StatusOK)
	})
	e.GET("/fast", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	e.POST("/write", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	do := func(method, path string) int {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
		return rec.Code
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("waited 10s for %s", what)
			}
		}
	}
	places := readGate * runtime.GOMAXPROCS(0)
	var slow sync.WaitGroup
	holdEveryPlace := func() {
		t.Helper()
		for range places {
			slow.Add(1)
			go func() { defer slow.Done(); do(http.MethodGet, "/slow") }()
			select {
			case <-entered:
			case <-time.After(10 * time.Second):
				t.Fatal("a read found no place at a free gate: a place was not given back")
			}
		}
	}
	holdEveryPlace()

	done := make(chan int, 1)
	go func() { done <- do(http.MethodPost, "/write") }()
	select {
	case code := <-done:
		if code != http.StatusOK {
			t.Errorf("write: %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a write waited behind reads at the gate")
	}

	// A read waits while every place is held, and runs once one is given back.
	var ran atomic.Bool
	go func() { done <- do(http.MethodGet, "/fast"); ran.Store(true) }()
	waitFor("the read to wait at the gate", func() bool { return waiting.Load() == 1 })
	if ran.Load() {
		t.Fatal("a read ran with every place held")
	}
	release <- struct{}{} // one slow read finishes
	if code := <-done; code != http.StatusOK {
		t.Errorf("read: %d", code)
	}
	if n := waiting.Load(); n != 0 {
		t.Errorf("%d reads counted as waiting after the read ran", n)
	}

	// Reads that hold their places past readHoldLimit give them back: a read behind them runs
	// while they go on.
	readHoldLimit = 20 * time.Millisecond
	slow.Add(1)
	go func() { defer slow.Done(); do(http.MethodGet, "/slow") }()
	<-entered
	go func() { done <- do(http.MethodGet, "/fast") }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a read waited behind reads holding their places past readHoldLimit")
	}
	close(release)
	slow.Wait()

	// Every place was given back, and only once: the places can all be held again, and one
	// read more waits.
	readHoldLimit = time.Hour
	release = make(chan struct{})
	holdEveryPlace()
	go func() { done <- do(http.MethodGet, "/fast") }()
	waitFor("a read to wait at the gate held again", func() bool { return waiting.Load() == 1 })
	close(release)
	<-done
	slow.Wait()
}

// TestReadGateNarrowsBesideWrites proves that while a write holds or waits for SQLite's writer
// only one read runs at a time, though the gate has more places, and that the others run once
// it finishes; with no write under way the gate's places are all used again.
func TestReadGateNarrowsBesideWrites(t *testing.T) {
	if runtime.GOMAXPROCS(0)*readGate < 2 {
		t.Skip("the gate has one place on one core: nothing to narrow")
	}
	var waiting atomic.Int64
	var writing atomic.Bool
	writing.Store(true)
	e := echo.New()
	e.Use(gateReads(&waiting, writing.Load))
	entered, release := make(chan struct{}), make(chan struct{})
	e.GET("/slow", func(c echo.Context) error {
		entered <- struct{}{}
		<-release
		return c.NoContent(http.StatusOK)
	})
	do := func() int {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/slow", nil))
		return rec.Code
	}
	done := make(chan int, 4)
	go func() { done <- do() }()
	<-entered
	go func() { done <- do() }()
	for deadline := time.Now().Add(10 * time.Second); waiting.Load() != 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a second read did not wait beside a write")
		}
	}
	select {
	case <-entered:
		t.Fatal("a second read ran beside a write")
	default:
	}
	writing.Store(false)
	release <- struct{}{} // the first read ends; the second, already past the write check, runs
	<-entered
	if code := <-done; code != http.StatusOK {
		t.Errorf("first read: %d", code)
	}
	// No write under way: a third read runs beside the second.
	go func() { done <- do() }()
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("with no write under way a read waited though a place was free")
	}
	close(release)
	for range 2 {
		if code := <-done; code != http.StatusOK {
			t.Errorf("read: %d", code)
		}
	}
}
