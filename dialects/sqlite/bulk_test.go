package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects/dialecttest"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/internal/testdb"
)

// sliceRows is a dialects.Rows over canonical rows that reuses one slice,
// as the exporter does; after the rows it returns err, or io.EOF.
type sliceRows struct {
	rows [][]any
	err  error
	i    int
	buf  []any
}

func (r *sliceRows) Next() ([]any, error) {
	if r.i == len(r.rows) {
		if r.err != nil {
			return nil, r.err
		}
		return nil, io.EOF
	}
	r.buf = append(r.buf[:0], r.rows[r.i]...)
	r.i++
	return r.buf, nil
}

// bulkRows are the round-trip rows plus strings that text-based bulk
// formats must escape: over 1 MiB of non-ASCII text full of tabs,
// newlines, backslashes and quotes, and values that look like NULL
// markers.
func bulkRows(withNUL bool) [][]any {
	nasty := strings.Repeat("ж\t€\n😀\\'\"\r`,;|\\N NULL ", 1<<20/30+1)
	rows := dialecttest.RoundTripRows(withNUL)
	for i, s := range []string{nasty, `\N`, `\\N`, "NULL", "\t", "\n", "\\", "\r\n", "a\\", " x\t\ty "} {
		rows = append(rows, []any{int64(100 + i), s, nil, nil, nil})
	}
	return rows
}

// roundTripTarget is the bulk target of the round-trip table.
func roundTripTarget(d dialects.Dialect, schema string) dialects.Target {
	t := dialects.Target{Schema: schema, Table: d.StoredName(dialecttest.RoundTripTable().Name)}
	for _, c := range dialecttest.RoundTripTable().Columns {
		t.Columns = append(t.Columns, d.StoredName(c.Name))
		t.Types = append(t.Types, c.Type)
	}
	return t
}

// bulkLoad runs BulkLoad in a transaction of its own on a connection of
// its own, as the exporter does, and commits.
func bulkLoad(ctx context.Context, db *sql.DB, d dialects.BulkLoader, target dialects.Target, rows dialects.Rows) (int64, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	n, err := d.BulkLoad(ctx, dialects.Tx{Tx: tx, Conn: conn}, target, rows)
	if err != nil {
		tx.Rollback()
		return n, err
	}
	return n, tx.Commit()
}

func createRoundTrip(ctx context.Context, t *testing.T, db *sql.DB) {
	t.Helper()
	dialecttest.CreateRoundTripTable(ctx, t, Dialect{}, db, "")
}

// TestBulkRoundTrip: every edge value comes back exactly, stored as the
// INSERT path stores it.
func TestBulkRoundTrip(t *testing.T) {
	for _, withConn := range []bool{false, true} {
		t.Run(fmt.Sprintf("conn=%v", withConn), func(t *testing.T) { bulkRoundTrip(t, withConn) })
	}
}

// bulkRoundTrip is TestBulkRoundTrip on the driver's connection (withConn)
// or through database/sql.
func bulkRoundTrip(t *testing.T, withConn bool) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	db := open(t)
	createRoundTrip(ctx, t, db)
	want := bulkRows(true)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	btx := dialects.Tx{Tx: tx}
	if withConn {
		btx.Conn = conn
	}
	n, err := d.BulkLoad(ctx, btx, roundTripTarget(d, "main"), &sliceRows{rows: want})
	if err != nil || n != int64(len(want)) {
		t.Fatalf("BulkLoad = %d, %v; want %d rows", n, err, len(want))
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	dialecttest.CheckRoundTrip(ctx, t, d, db, want)
	// Decimals keep the storage class Bind picks.
	var classes string
	if err := db.QueryRowContext(ctx, `SELECT group_concat(typeof(COL_DECIMAL), ',') FROM (SELECT COL_DECIMAL FROM PROFDB_ROUND_TRIP WHERE INST_ID <= 3 ORDER BY INST_ID)`).Scan(&classes); err != nil {
		t.Fatal(err)
	}
	if classes != "text,real,real" {
		t.Errorf("storage classes of the first decimals = %s, want text,real,real", classes)
	}
}

// TestBulkBatches: row counts around the statement size, and long strings
// that go row by row, all arrive in order.
func TestBulkBatches(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	long := strings.Repeat("x", BulkBytes/3)
	for _, count := range []int{0, 1, BulkRows - 1, BulkRows, BulkRows + 1, 3*BulkRows + 7} {
		for _, withLong := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d,long=%v", count, withLong), func(t *testing.T) {
				db := open(t)
				createRoundTrip(ctx, t, db)
				var rows [][]any
				for i := range count {
					s := "s"
					if withLong && i%50 < 5 {
						s = long
					}
					rows = append(rows, []any{int64(i), s, int64(-i), ddl.Dec(fmt.Sprint(i)), float64(i) / 4})
				}
				n, err := bulkLoad(ctx, db, d, roundTripTarget(d, ""), &sliceRows{rows: rows})
				if err != nil || n != int64(count) {
					t.Fatalf("BulkLoad = %d, %v; want %d", n, err, count)
				}
				dialecttest.CheckRoundTrip(ctx, t, d, db, rows)
			})
		}
	}
}

// TestBulkFailures: a value the table refuses and a failing Rows are
// errors, and the transaction leaves nothing.
func TestBulkFailures(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	db := open(t)
	createRoundTrip(ctx, t, db)
	good := dialecttest.RoundTripRows(false)
	// Text in an INTEGER column of the STRICT table, in a full statement
	// and in the single-row tail.
	for _, at := range []int{3, BulkRows + 3} {
		var rows [][]any
		for i := range BulkRows + 10 {
			rows = append(rows, []any{int64(i), "s", int64(i), nil, nil})
		}
		rows[at][2] = "text"
		if _, err := bulkLoad(ctx, db, d, roundTripTarget(d, ""), &sliceRows{rows: rows}); err == nil || !strings.Contains(err.Error(), "PROFDB_ROUND_TRIP") {
			t.Errorf("text in an INTEGER column at row %d: error = %v", at+1, err)
		}
	}
	boom := errors.New("boom")
	if _, err := bulkLoad(ctx, db, d, roundTripTarget(d, ""), &sliceRows{rows: good, err: boom}); !errors.Is(err, boom) {
		t.Errorf("failing rows: error = %v, want boom", err)
	}
	if _, err := bulkLoad(ctx, db, d, roundTripTarget(d, ""), &sliceRows{rows: [][]any{{int64(1)}}}); err == nil {
		t.Error("a row of 1 value for 5 columns was accepted")
	}
	var count int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM PROFDB_ROUND_TRIP").Scan(&count); err != nil || count != 0 {
		t.Fatalf("rows left after failed loads: %d, %v", count, err)
	}
}

// TestIndexesStayDuringTheLoad: SQLite keeps a table's indexes while rows
// arrive (see ddl.go): the exporter must not find an IndexSplitter.
func TestIndexesStayDuringTheLoad(t *testing.T) {
	if _, ok := any(Dialect{}).(dialects.IndexSplitter); ok {
		t.Fatal("the sqlite dialect implements dialects.IndexSplitter; its deferred index build costs memory that grows with the table")
	}
}

// FuzzBulkMatchesInsert: the bulk path's reused multi-row INSERT stores
// exactly what the batched INSERT path stores, value by value, or both
// refuse the row. Without -fuzz it runs the seeds of
// dialecttest.BulkFuzzSeeds.
func FuzzBulkMatchesInsert(f *testing.F) {
	dialecttest.FuzzBulkMatchesInsert(f, Dialect{}, testdb.Open(f, testdb.Fresh(f, "sqlite")))
}
