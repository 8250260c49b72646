package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strconv"
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

var _ dialects.BulkLoader = Dialect{}

// CopySQL returns the COPY statement BulkLoad prepares:
//
//	COPY "schema"."table" ("col", ...) FROM STDIN
//
// in text format, the names quoted as given (real names). lib/pq turns a
// statement starting with COPY into its CopyIn stream.
func (d Dialect) CopySQL(schema, table string, columns []string) string {
	var b strings.Builder
	b.WriteString("COPY ")
	b.WriteString(dialects.Qualify(d, schema, table))
	b.WriteString(" (")
	for i, c := range columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.Quote(c))
	}
	b.WriteString(") FROM STDIN")
	return b.String()
}

// BulkLoad writes rows into t with COPY ... FROM STDIN (lib/pq's CopyIn,
// the text format) inside tx and returns the row count the server reports.
// It implements dialects.BulkLoader.
//
// When tx.Conn is set, BulkLoad encodes the rows itself (AppendCopyText)
// and hands lib/pq whole blocks of lines through its COPY statement's
// CopyData, on the driver's connection (sql.Conn.Raw): database/sql's
// conversion of every value, which costs more than the encoding, is
// skipped. Without a connection it sends each row through database/sql,
// and lib/pq encodes it. Both store the same values (FuzzBulkMatchesInsert).
//
// Values go as lib/pq encodes them for the text format: an int64 in
// decimal, a float64 as its shortest exact decimal (strconv 'f', -1), which
// float8in reads back to the same double, a string escaped for COPY
// (backslash, tab, newline, carriage return), a Decimal as its canonical
// text, which numeric(28,8) takes exactly, and NULL as \N. A string with
// U+0000 is refused by the server, as it is by INSERT. Every server
// PostgreSQL supports has COPY, so BulkLoad never returns dialects.ErrSkip.
//
// A row whose values take longRow (60 KiB) or more goes by a one-row
// INSERT of its own instead, the COPY under way ended before it and
// another started after it: lib/pq keeps a COPY's buffer, as large as
// its longest line, until the COPY ends.
func (d Dialect) BulkLoad(ctx context.Context, tx dialects.Tx, t dialects.Target, rows dialects.Rows) (int64, error) {
	if len(t.Columns) == 0 || len(t.Types) != len(t.Columns) {
		return 0, fmt.Errorf("postgres: bulk load into %s: %d columns with %d types", t.Table, len(t.Columns), len(t.Types))
	}
	n, ran, err := dialects.OnDriverConn(tx, func(dc any) func() (int64, error) {
		conn, ok := dc.(driver.Conn)
		if !ok {
			return nil
		}
		return func() (int64, error) { return d.copyData(ctx, conn, t, rows) }
	})
	if ran {
		return n, err
	}
	if err != nil {
		return 0, fmt.Errorf("postgres: COPY into %s: %w", t.Table, err)
	}
	return d.copyIn(ctx, tx.Tx, t, rows)
}

// copyBlock is how many bytes of encoded rows copyData collects before it
// hands them to lib/pq, which sends them in messages of about 64 KiB.
const copyBlock = 60 << 10

// longRow is the size of a row's values (dialects.RowBytes) from which the
// row goes by an INSERT of its own, between two COPYs, instead of through
// COPY: lib/pq appends a COPY's lines to a buffer that it keeps until the
// COPY ends, so one line of 16 MiB held 16 MiB for the rest of the table
// (and its encoding as many again), while the message of an INSERT is
// dropped once sent.
const longRow = copyBlock

// copyStmt is lib/pq's COPY statement as copyData uses it.
type copyStmt interface {
	driver.Stmt
	CopyData(ctx context.Context, line string) (driver.Result, error)
}

// copyData is BulkLoad on lib/pq's own connection: the rows are encoded
// here and sent in blocks of whole lines, a long row (longRow) by an
// INSERT between two COPYs.
func (d Dialect) copyData(ctx context.Context, conn driver.Conn, t dialects.Target, rows dialects.Rows) (int64, error) {
	ex, ok := conn.(driver.ExecerContext)
	if !ok {
		return 0, fmt.Errorf("postgres: COPY into %s: the driver's connection %T has no ExecContext", t.Table, conn)
	}
	return copyRows(t, rows, &driverCopy{ctx: ctx, d: d, conn: conn, ex: ex, t: t, buf: make([]byte, 0, copyBlock+4<<10)})
}

// driverCopy is the copyPath on lib/pq's own connection.
type driverCopy struct {
	ctx   context.Context
	d     Dialect
	conn  driver.Conn
	ex    driver.ExecerContext
	t     dialects.Target
	stmt  copyStmt // the COPY under way, or nil
	buf   []byte   // encoded rows not yet handed to lib/pq
	rowNo int64    // of the last row encoded
	query string   // the INSERT of a long row
	args  []driver.NamedValue
}

