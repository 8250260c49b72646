package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

var _ dialects.InstReader = Dialect{}

// ReadInst reads the rows of one result set of a table (dialects.InstReader)
// in two ways faster than a plain SELECT through database/sql:
//
//   - Unordered, when the table holds no other result set's rows, or the
//     result set's rows are at least two thirds of the table's rowid
//     range, it scans the table in rowid order (the order the rows were
//     written) instead of walking the (INST_ID, ID) index, which costs a
//     seek into the table for every row. Otherwise the rows come by the
//     index in ID order.
//   - It reads on a connection of its own, opened read-only and without
//     SQLite's per-connection mutex, straight through modernc.org/sqlite's
//     C API: database/sql's driver takes that mutex twice for every value
//     it reads and boxes every value once more.
//
// docs/performance.md ("Figures of 2026-11-27") has what each saves.
//
// The connection of its own sees what the snapshot q sees only while q
// holds its shared lock, which keeps every writer from committing: so it
// is used only for a database in the main schema of a file in a rollback
// journal mode (in WAL mode a writer commits past readers) and when it can
// take its own shared lock at once; otherwise the rows come through q.
func (d Dialect) ReadInst(ctx context.Context, q dialects.DBTX, r dialects.InstRead) (dialects.InstRows, error) {
	query := d.instQuery(ctx, q, r)
	if rows := openDirect(ctx, q, r.Schema, query, r.Inst, len(r.Columns)); rows != nil {
		return rows, nil
	}
	return q.QueryContext(ctx, query, r.Inst)
}

// instQuery returns the SELECT of r, with its one parameter the INST_ID.
func (d Dialect) instQuery(ctx context.Context, q dialects.DBTX, r dialects.InstRead) string {
	quote := func(names []string) string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = d.Quote(n)
		}
		return strings.Join(out, ", ")
	}
	table := dialects.Qualify(d, r.Schema, r.Table)
	where := " WHERE " + d.Quote(r.InstCol) + " = ?"
	sel := "SELECT " + quote(r.Columns) + " FROM " + table
	switch {
	case len(r.Order) > 0:
		return sel + where + " ORDER BY " + quote(r.Order)
	case mostOf(ctx, q, table, d.Quote(r.InstCol), r.Inst):
		return sel + " NOT INDEXED" + where
	}
	for _, c := range r.Columns {
		if strings.EqualFold(c, ddl.ID) {
			// By the (INST_ID, ID) index, which costs no sort; left
			// to itself, the planner may as soon take the (INST_ID,
			// PARENT_ID) one.
			return sel + where + " ORDER BY " + d.Quote(c)
		}
	}
	return sel + where
}

// mostOf reports whether the rows of result set inst are most of table:
// whether a scan of the table reads at most half as many rows again as
// the result set has. When the table holds no row of another result set
// (two lookups in the index on instCol; rows whose INST_ID is NULL, which
// profdb's tables cannot hold, are not looked for: that would take a scan
// of the index, and only the plan depends on it) it does; else the
// result set's rows, counted along that index, must be at least two
// thirds of the table's rowid range, which is the table's row count or
// more, never less (two lookups, MAX and MIN each in a query of its own:
// together in one, SQLite would scan the table). A table without rowids
// has no range.
func mostOf(ctx context.Context, q dialects.DBTX, table, instCol string, inst int64) bool {
	var others bool
	if err := q.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM "+table+" WHERE "+instCol+" < ?1) OR EXISTS (SELECT 1 FROM "+table+
		" WHERE "+instCol+" > ?1)", inst).Scan(&others); err != nil {
		return false
	}
	if !others {
		return true
	}
	var rows int64
	var span sql.NullInt64
	if err := q.QueryRowContext(ctx, "SELECT COUNT(*), (SELECT MAX(rowid) FROM "+table+") - (SELECT MIN(rowid) FROM "+table+") + 1 FROM "+table+
		" WHERE "+instCol+" = ?1", inst).Scan(&rows, &span); err != nil || !span.Valid {
		return false
	}
	return rows > 0 && span.Int64 <= rows+rows/2
}

// directRows reads a query on a connection of its own (see ReadInst). It
// is used by one goroutine at a time, as *sql.Rows is.
type directRows struct {
	ctx      context.Context
	tls      *libc.TLS
	db, stmt uintptr
	width    int
	row      bool // the first step has a row that Next has not returned yet
	done     bool
	n        int
	err      error
}

// openDirect opens query with its parameter inst on a connection of its
// own to the main database of q's file, read-only and without mutexes, and
// takes its first step; it returns nil when it cannot (see ReadInst), for
// the caller to read through q instead.
func openDirect(ctx context.Context, q dialects.DBTX, schema, query string, inst int64, width int) *directRows {
	if schema != "" && !strings.EqualFold(schema, "main") {
		return nil
	}
	var mode, file string
	if err := q.QueryRowContext(ctx, "PRAGMA main.journal_mode").Scan(&mode); err != nil || strings.EqualFold(mode, "wal") {
		return nil
	}
	if err := q.QueryRowContext(ctx, "SELECT file FROM pragma_database_list WHERE name = 'main'").Scan(&file); err != nil || file == "" {
		return nil
	}
	r := &directRows{ctx: ctx, tls: libc.NewTLS(), width: width}
	if err := r.open(fileURI(file)+"?mode=ro", query, inst); err != nil {
		r.Close()
		return nil
	}
	return r
}

