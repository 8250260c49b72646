package plantest

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/profdb/profdb/dialects"
)

// Statement is a statement run through a handle of Open.
type Statement struct {
	Query string
	Args  []any
	// Plan is, on a handle that explains first (Options.ExplainFirst),
	// the plan the server gave for the statement just before it ran, or
	// PlanErr why it gave none. Both are empty for a statement that is
	// not explained (neither SELECT, WITH, INSERT, UPDATE nor DELETE) and
	// on a handle that only records: Explain asks for its plan then.
	Plan    *Plan
	PlanErr error
}

// Explained reports whether the server was asked for the statement's plan
// before it ran.
func (s Statement) Explained() bool { return s.Plan != nil || s.PlanErr != nil }

// Options are how the handle of Open records.
type Options struct {
	// ExplainFirst makes each connection ask the server for its plan of
	// each SELECT, WITH, INSERT, UPDATE or DELETE just before it runs it,
	// on the same connection, inside the same transaction, with the same
	// arguments: the plan is the one the statement then gets, under the
	// session settings profdb gave the transaction.
	ExplainFirst bool
}

// Recorder keeps the statements run through the handle of one Open, in the
// order they ran. It is safe for concurrent use.
type Recorder struct {
	dialect      string
	explainFirst bool
	mu           sync.Mutex
	stmts        []Statement
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

func (r *Recorder) add(s Statement) {
	r.mu.Lock()
	r.stmts = append(r.stmts, s)
	r.mu.Unlock()
}

// explains reports whether the connections explain query before they run
// it.
func (r *Recorder) explains(query string) bool {
	return r.explainFirst && explained.MatchString(query)
}

// explained matches the statements a connection explains: those that
// read or write tables. Leading comments and parentheses are skipped.
var explained = regexp.MustCompile(`(?is)^(\s|\(|/\*.*?\*/|--[^\n]*\n)*(SELECT|WITH|INSERT|UPDATE|DELETE)\b`)

// Open opens the database a profdb DSN names, as store.Open would with its
// dialect's driver, through a handle that records every statement into
// the Recorder, with its plan if o.ExplainFirst (SQLite, PostgreSQL and
// MySQL only), and returns the handle, which store.New takes with the
// dialect. The handle is closed when the test ends.
func Open(t testing.TB, dsn string, o Options) (*sql.DB, dialects.Dialect, *Recorder) {
	t.Helper()
	d, err := dialects.ForDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := explainOf(d.Name(), ""); o.ExplainFirst && err != nil {
		t.Fatal(err)
	}
	drv, err := d.DriverDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	var c driver.Connector
	if cn, ok := d.(dialects.Connector); ok {
		if c, err = cn.Connector(drv, (&net.Dialer{}).DialContext); err != nil {
			t.Fatal(err)
		}
	} else {
		db, err := sql.Open(d.Facts().Driver, drv)
		if err != nil {
			t.Fatal(err)
		}
		c = dsnConnector{db.Driver(), drv}
		db.Close()
	}
	r := &Recorder{dialect: d.Name(), explainFirst: o.ExplainFirst}
	sqlDB := sql.OpenDB(connector{c, r})
	t.Cleanup(func() { sqlDB.Close() })
	return sqlDB, d, r
}

// dsnConnector opens connections of a driver that has no connector of its
// own.
type dsnConnector struct {
	d   driver.Driver
	dsn string
}

func (c dsnConnector) Connect(context.Context) (driver.Conn, error) { return c.d.Open(c.dsn) }
func (c dsnConnector) Driver() driver.Driver                        { return c.d }

type connector struct {
	driver.Connector
	r *Recorder
}

func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{inner: cn, r: c.r}, nil
}

// conn passes everything to the driver's connection and records each
// statement. A statement it explains goes through a prepared statement of
// its own (QueryContext and ExecContext answer driver.ErrSkip, so that
// database/sql prepares it), which explains before it runs.
type conn struct {
	inner driver.Conn
	r     *Recorder
}

var (
	_ driver.QueryerContext     = (*conn)(nil)
	_ driver.ExecerContext      = (*conn)(nil)
	_ driver.ConnPrepareContext = (*conn)(nil)
	_ driver.ConnBeginTx        = (*conn)(nil)
	_ driver.NamedValueChecker  = (*conn)(nil)
	_ driver.SessionResetter    = (*conn)(nil)
	_ driver.Validator          = (*conn)(nil)
	_ driver.Pinger             = (*conn)(nil)
)

func (c *conn) Prepare(q string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), q)
}

func (c *conn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	var st driver.Stmt
	var err error
	if p, ok := c.inner.(driver.ConnPrepareContext); ok {
		st, err = p.PrepareContext(ctx, q)
	} else {
		st, err = c.inner.Prepare(q)
	}
	if err != nil {
		return nil, err
	}
	return &stmt{inner: st, c: c, query: q}, nil
}