func (c *driverCopy) start() error {
	ds, err := c.conn.Prepare(c.d.CopySQL(c.t.Schema, c.t.Table, c.t.Columns))
	if err != nil {
		return err
	}
	cs, ok := ds.(copyStmt)
	if !ok {
		ds.Close()
		return fmt.Errorf("the driver's statement %T has no CopyData", ds)
	}
	c.stmt = cs
	return nil
}

func (c *driverCopy) send(row []any, rowNo int64) error {
	var err error
	if c.buf, err = AppendCopyText(c.buf, row); err != nil {
		return fmt.Errorf("postgres: COPY into %s, row %d: %w", c.t.Table, rowNo, err)
	}
	c.rowNo = rowNo
	if len(c.buf) >= copyBlock {
		// An error of the server comes back with a later block or the
		// end of the copy.
		return c.flush()
	}
	return nil
}

// flush hands the encoded rows to lib/pq.
func (c *driverCopy) flush() error {
	if len(c.buf) == 0 {
		return nil
	}
	// CopyData adds the newline of the last line.
	_, err := c.stmt.CopyData(c.ctx, string(c.buf[:len(c.buf)-1]))
	c.buf = c.buf[:0]
	if err != nil {
		return fmt.Errorf("postgres: COPY into %s, near row %d: %w", c.t.Table, c.rowNo, err)
	}
	return nil
}

func (c *driverCopy) end() (driver.Result, error) {
	if err := c.flush(); err != nil {
		return nil, err
	}
	if err := c.ctx.Err(); err != nil {
		return nil, fmt.Errorf("postgres: COPY into %s: %w", c.t.Table, err)
	}
	res, err := c.stmt.Exec(nil) // ends the copy; lib/pq has no ExecContext for it
	c.stmt.Close()
	c.stmt = nil
	if err != nil {
		return nil, fmt.Errorf("postgres: COPY into %s: %w", c.t.Table, err)
	}
	return res, nil
}

func (c *driverCopy) insert(row []any) error {
	if c.query == "" {
		c.query = dialects.InsertSQL(c.d, dialects.Qualify(c.d, c.t.Schema, c.t.Table), c.t.Columns, 1)
		c.args = make([]driver.NamedValue, len(c.t.Columns))
	}
	for i, v := range row {
		c.args[i] = driver.NamedValue{Ordinal: i + 1, Value: copyValue(v)}
	}
	_, err := c.ex.ExecContext(c.ctx, c.query, c.args)
	clear(c.args)
	return err
}

// close ends the COPY if it is still open (after an error); its own error
// says nothing new, and the transaction is rolled back anyway.
func (c *driverCopy) close() {
	if c.stmt != nil {
		c.stmt.Close()
	}
}

// copyIn is BulkLoad through database/sql: lib/pq encodes each row; a
// long row (longRow) goes by an INSERT between two COPYs.
func (d Dialect) copyIn(ctx context.Context, tx *sql.Tx, t dialects.Target, rows dialects.Rows) (int64, error) {
	return copyRows(t, rows, &sqlCopy{ctx: ctx, d: d, tx: tx, t: t, args: make([]any, len(t.Columns))})
}

// sqlCopy is the copyPath through database/sql.
type sqlCopy struct {
	ctx   context.Context
	d     Dialect
	tx    *sql.Tx
	t     dialects.Target
	stmt  *sql.Stmt // the COPY under way, or nil
	query string    // the INSERT of a long row
	args  []any
}

func (c *sqlCopy) start() error {
	s, err := c.tx.PrepareContext(c.ctx, c.d.CopySQL(c.t.Schema, c.t.Table, c.t.Columns))
	c.stmt = s
	return err
}

// values returns row's values as lib/pq takes them, in c.args.
func (c *sqlCopy) values(row []any) []any {
	for i, v := range row {
		c.args[i] = copyValue(v)
	}
	return c.args
}

func (c *sqlCopy) send(row []any, rowNo int64) error {
	// lib/pq buffers rows and sends them in 64 KiB messages; an error of
	// the server comes back with a later row or the final Exec.
	_, err := c.stmt.ExecContext(c.ctx, c.values(row)...)
	clear(c.args)
	if err != nil {
		return fmt.Errorf("postgres: COPY into %s, near row %d: %w", c.t.Table, rowNo, err)
	}
	return nil
}