// open opens the connection, prepares query, binds inst and takes the
// first step, which takes the connection's shared lock: it fails at once
// (no busy timeout) when a writer waits for the snapshot's lock to end.
func (r *directRows) open(uri, query string, inst int64) error {
	cell := libc.Xmalloc(r.tls, 8) // where SQLite writes the handle it makes
	if cell == 0 {
		return errors.New("out of memory")
	}
	defer libc.Xfree(r.tls, cell)
	handle := func() uintptr { return uintptr(binary.NativeEndian.Uint64(libc.GoBytes(cell, 8))) }
	zURI, err := libc.CString(uri)
	if err != nil {
		return err
	}
	defer libc.Xfree(r.tls, zURI)
	rc := sqlite3.Xsqlite3_open_v2(r.tls, zURI, cell, sqlite3.SQLITE_OPEN_READONLY|sqlite3.SQLITE_OPEN_NOMUTEX|sqlite3.SQLITE_OPEN_URI, 0)
	r.db = handle() // set even when the open fails, and closed then too
	if rc != sqlite3.SQLITE_OK {
		return r.error(rc)
	}
	zSQL, err := libc.CString(query)
	if err != nil {
		return err
	}
	defer libc.Xfree(r.tls, zSQL)
	if rc := sqlite3.Xsqlite3_prepare_v2(r.tls, r.db, zSQL, -1, cell, 0); rc != sqlite3.SQLITE_OK {
		return r.error(rc)
	}
	r.stmt = handle()
	if rc := sqlite3.Xsqlite3_bind_int64(r.tls, r.stmt, 1, inst); rc != sqlite3.SQLITE_OK {
		return r.error(rc)
	}
	switch rc := sqlite3.Xsqlite3_step(r.tls, r.stmt); rc {
	case sqlite3.SQLITE_ROW:
		r.row = true
	case sqlite3.SQLITE_DONE:
		r.done = true
	default:
		return r.error(rc)
	}
	return nil
}

// error is the connection's message for the result code rc.
func (r *directRows) error(rc int32) error {
	msg := sqlite3.Xsqlite3_errstr(r.tls, rc)
	if r.db != 0 {
		msg = sqlite3.Xsqlite3_errmsg(r.tls, r.db)
	}
	return fmt.Errorf("sqlite: %s (%d)", libc.GoString(msg), rc)
}

// Next steps to the next row; it checks ctx every 1024 rows.
func (r *directRows) Next() bool {
	switch {
	case r.err != nil || r.done:
		return false
	case r.row:
		r.row = false
		return true
	}
	if r.n++; r.n%1024 == 0 {
		if err := r.ctx.Err(); err != nil {
			r.err = err
			return false
		}
	}
	switch rc := sqlite3.Xsqlite3_step(r.tls, r.stmt); rc {
	case sqlite3.SQLITE_ROW:
		return true
	case sqlite3.SQLITE_DONE:
		r.done = true
	default:
		r.err = r.error(rc)
	}
	return false
}

// Scan stores the current row's values into dest, one *any per column:
// int64, float64, string (TEXT and BLOB alike) or nil.
func (r *directRows) Scan(dest ...any) error {
	if len(dest) != r.width {
		return fmt.Errorf("sqlite: %d destinations for %d columns", len(dest), r.width)
	}
	for i, p := range dest {
		v, ok := p.(*any)
		if !ok {
			return fmt.Errorf("sqlite: destination %d is a %T, not an *any", i, p)
		}
		col := int32(i)
		switch sqlite3.Xsqlite3_column_type(r.tls, r.stmt, col) {
		case sqlite3.SQLITE_INTEGER:
			*v = sqlite3.Xsqlite3_column_int64(r.tls, r.stmt, col)
		case sqlite3.SQLITE_FLOAT:
			*v = sqlite3.Xsqlite3_column_double(r.tls, r.stmt, col)
		case sqlite3.SQLITE_TEXT:
			p := sqlite3.Xsqlite3_column_text(r.tls, r.stmt, col)
			*v = string(libc.GoBytes(p, int(sqlite3.Xsqlite3_column_bytes(r.tls, r.stmt, col))))
		case sqlite3.SQLITE_BLOB:
			p := sqlite3.Xsqlite3_column_blob(r.tls, r.stmt, col)
			*v = string(libc.GoBytes(p, int(sqlite3.Xsqlite3_column_bytes(r.tls, r.stmt, col))))
		default:
			*v = nil
		}
	}
	return nil
}

// Err is the error that ended Next, if any.
func (r *directRows) Err() error { return r.err }

// Close finalizes the statement and closes the connection, which ends its
// shared lock. It is safe to call more than once.
func (r *directRows) Close() error {
	if r.tls == nil {
		return nil
	}
	if r.stmt != 0 {
		sqlite3.Xsqlite3_finalize(r.tls, r.stmt)
	}
	var err error
	if r.db != 0 {
		if rc := sqlite3.Xsqlite3_close_v2(r.tls, r.db); rc != sqlite3.SQLITE_OK {
			err = r.error(rc)
		}
	}
	r.tls.Close()
	r.tls, r.db, r.stmt = nil, 0, 0
	return err
}
