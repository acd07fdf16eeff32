package models

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestWriteQueueKeepsArrivalOrder queues writers one after another behind a busy turn and proves
// they get it in the order they asked, that a writer whose context ends leaves the line, and that
// a turn handed to a writer as its context ended passes on to the next.
func TestWriteQueueKeepsArrivalOrder(t *testing.T) {
	var q writeQueue
	queued := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
			q.mu.Lock()
			got := len(q.waiting)
			q.mu.Unlock()
			if got == n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("waited 10s for %d writers in line, have %d", n, got)
			}
		}
	}
	if err := q.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	const writers = 8
	order := make(chan int, writers)
	cancelled, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	for n := range writers {
		if n == 3 {
			// The fourth in line gives up before its turn.
			go func() { gaveUp <- q.wait(cancelled) }()
			queued(n + 1)
			continue
		}
		go func() {
			if err := q.wait(context.Background()); err != nil {
				t.Error(err)
			}
			order <- n
			q.done()
		}()
		queued(n + 1)
	}
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Errorf("a writer whose context ended: %v, want context.Canceled", err)
	}
	queued(writers - 1)
	q.done()
	for want := range writers {
		if want == 3 {
			continue
		}
		if got := <-order; got != want {
			t.Fatalf("writer %d had its turn when writer %d's was due", got, want)
		}
	}
	// A turn handed over as the context ends is passed on: the line ends free.
	if err := q.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel2 := context.WithCancel(context.Background())
	late := make(chan error, 1)
	go func() { late <- q.wait(ctx) }()
	queued(1)
	q.mu.Lock()
	cancel2()
	q.handOn() // the turn goes to the waiter while it sees its context end
	q.mu.Unlock()
	if err := <-late; err == nil {
		q.done()
	}
	if err := q.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	q.mu.Lock()
	busy, waiting := q.busy, len(q.waiting)
	q.mu.Unlock()
	if !busy || waiting != 0 {
		t.Errorf("after the handed-over turn: busy %v, %d waiting; want the turn taken by the last writer and nobody in line", busy, waiting)
	}
	q.done()
}
