package dialecttest

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

// SliceRows is a dialects.Rows over canonical rows that reuses one slice,
// as the exporter does; after the rows it returns Err, or io.EOF. Asked
// counts the calls of Next.
type SliceRows struct {
	Rows  [][]any
	Err   error
	Asked int
	i     int
	buf   []any
}

// Next returns the next row in a slice that the following call reuses.
func (r *SliceRows) Next() ([]any, error) {
	r.Asked++
	if r.i == len(r.Rows) {
		if r.Err != nil {
			return nil, r.Err
		}
		return nil, io.EOF
	}
	r.buf = append(r.buf[:0], r.Rows[r.i]...)
	r.i++
	return r.buf, nil
}

// BulkRows are RoundTripRows plus strings that text-based bulk formats
// must escape: over 1 MiB of non-ASCII text full of tabs, newlines,
// backslashes and quotes, and values that look like the formats' NULL
// markers; then more, the strings a dialect's own format adds. Each
// string is a row of its own with INST_ID 100, 101, ... and NULLs.
func BulkRows(withNUL bool, more ...string) [][]any {
	const unit = "ж\t€\n😀\\'\"\r`,;|\\N NULL " // 27 bytes
	nasty := strings.Repeat(unit, 1<<20/len(unit)+1)
	rows := RoundTripRows(withNUL)
	strs := append([]string{nasty, `\N`, `\\N`, "NULL", "\t", "\n", "\\", "\r\n", "a\\", " x\t\ty "}, more...)
	for i, s := range strs {
		rows = append(rows, []any{int64(100 + i), s, nil, nil, nil})
	}
	return rows
}

// RoundTripTarget is the bulk target of RoundTripTable in schema.
func RoundTripTarget(d dialects.Dialect, schema string) dialects.Target {
	return TargetOf(d, schema, RoundTripTable())
}

// TargetOf is the bulk target of table in schema: its columns in order,
// under their stored names.
func TargetOf(d dialects.Dialect, schema string, table ddl.Table) dialects.Target {
	t := dialects.Target{Schema: schema, Table: d.StoredName(table.Name)}
	for _, c := range table.Columns {
		t.Columns = append(t.Columns, d.StoredName(c.Name))
		t.Types = append(t.Types, c.Type)
	}
	return t
}

// BulkLoad runs d's BulkLoad in a transaction of its own on a connection
// of its own, and commits. withConn passes the connection in dialects.Tx,
// as the exporter does; without it the load goes through database/sql.
func BulkLoad(ctx context.Context, db *sql.DB, d dialects.BulkLoader, target dialects.Target, rows dialects.Rows, withConn bool) (int64, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	btx := dialects.Tx{Tx: tx}
	if withConn {
		btx.Conn = conn
	}
	n, err := d.BulkLoad(ctx, btx, target, rows)
	if err != nil {
		tx.Rollback()
		return n, err
	}
	return n, tx.Commit()
}

// CheckBulkRoundTrip bulk-loads rows into the round-trip table (created
// before, with CreateRoundTripTable) through target with BulkLoad, and
// checks that every row is taken and every value comes back exactly, as
// CheckRoundTrip reads them. Every BulkLoader must pass it with BulkRows.
func CheckBulkRoundTrip(ctx context.Context, t *testing.T, d dialects.Dialect, db *sql.DB, target dialects.Target, rows [][]any, withConn bool) {
	t.Helper()
	bl, ok := d.(dialects.BulkLoader)
	if !ok {
		t.Fatalf("%s is no dialects.BulkLoader", d.Name())
	}
	n, err := BulkLoad(ctx, db, bl, target, &SliceRows{Rows: rows}, withConn)
	if err != nil || n != int64(len(rows)) {
		t.Fatalf("BulkLoad (withConn %v) = %d, %v; want %d rows", withConn, n, err, len(rows))
	}
	CheckRoundTrip(ctx, t, d, db, rows)
}

// CheckBulkFailures checks what every BulkLoader must refuse of a load
// into the empty round-trip table (created before, with
// CreateRoundTripTable): Rows that fail after the rows fail the load with
// their error, and a row of the wrong width is an error; afterwards the
// table holds no row, whatever the dialect's own failed loads tried before.
func CheckBulkFailures(ctx context.Context, t *testing.T, d dialects.Dialect, db *sql.DB) {
	t.Helper()
	bl, ok := d.(dialects.BulkLoader)
	if !ok {
		t.Fatalf("%s is no dialects.BulkLoader", d.Name())
	}
	target := RoundTripTarget(d, "")
	boom := errors.New("boom")
	if _, err := BulkLoad(ctx, db, bl, target, &SliceRows{Rows: RoundTripRows(false), Err: boom}, true); !errors.Is(err, boom) {
		t.Errorf("failing rows: error = %v, want boom", err)
	}
	if _, err := BulkLoad(ctx, db, bl, target, &SliceRows{Rows: [][]any{{int64(1)}}}, true); err == nil {
		t.Error("a row of 1 value for 5 columns was accepted")
	}
	var count int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+dialects.Qualify(d, "", target.Table)).Scan(&count); err != nil || count != 0 {
		t.Fatalf("rows left after failed loads: %d, %v", count, err)
	}
}
