package models

import (
	"context"
	"sync"
	"sync/atomic"
)

// writeQueue hands SQLite's one write connection to the store's write transactions in the order
// they asked for it. database/sql gives a freed connection to a waiter picked at random: with
// sixteen writers waiting, a write's wait was the queue's length on average but five times it at
// the 99th percentile. In arrival order the wait is never longer than the queue ahead of it.
// PostgreSQL has many write connections and no queue.
type writeQueue struct {
	mu      sync.Mutex
	busy    bool
	waiting []chan struct{}
	// on mirrors busy for readers that take no lock (Store.Writing).
	on atomic.Bool
}

// wait returns when it is the caller's turn to write, or with ctx's error if ctx ends first.
func (q *writeQueue) wait(ctx context.Context) error {
	q.mu.Lock()
	if !q.busy {
		q.busy = true
		q.on.Store(true)
		q.mu.Unlock()
		return nil
	}
	turn := make(chan struct{})
	q.waiting = append(q.waiting, turn)
	q.mu.Unlock()
	select {
	case <-turn:
		return nil
	case <-ctx.Done():
		q.mu.Lock()
		defer q.mu.Unlock()
		for n, c := range q.waiting {
			if c == turn {
				q.waiting = append(q.waiting[:n], q.waiting[n+1:]...)
				return ctx.Err()
			}
		}
		// The turn was handed over as ctx ended: pass it on.
		q.handOn()
		return ctx.Err()
	}
}

// done ends the caller's turn and gives it to the first in line.
func (q *writeQueue) done() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.handOn()
}

// handOn gives the turn to the first waiter, or frees it; q.mu is held.
func (q *writeQueue) handOn() {
	if len(q.waiting) == 0 {
		q.busy = false
		q.on.Store(false)
		return
	}
	next := q.waiting[0]
	q.waiting = q.waiting[1:]
	close(next)
}

// Writing tells whether a write transaction holds or waits for SQLite's writer; always false on
// PostgreSQL, whose writers do not queue.
func (s *Store) Writing() bool { return s.writeTurn.on.Load() }

// WritesWaiting is how many write transactions wait in line for SQLite's writer, for tests.
func (s *Store) WritesWaiting() int {
	s.writeTurn.mu.Lock()
	defer s.writeTurn.mu.Unlock()
	return len(s.writeTurn.waiting)
}
