package models

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	moderncsqlite "modernc.org/sqlite"
)

// SQLite copies the write-ahead log back into the database file in checkpoints. Left to itself it
// runs one inside the commit that takes the log past 1,000 pages, on the one writer connection,
// with an fsync of the database file: under a stream of writes such a commit took up to 250 ms,
// and the fifteen writers queued behind it waited too (write p99 135 and 502 ms in two runs of 24,
// docs/performance.md). The writer connection therefore never checkpoints (wal_autocheckpoint 0),
// and a goroutine of the store's checkpoints on a connection of its own instead: PASSIVE checkpoints, which
// copy what every reader is done with while the writer goes on appending and wait for no lock,
// then a short last one in a write turn. A writing statement wakes it; it lets checkpointDelay
// pass first, so that a burst of writes is copied in one checkpoint (and the statement has
// committed), and does nothing while nothing is written. The last connection to close
// checkpoints what is left.

// checkpointDelay is how long the checkpointer lets writes gather after the first wakes it.
const checkpointDelay = 100 * time.Millisecond

type checkpointer struct {
	// db is the checkpointer's own connection, outside the store's pools: its statements are not
	// the requests' (Store.Statements, the compiled-statement counts), and it waits for no pool.
	db   *sql.DB
	wake chan struct{}
	stop chan struct{}
	done chan struct{}
	once sync.Once
	// runs counts the checkpoints that completed: every page of the log was copied.
	runs atomic.Int64
}

// startCheckpoints opens a connection to the SQLite file at path and starts the store's
// checkpointer on it.
func (s *Store) startCheckpoints(path string) error {
	connector, err := moderncsqlite.NewConnector("file:" + path)
	if err != nil {
		return fmt.Errorf("open the checkpointer's connection: %w", err)
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(1)
	c := &checkpointer{db: db, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	s.checkpoints = c
	go func() {
		defer close(c.done)
		for {
			select {
			case <-c.stop:
				return
			case <-c.wake:
			}
			select {
			case <-c.stop:
				return
			case <-time.After(checkpointDelay):
			}
			err := Safely(func() error { return s.checkpoint(c) })
			if err != nil {
				slog.Error("sqlite checkpoint", "err", err)
			}
		}
	}()
	return nil
}

// checkpoint copies the log into the file. Passive checkpoints beside the writer copy what was
// committed when each began, never all of it while writes go on, and SQLite starts the log over
// only after one copied everything: so while little is left it takes a write turn (write_turn.go)
// and copies the rest, as the writer's own checkpoints did, but a few pages instead of a thousand.
func (s *Store) checkpoint(c *checkpointer) error {
	left, err := c.passive()
	for n := 0; err == nil && left > checkpointLeft && n < 4; n++ {
		left, err = c.passive()
	}
	if err != nil {
		return err
	}
	if err := s.writeTurn.wait(context.Background()); err != nil {
		return err
	}
	defer s.writeTurn.done()
	if left, err = c.passive(); err == nil && left == 0 {
		c.runs.Add(1)
	}
	return err
}

// checkpointLeft is how many pages of the log may be left for the checkpoint inside a write turn.
const checkpointLeft = 64

// passive runs one PASSIVE checkpoint and returns how many pages of the log it left (pages a
// reader still needs, or written since it began).
func (c *checkpointer) passive() (int64, error) {
	var busy, logged, copied int64
	err := c.db.QueryRowContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &logged, &copied)
	if err != nil {
		return 0, fmt.Errorf("checkpoint the write-ahead log: %w", err)
	}
	if busy != 0 || logged < 0 {
		return max(logged, 1), nil
	}
	return logged - copied, nil
}

// wakeCheckpoints tells the checkpointer that something was written (it may not have committed).
func (s *Store) wakeCheckpoints() {
	if c := s.checkpoints; c != nil {
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
}

// stopCheckpoints stops the checkpointer and waits for it, before the pools close.
func (s *Store) stopCheckpoints() {
	if c := s.checkpoints; c != nil {
		c.once.Do(func() {
			close(c.stop)
			<-c.done
			c.db.Close()
		})
	}
}

// Checkpoints counts the background checkpoints that copied the whole write-ahead log (SQLite; 0
// on PostgreSQL).
func (s *Store) Checkpoints() int64 {
	if s.checkpoints == nil {
		return 0
	}
	return s.checkpoints.runs.Load()
}
