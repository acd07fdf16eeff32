package models

import (
	"container/list"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"reflect"
	"sync/atomic"

	moderncsqlite "modernc.org/sqlite"
)

// SQLite compiles a statement before running it, and compiling is the larger part of a short
// read: under 16 writers beside 60 readers it took 28 % of the server's CPU. database/sql keeps
// nothing compiled between calls unless the caller prepares, and gorm's own statement cache
// compiles again inside every transaction. So each SQLite connection keeps its compiled
// statements itself, the most recently used sqliteStmtLimit of them, keyed by their text.

// sqliteStmtLimit is how many compiled statements one connection keeps: the store's statements
// are a few hundred texts, and those with IN lists vary with the list's length.
const sqliteStmtLimit = 256

// stmtsCompiled counts the statements compiled, in every connection; tests read it.
var stmtsCompiled atomic.Int64

// openSQLite opens a pool of connections to dsn that keep their compiled statements.
func openSQLite(dsn string) (*sql.DB, error) {
	base, err := moderncsqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(keepingConnector{base}), nil
}

type keepingConnector struct{ driver.Connector }

func (k keepingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := k.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &keepingConn{Conn: conn, stmts: map[string]*list.Element{}, order: list.New()}, nil
}

// keepingConn is one SQLite connection with its compiled statements. database/sql uses a
// connection from one goroutine at a time, so it needs no lock.
type keepingConn struct {
	driver.Conn
	stmts map[string]*list.Element // of *keptStmt, most recently used at the front of order
	order *list.List
}

type keptStmt struct {
	query string
	stmt  driver.Stmt
	// open is set while rows of the statement are being read: a query of the same text
	// meanwhile (a nested read in one transaction) compiles one of its own.
	open bool
	// evicted statements still open are closed when their rows are.
	evicted bool
}

// Unwrap returns the driver's connection (modernc.org/sqlite's Limit looks through it).
func (c *keepingConn) Unwrap() driver.Conn { return c.Conn }

func (c *keepingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *keepingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	stmtsCompiled.Add(1)
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c *keepingConn) Ping(ctx context.Context) error { return c.Conn.(driver.Pinger).Ping(ctx) }

func (c *keepingConn) ResetSession(ctx context.Context) error {
	return c.Conn.(driver.SessionResetter).ResetSession(ctx)
}

func (c *keepingConn) IsValid() bool { return c.Conn.(driver.Validator).IsValid() }

// Close closes the kept statements, then the connection.
func (c *keepingConn) Close() error {
	var errs []error
	for _, e := range c.stmts {
		errs = append(errs, e.Value.(*keptStmt).stmt.Close())
	}
	c.stmts, c.order = nil, nil
	return errors.Join(append(errs, c.Conn.Close())...)
}

// kept returns the connection's compiled statement for query, compiling it the first time, or
// nil when the kept one is in use by rows still open.
func (c *keepingConn) kept(ctx context.Context, query string) (*keptStmt, error) {
	if e, ok := c.stmts[query]; ok {
		k := e.Value.(*keptStmt)
		if k.open {
			return nil, nil
		}
		c.order.MoveToFront(e)
		return k, nil
	}
	stmt, err := c.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	k := &keptStmt{query: query, stmt: stmt}
	c.stmts[query] = c.order.PushFront(k)
	for c.order.Len() > sqliteStmtLimit {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		old := oldest.Value.(*keptStmt)
		delete(c.stmts, old.query)
		if old.open {
			old.evicted = true
		} else if err := old.stmt.Close(); err != nil {
			return nil, err
		}
	}
	return k, nil
}

func (c *keepingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	k, err := c.kept(ctx, query)
	if err != nil {
		return nil, err
	}
	if k == nil {
		stmtsCompiled.Add(1)
		return c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
	}
	res, err := k.stmt.(driver.StmtExecContext).ExecContext(ctx, args)
	if errors.Is(err, driver.ErrBadConn) {
		c.forget(query)
	}
	return res, err
}

func (c *keepingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	k, err := c.kept(ctx, query)
	if err != nil {
		return nil, err
	}
	if k == nil {
		stmtsCompiled.Add(1)
		return c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
	}
	rows, err := k.stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		if errors.Is(err, driver.ErrBadConn) {
			c.forget(query)
		}
		return nil, err
	}
	k.open = true
	return &keptRows{Rows: rows, k: k}, nil
}

// forget drops a kept statement that failed with the connection.
func (c *keepingConn) forget(query string) {
	if e, ok := c.stmts[query]; ok {
		c.order.Remove(e)
		delete(c.stmts, query)
		_ = e.Value.(*keptStmt).stmt.Close()
	}
}

// keptRows are the rows of a kept statement: closing them frees the statement for its next run.
type keptRows struct {
	driver.Rows
	k *keptStmt
}

func (r *keptRows) Close() error {
	err := r.Rows.Close()
	r.k.open = false
	if r.k.evicted {
		err = errors.Join(err, r.k.stmt.Close())
	}
	return err
}

// The driver's rows tell database/sql their columns' types; keptRows must pass that on.

func (r *keptRows) ColumnTypeDatabaseTypeName(i int) string {
	return r.Rows.(driver.RowsColumnTypeDatabaseTypeName).ColumnTypeDatabaseTypeName(i)
}

func (r *keptRows) ColumnTypeNullable(i int) (nullable, ok bool) {
	return r.Rows.(driver.RowsColumnTypeNullable).ColumnTypeNullable(i)
}

func (r *keptRows) ColumnTypeLength(i int) (length int64, ok bool) {
	return r.Rows.(driver.RowsColumnTypeLength).ColumnTypeLength(i)
}

func (r *keptRows) ColumnTypePrecisionScale(i int) (precision, scale int64, ok bool) {
	return r.Rows.(driver.RowsColumnTypePrecisionScale).ColumnTypePrecisionScale(i)
}

func (r *keptRows) ColumnTypeScanType(i int) reflect.Type {
	return r.Rows.(driver.RowsColumnTypeScanType).ColumnTypeScanType(i)
}