func (c *conn) Close() error { return c.inner.Close() }

func (c *conn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *conn) BeginTx(ctx context.Context, o driver.TxOptions) (driver.Tx, error) {
	if b, ok := c.inner.(driver.ConnBeginTx); ok {
		return b.BeginTx(ctx, o)
	}
	return c.inner.Begin() //nolint:staticcheck // the driver has nothing newer
}

func (c *conn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	qc, ok := c.inner.(driver.QueryerContext)
	if !ok || c.r.explains(q) {
		return nil, driver.ErrSkip
	}
	c.record(ctx, q, args)
	return qc.QueryContext(ctx, q, args)
}

func (c *conn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	ec, ok := c.inner.(driver.ExecerContext)
	if !ok || c.r.explains(q) {
		return nil, driver.ErrSkip
	}
	c.record(ctx, q, args)
	return ec.ExecContext(ctx, q, args)
}

func (c *conn) CheckNamedValue(nv *driver.NamedValue) error {
	if ch, ok := c.inner.(driver.NamedValueChecker); ok {
		return ch.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

func (c *conn) ResetSession(ctx context.Context) error {
	if rs, ok := c.inner.(driver.SessionResetter); ok {
		return rs.ResetSession(ctx)
	}
	return nil
}

func (c *conn) IsValid() bool {
	if v, ok := c.inner.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (c *conn) Ping(ctx context.Context) error {
	if p, ok := c.inner.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

// record records q with args, about to run on the connection, and its
// plan, asked on the connection, if the recorder explains it.
func (c *conn) record(ctx context.Context, q string, args []driver.NamedValue) {
	s := Statement{Query: q, Args: make([]any, len(args))}
	for i, a := range args {
		s.Args[i] = a.Value
	}
	if c.r.explains(q) {
		if text, err := c.planText(ctx, q, args); err != nil {
			s.PlanErr = fmt.Errorf("plantest: explain: %w", err)
		} else if p, err := ReadPlan(c.r.dialect, q, text); err != nil {
			s.PlanErr = err
		} else {
			s.Plan = &p
		}
	}
	c.r.add(s)
}

// planText asks the driver's connection for the plan of q with args and
// returns it as Plan.Text.
func (c *conn) planText(ctx context.Context, q string, args []driver.NamedValue) (string, error) {
	stmt, col, _, err := explainOf(c.r.dialect, q)
	if err != nil {
		return "", err
	}
	var rows driver.Rows
	err = driver.ErrSkip
	if qc, ok := c.inner.(driver.QueryerContext); ok {
		rows, err = qc.QueryContext(ctx, stmt, args)
	}
	if errors.Is(err, driver.ErrSkip) {
		var st driver.Stmt
		if st, err = c.inner.(driver.ConnPrepareContext).PrepareContext(ctx, stmt); err != nil {
			return "", err
		}
		defer st.Close()
		rows, err = st.(driver.StmtQueryContext).QueryContext(ctx, args)
	}
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var lines []string
	vals := make([]driver.Value, len(rows.Columns()))
	for {
		err := rows.Next(vals)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
		line, err := planLine(vals, col)
		if err != nil {
			return "", err
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n"), nil
}

// stmt is a prepared statement of conn: it records itself with the
// arguments of each run, and explains itself, before the run.
type stmt struct {
	inner driver.Stmt
	c     *conn
	query string
}

var (
	_ driver.StmtQueryContext  = (*stmt)(nil)
	_ driver.StmtExecContext   = (*stmt)(nil)
	_ driver.NamedValueChecker = (*stmt)(nil)
)

func (s *stmt) Close() error  { return s.inner.Close() }
func (s *stmt) NumInput() int { return s.inner.NumInput() }

func (s *stmt) Exec([]driver.Value) (driver.Result, error) {
	return nil, errors.New("plantest: Exec without a context")
}

func (s *stmt) Query([]driver.Value) (driver.Rows, error) {
	return nil, errors.New("plantest: Query without a context")
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	ec, ok := s.inner.(driver.StmtExecContext)
	if !ok {
		return nil, errors.New("plantest: the driver's statement has no ExecContext")
	}
	s.c.record(ctx, s.query, args)
	return ec.ExecContext(ctx, args)
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	qc, ok := s.inner.(driver.StmtQueryContext)
	if !ok {
		return nil, errors.New("plantest: the driver's statement has no QueryContext")
	}
	s.c.record(ctx, s.query, args)
	return qc.QueryContext(ctx, args)
}

func (s *stmt) CheckNamedValue(nv *driver.NamedValue) error {
	if ch, ok := s.inner.(driver.NamedValueChecker); ok {
		return ch.CheckNamedValue(nv)
	}
	return s.c.CheckNamedValue(nv)
}
