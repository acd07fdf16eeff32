package models_test

import (
	"context"
	"strconv"
	"testing"

	"hindsight/models"
	"hindsight/models/storetest"
)

// TestAnotherProcessWritesAreSeen has one store (a server process) keep pages by their marks while
// another store on the same database writes: each write moves the marks it should on the first
// store's next call, with no wait. On PostgreSQL a transaction that took its id before another
// committed, and commits after the first store looked, is still seen: the look reads from the
// oldest transaction still running, not from the newest version seen.
func TestAnotherProcessWritesAreSeen(t *testing.T) {
	storetest.EachShared(t, func(t *testing.T, open func() *models.Store) {
		ctx := context.Background()
		reader, writer := open(), open()
		a := createOnDay(t, writer, 1, models.IncidentInput{Title: "Queue backed up", Services: []string{"Queue"}})
		b := createOnDay(t, writer, 2, models.IncidentInput{Title: "Cache cold", Services: []string{"Cache"}})
		mark := func(id int64) string {
			t.Helper()
			m, err := reader.IncidentPageMark(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		listMark := func() int64 {
			t.Helper()
			m, err := reader.IncidentsMark(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		ma, mb, ml := mark(a.ID), mark(b.ID), listMark()
		if _, err := writer.CreateEvent(ctx, a.ID, models.EventInput{At: *a.StartedAt, Kind: "note", Body: "Paged."}); err != nil {
			t.Fatal(err)
		}
		if got := mark(a.ID); got == ma {
			t.Error("another process's entry on A left A's mark")
		}
		if got := mark(b.ID); got != mb {
			t.Error("another process's entry on A moved B's mark")
		}
		if got := listMark(); got == ml {
			t.Error("another process's entry left the list's mark")
		}
		if reader.Dialect() != "postgres" {
			return
		}
		db, err := writer.SQLDB()
		if err != nil {
			t.Fatal(err)
		}
		late, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer late.Rollback()
		// The late transaction takes its id now, before the other write.
		if _, err := late.Exec("SELECT pg_current_xact_id()"); err != nil {
			t.Fatal(err)
		}
		if _, err := writer.CreateEvent(ctx, a.ID, models.EventInput{At: *a.StartedAt, Kind: "note", Body: "Again."}); err != nil {
			t.Fatal(err)
		}
		ma, mb = mark(a.ID), mark(b.ID) // sees the newer write, while the late one still runs
		for _, q := range append([]string{"UPDATE incidents SET title = 'Cache cold everywhere' WHERE id = " + strconv.FormatInt(b.ID, 10)},
			writer.ChangesSQL(false, false, false, b.ID)...) {
			if _, err := late.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		if err := late.Commit(); err != nil {
			t.Fatal(err)
		}
		if got := mark(b.ID); got == mb {
			t.Error("a transaction that began before another write and committed after the look was missed")
		}
		if got := mark(a.ID); got != ma {
			t.Error("the late transaction moved A's mark")
		}
	})
}
