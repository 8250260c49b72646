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
	"sync"
	"testing"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/store"
)

// Plan is a statement profdb ran and the server's plan of it.
type Plan struct {
	Query string
	Args  []any
	// JSON is the plan as the server gave it.
	JSON string
	// Err is why the server gave no plan; the rest is then empty.
	Err error
	// Scans are the reads of tables in the plan, in plan order.
	Scans []Scan
	// JIT reports that PostgreSQL would compile the statement's
	// expressions with JIT.
	JIT bool
	// Workers is the number of parallel workers PostgreSQL plans for the
	// statement (the largest Gather's); 0 for a serial plan.
	Workers int
}

// Scan is how a plan reads one table.
type Scan struct {
	// Table is the table's name as the server reports it (lower case on
	// PostgreSQL, where profdb stores names so). MySQL's plans name the
	// alias a statement gives a table; Table is then the table the
	// statement names with that alias, and Alias the alias.
	Table, Alias string
	// Method is the server's own name of the access: "Seq Scan", "Index
	// Scan", "Bitmap Heap Scan", ... on PostgreSQL; the access_type
	// ("ALL", "index", "range", "ref", ...) on MySQL.
	Method string
	// Index is the index the scan uses, "" for none.
	Index string
	// Columns are the index's columns that bound the scan, in index order
	// (MySQL's used_key_parts; the columns compared in PostgreSQL's Index
	// Cond), as the server spells them. Empty for a scan that reads the
	// whole table or the whole index.
	Columns []string
	// Full reports that the scan reads every row of the table or every
	// entry of an index: a sequential scan, or an index scan without a
	// condition.
	Full bool
	// Rows is the server's estimate of the rows the scan returns (for
	// each loop, on PostgreSQL; examined, on MySQL).
	Rows float64
	// PerRow reports, on PostgreSQL, a scan on the inner side of a nested
	// loop whose index condition names no column but INST_ID: it reads
	// (or its rows are compared) again for each row of the outer side,
	// rows × rows for two tables of one result set. The planner picks it
	// when its estimates say each side holds a row.
	PerRow bool
}

// Recorder holds the statements of the connections of one Open, with
// their plans, in the order they ran. It is safe for concurrent use.
type Recorder struct {
	dialect string
	mu      sync.Mutex
	plans   []Plan
}

// Take returns the plans recorded since the last Take.
func (r *Recorder) Take() []Plan {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.plans
	r.plans = nil
	return out
}

func (r *Recorder) add(p Plan) {
	r.mu.Lock()
	r.plans = append(r.plans, p)
	r.mu.Unlock()
}

// Open opens dsn, a profdb DSN of PostgreSQL or MySQL, as store.Open
// does, on connections that explain each statement before they run it
// (see the package documentation). The handle is closed when the test
// ends.
func Open(t testing.TB, dsn string, o store.Options) (*store.DB, *Recorder) {
	t.Helper()
	d, err := dialects.ForDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	switch d.Name() {
	case "postgres", "mysql":
	default:
		t.Fatalf("plantest: no plans of %s", d.Name())
	}
	drv, err := d.DriverDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := d.(dialects.Connector)
	if !ok {
		t.Fatalf("plantest: dialect %s opens no connector", d.Name())
	}
	conn, err := c.Connector(drv, (&net.Dialer{}).DialContext)
	if err != nil {
		t.Fatal(err)
	}
	r := &Recorder{dialect: d.Name()}
	sqlDB := sql.OpenDB(connector{conn, r})
	t.Cleanup(func() { sqlDB.Close() })
	return store.New(sqlDB, d, o), r
}

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

// explained matches the statements a connection explains: those that
// read or write tables. Leading comments and parentheses are skipped.
var explained = regexp.MustCompile(`(?is)^(\s|\(|/\*.*?\*/|--[^\n]*\n)*(SELECT|WITH|INSERT|UPDATE|DELETE)\b`)

// conn passes everything to the driver's connection. A statement it
// explains goes through a prepared statement of its own (QueryContext and
// ExecContext answer driver.ErrSkip, so that database/sql prepares it),
// which explains before it runs.
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
	return &stmt{Stmt: st, c: c, query: q}, nil
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
	if !ok || explained.MatchString(q) {
		return nil, driver.ErrSkip
	}
	return qc.QueryContext(ctx, q, args)
}

func (c *conn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	ec, ok := c.inner.(driver.ExecerContext)
	if !ok || explained.MatchString(q) {
		return nil, driver.ErrSkip
	}
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

// explain records the plan of q with args, asked on the connection.
func (c *conn) explain(ctx context.Context, q string, args []driver.NamedValue) {
	p := Plan{Query: q, Args: make([]any, len(args))}
	for i, a := range args {
		p.Args[i] = a.Value
	}
	prefix := "EXPLAIN (FORMAT JSON) "
	if c.r.dialect == "mysql" {
		prefix = "EXPLAIN FORMAT=JSON "
	}
	p.JSON, p.Err = c.queryText(ctx, prefix+q, args)
	if p.Err == nil {
		p.Err = p.read(c.r.dialect)
	}
	c.r.add(p)
}

// queryText runs q on the driver's connection and returns the first value
// of its rows, joined: a plan in JSON.
func (c *conn) queryText(ctx context.Context, q string, args []driver.NamedValue) (string, error) {
	var rows driver.Rows
	var err error = driver.ErrSkip
	if qc, ok := c.inner.(driver.QueryerContext); ok {
		rows, err = qc.QueryContext(ctx, q, args)
	}
	if errors.Is(err, driver.ErrSkip) {
		var st driver.Stmt
		if st, err = c.inner.(driver.ConnPrepareContext).PrepareContext(ctx, q); err != nil {
			return "", err
		}
		defer st.Close()
		rows, err = st.(driver.StmtQueryContext).QueryContext(ctx, args)
	}
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var out []byte
	vals := make([]driver.Value, len(rows.Columns()))
	for {
		err := rows.Next(vals)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
		switch v := vals[0].(type) {
		case []byte:
			out = append(out, v...)
		case string:
			out = append(out, v...)
		default:
			return "", fmt.Errorf("plan as %T", v)
		}
	}
	return string(out), nil
}

// stmt is a prepared statement of conn: it explains itself with the
// arguments of each run, before the run.
type stmt struct {
	driver.Stmt
	c     *conn
	query string
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	if explained.MatchString(s.query) {
		s.c.explain(ctx, s.query, args)
	}
	if ec, ok := s.Stmt.(driver.StmtExecContext); ok {
		return ec.ExecContext(ctx, args)
	}
	return nil, fmt.Errorf("plantest: the driver's statement has no ExecContext")
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if explained.MatchString(s.query) {
		s.c.explain(ctx, s.query, args)
	}
	if qc, ok := s.Stmt.(driver.StmtQueryContext); ok {
		return qc.QueryContext(ctx, args)
	}
	return nil, fmt.Errorf("plantest: the driver's statement has no QueryContext")
}

func (s *stmt) CheckNamedValue(nv *driver.NamedValue) error {
	if ch, ok := s.Stmt.(driver.NamedValueChecker); ok {
		return ch.CheckNamedValue(nv)
	}
	return s.c.CheckNamedValue(nv)
}