func (c *sqlCopy) end() (driver.Result, error) {
	res, err := c.stmt.ExecContext(c.ctx)
	c.stmt.Close()
	c.stmt = nil
	if err != nil {
		return nil, fmt.Errorf("postgres: COPY into %s: %w", c.t.Table, err)
	}
	return res, nil
}

func (c *sqlCopy) insert(row []any) error {
	if c.query == "" {
		c.query = dialects.InsertSQL(c.d, dialects.Qualify(c.d, c.t.Schema, c.t.Table), c.t.Columns, 1)
	}
	_, err := c.tx.ExecContext(c.ctx, c.query, c.values(row)...)
	clear(c.args)
	return err
}

func (c *sqlCopy) close() {
	if c.stmt != nil {
		c.stmt.Close()
	}
}

// copyPath is how BulkLoad writes, on the driver's connection (driverCopy)
// or through database/sql (sqlCopy): a COPY it starts, sends rows through
// and ends (end's error names the table), and beside it, with no COPY
// under way, the INSERT of a long row.
type copyPath interface {
	start() error
	send(row []any, rowNo int64) error
	end() (driver.Result, error)
	insert(row []any) error
	close() // ends a COPY left open by an error
}

// copyRows writes rows through p: COPY, and a long row (longRow) by an
// INSERT between two COPYs. Each COPY's row count is checked.
func copyRows(t dialects.Target, rows dialects.Rows, p copyPath) (n int64, err error) {
	defer p.close()
	open, sent := false, int64(0) // a COPY is under way, with sent rows
	end := func() error {
		res, err := p.end()
		open = false
		if err != nil {
			return err
		}
		_, err = copied(t, res, sent)
		return err
	}
	for {
		row, ok, err := dialects.NextRow(rows, len(t.Columns), n+1, "postgres: COPY into", t.Table)
		if !ok {
			if err != nil {
				return n, err
			}
			break
		}
		if dialects.RowBytes(row) >= longRow {
			if open {
				if err := end(); err != nil {
					return n, err
				}
			}
			if err := p.insert(row); err != nil {
				return n, fmt.Errorf("postgres: COPY into %s, row %d (by INSERT, being long): %w", t.Table, n+1, err)
			}
			n++
			continue
		}
		if !open {
			if err := p.start(); err != nil {
				return n, fmt.Errorf("postgres: COPY into %s: %w", t.Table, err)
			}
			open, sent = true, 0
		}
		if err := p.send(row, n+1); err != nil {
			return n, err
		}
		n++
		sent++
	}
	if open {
		if err := end(); err != nil {
			return n, err
		}
	}
	return n, nil
}

// copied checks the row count the server reports against the rows sent.
func copied(t dialects.Target, res driver.Result, n int64) (int64, error) {
	got, err := res.RowsAffected()
	if err != nil {
		return n, fmt.Errorf("postgres: COPY into %s: %w", t.Table, err)
	}
	if got != n {
		return got, fmt.Errorf("postgres: COPY into %s wrote %d rows of %d", t.Table, got, n)
	}
	return got, nil
}

// AppendCopyText appends row to buf as one line of COPY's text format,
// without its newline: the values separated by tabs, each as lib/pq's
// CopyIn encodes it (see BulkLoad), NULL as \N. A value of another type
// is an error.
func AppendCopyText(buf []byte, row []any) ([]byte, error) {
	for i, v := range row {
		if i > 0 {
			buf = append(buf, '\t')
		}
		switch x := v.(type) {
		case nil:
			buf = append(buf, '\\', 'N')
		case int64:
			buf = strconv.AppendInt(buf, x, 10)
		case float64:
			buf = strconv.AppendFloat(buf, x, 'f', -1, 64)
		case string:
			buf = appendCopyString(buf, x)
		case ddl.Dec:
			buf = append(buf, x...)
		default:
			return buf, fmt.Errorf("column %d: cannot encode %T for COPY", i+1, v)
		}
	}
	return append(buf, '\n'), nil
}

// appendCopyString appends s escaped for COPY's text format: a backslash,
// newline, carriage return or tab becomes a backslash sequence; every
// other byte goes as it is.
func appendCopyString(buf []byte, s string) []byte {
	for {
		i := strings.IndexAny(s, "\\\n\r\t")
		if i < 0 {
			return append(buf, s...)
		}
		buf = append(buf, s[:i]...)
		switch s[i] {
		case '\\':
			buf = append(buf, '\\', '\\')
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case '\t':
			buf = append(buf, '\\', 't')
		}
		s = s[i+1:]
	}
}

// copyValue turns a canonical value into one lib/pq's COPY encoder takes:
// a Decimal becomes its text; everything else passes unchanged.
func copyValue(v any) any {
	if x, ok := v.(ddl.Dec); ok {
		return string(x)
	}
	return v
}
