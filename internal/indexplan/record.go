package indexplan

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"net"
	"sync"

	"github.com/profdb/profdb/dialects"
)

// Statement is one statement a database handle of Open ran.
type Statement struct {
	SQL  string
	Args []any
}

// Recorder keeps the statements run through the handles Open returns. It is
// safe for concurrent use.
type Recorder struct {
	mu    sync.Mutex
	stmts []Statement
}

// Take returns the statements recorded since the last Take, in order, and
// forgets them.
func (r *Recorder) Take() []Statement {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.stmts
	r.stmts = nil
	return out
}

func (r *Recorder) add(query string, args []driver.NamedValue) {
	vals := make([]any, len(args))
	for i, a := range args {
		vals[i] = a.Value
	}
	r.mu.Lock()
	r.stmts = append(r.stmts, Statement{SQL: query, Args: vals})
	r.mu.Unlock()
}

// Open opens the database a profdb DSN names, as store.Open would with its
// dialect's driver, through a handle that records every statement into r,
// and returns the handle and the dialect. A native bulk path that needs the
// driver's own connection (PostgreSQL's COPY) does not find it: export
// through the handle with exporter.BulkOff.
func Open(dsn string, r *Recorder) (*sql.DB, dialects.Dialect, error) {
	d, err := dialects.ForDSN(dsn)
	if err != nil {
		return nil, nil, err
	}
	drv, err := d.DriverDSN(dsn)
	if err != nil {
		return nil, nil, err
	}
	var c driver.Connector
	if cn, ok := d.(dialects.Connector); ok {
		var dialer net.Dialer
		if c, err = cn.Connector(drv, dialer.DialContext); err != nil {
			return nil, nil, err
		}
	} else {
		db, err := sql.Open(d.DriverName(), drv)
		if err != nil {
			return nil, nil, err
		}
		c = dsnConnector{db.Driver(), drv}
		db.Close()
	}
	return sql.OpenDB(connector{c, r}), d, nil
}

type dsnConnector struct {
	d   driver.Driver
	dsn string
}

func (c dsnConnector) Connect(context.Context) (driver.Conn, error) { return c.d.Open(c.dsn) }
func (c dsnConnector) Driver() driver.Driver                        { return c.d }

type connector struct {
	c driver.Connector
	r *Recorder
}

func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := c.c.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{cn, c.r}, nil
}

func (c connector) Driver() driver.Driver { return c.c.Driver() }

// conn records the statements of a driver connection; it passes on every
// optional interface database/sql asks for.
type conn struct {
	c driver.Conn
	r *Recorder
}

var (
	_ driver.QueryerContext     = (*conn)(nil)
	_ driver.ExecerContext      = (*conn)(nil)
	_ driver.ConnPrepareContext = (*conn)(nil)
	_ driver.ConnBeginTx        = (*conn)(nil)
	_ driver.Pinger             = (*conn)(nil)
	_ driver.SessionResetter    = (*conn)(nil)
	_ driver.Validator          = (*conn)(nil)
	_ driver.NamedValueChecker  = (*conn)(nil)
)

func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	var s driver.Stmt
	var err error
	if p, ok := c.c.(driver.ConnPrepareContext); ok {
		s, err = p.PrepareContext(ctx, query)
	} else {
		s, err = c.c.Prepare(query)
	}
	if err != nil {
		return nil, err
	}
	return &stmt{s, query, c.r}, nil
}

func (c *conn) Close() error { return c.c.Close() }

func (c *conn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *conn) BeginTx(ctx context.Context, o driver.TxOptions) (driver.Tx, error) {
	if b, ok := c.c.(driver.ConnBeginTx); ok {
		return b.BeginTx(ctx, o)
	}
	return c.c.Begin() //nolint:staticcheck // the driver has no BeginTx
}

func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := c.c.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	c.r.add(query, args)
	return q.QueryContext(ctx, query, args)
}

func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	e, ok := c.c.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	c.r.add(query, args)
	return e.ExecContext(ctx, query, args)
}

func (c *conn) Ping(ctx context.Context) error {
	if p, ok := c.c.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *conn) ResetSession(ctx context.Context) error {
	if s, ok := c.c.(driver.SessionResetter); ok {
		return s.ResetSession(ctx)
	}
	return nil
}

func (c *conn) IsValid() bool {
	if v, ok := c.c.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (c *conn) CheckNamedValue(nv *driver.NamedValue) error {
	if n, ok := c.c.(driver.NamedValueChecker); ok {
		return n.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

// stmt records each execution of a prepared statement.
type stmt struct {
	s     driver.Stmt
	query string
	r     *Recorder
}

var (
	_ driver.StmtQueryContext  = (*stmt)(nil)
	_ driver.StmtExecContext   = (*stmt)(nil)
	_ driver.NamedValueChecker = (*stmt)(nil)
)

func (s *stmt) Close() error  { return s.s.Close() }
func (s *stmt) NumInput() int { return s.s.NumInput() }

func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	return nil, fmt.Errorf("indexplan: Exec without a context")
}

func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	return nil, fmt.Errorf("indexplan: Query without a context")
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	e, ok := s.s.(driver.StmtExecContext)
	if !ok {
		return nil, fmt.Errorf("indexplan: the driver's statement has no ExecContext")
	}
	s.r.add(s.query, args)
	return e.ExecContext(ctx, args)
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := s.s.(driver.StmtQueryContext)
	if !ok {
		return nil, fmt.Errorf("indexplan: the driver's statement has no QueryContext")
	}
	s.r.add(s.query, args)
	return q.QueryContext(ctx, args)
}

func (s *stmt) CheckNamedValue(nv *driver.NamedValue) error {
	if n, ok := s.s.(driver.NamedValueChecker); ok {
		return n.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}
