package postgres

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"reflect"
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
	rows  [][]any
	err   error
	i     int
	buf   []any
	asked int
}

func (r *sliceRows) Next() ([]any, error) {
	r.asked++
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
// newlines, backslashes and quotes, and values that look like the
// formats' NULL markers.
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
// its own, as the exporter does (the CopyData path), and commits.
func bulkLoad(ctx context.Context, db *sql.DB, d dialects.BulkLoader, target dialects.Target, rows dialects.Rows) (int64, error) {
	return bulkLoadVia(ctx, db, d, target, rows, true)
}

// bulkLoadVia is bulkLoad, through database/sql (lib/pq's CopyIn) unless
// withConn is set.
func bulkLoadVia(ctx context.Context, db *sql.DB, d dialects.BulkLoader, target dialects.Target, rows dialects.Rows, withConn bool) (int64, error) {
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

func createRoundTrip(ctx context.Context, t *testing.T, db *sql.DB, schema string) {
	t.Helper()
	dialecttest.CreateRoundTripTable(ctx, t, Dialect{}, db, schema)
}

// TestBulkRoundTrip: every edge value comes back exactly through COPY, in
// the default schema and a named one.
func TestBulkRoundTrip(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	db, schema := open(t)
	createRoundTrip(ctx, t, db, "")
	want := bulkRows(false)
	n, err := bulkLoad(ctx, db, d, roundTripTarget(d, ""), &sliceRows{rows: want})
	if err != nil || n != int64(len(want)) {
		t.Fatalf("BulkLoad = %d, %v; want %d rows", n, err, len(want))
	}
	dialecttest.CheckRoundTrip(ctx, t, d, db, want)

	// The same rows through database/sql (no connection given).
	if _, err := db.ExecContext(ctx, "DELETE FROM "+d.Qualify("", roundTripTarget(d, "").Table)); err != nil {
		t.Fatal(err)
	}
	n, err = bulkLoadVia(ctx, db, d, roundTripTarget(d, ""), &sliceRows{rows: want}, false)
	if err != nil || n != int64(len(want)) {
		t.Fatalf("BulkLoad without a connection = %d, %v; want %d rows", n, err, len(want))
	}
	dialecttest.CheckRoundTrip(ctx, t, d, db, want)

	// Named schema, and a table name that needs quoting.
	odd := dialecttest.RoundTripTable()
	odd.Name = `Odd "Name"`
	for _, s := range d.CreateTableIn(schema, odd) {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	target := roundTripTarget(d, schema)
	target.Table = d.StoredName(odd.Name)
	if n, err := bulkLoad(ctx, db, d, target, &sliceRows{rows: want[:3]}); err != nil || n != 3 {
		t.Fatalf("BulkLoad into %s = %d, %v", target.Table, n, err)
	}
}

// TestBulkFailures: a value the server refuses and a failing Rows are
// errors, and the transaction leaves nothing.
func TestBulkFailures(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	db, _ := open(t)
	createRoundTrip(ctx, t, db, "")
	good := dialecttest.RoundTripRows(false)

	// U+0000 cannot be stored: the server refuses it, as for INSERT.
	bad := append(append([][]any(nil), good...), []any{int64(50), "a\x00b", nil, nil, nil})
	if _, err := bulkLoad(ctx, db, d, roundTripTarget(d, ""), &sliceRows{rows: bad}); err == nil || !strings.Contains(err.Error(), "profdb_round_trip") {
		t.Errorf("a string with U+0000: error = %v", err)
	} else {
		t.Log(err)
	}
	// A NULL in the NOT NULL key.
	bad = [][]any{{nil, "x", nil, nil, nil}}
	if _, err := bulkLoad(ctx, db, d, roundTripTarget(d, ""), &sliceRows{rows: bad}); err == nil {
		t.Error("NULL in a NOT NULL column was accepted")
	}
	// The rows fail: that error comes back.
	boom := errors.New("boom")
	if _, err := bulkLoad(ctx, db, d, roundTripTarget(d, ""), &sliceRows{rows: good, err: boom}); !errors.Is(err, boom) {
		t.Errorf("failing rows: error = %v, want boom", err)
	}
	// A row of the wrong width.
	if _, err := bulkLoad(ctx, db, d, roundTripTarget(d, ""), &sliceRows{rows: [][]any{{int64(1)}}}); err == nil {
		t.Error("a row of 1 value for 5 columns was accepted")
	}
	var count int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM profdb_round_trip").Scan(&count); err != nil || count != 0 {
		t.Fatalf("rows left after failed loads: %d, %v", count, err)
	}
	// A cancelled context stops the load.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := bulkLoad(cctx, db, d, roundTripTarget(d, ""), &sliceRows{rows: good}); err == nil {
		t.Error("a cancelled load succeeded")
	} else {
		t.Log(err)
	}
}

// TestIndexSplitter: CreateTableOnly and CreateIndexes together are
// CreateTableIn, and the indexes come out the same when built after the
// rows.
func TestIndexSplitter(t *testing.T) {
	d := Dialect{}
	ctx := dialecttest.Context(t)
	for _, tab := range dialecttest.AllTables(t) {
		for _, schema := range []string{"", "s"} {
			all := d.CreateTableIn(schema, tab)
			split := append(d.CreateTableOnly(schema, tab), d.CreateIndexes(schema, tab)...)
			if !reflect.DeepEqual(all, split) {
				t.Fatalf("%s: split statements differ:\n%q\n%q", tab.Name, split, all)
			}
			for _, s := range d.CreateTableOnly(schema, tab) {
				if strings.Contains(s, "CREATE INDEX") {
					t.Fatalf("%s: CreateTableOnly creates an index: %s", tab.Name, s)
				}
			}
		}
	}
	db, _ := open(t)
	for _, tab := range dialecttest.AllTables(t) {
		if len(d.CreateIndexes("", tab)) == 0 {
			continue
		}
		for _, s := range d.CreateTableOnly("", tab) {
			if _, err := db.ExecContext(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		var n int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 AND indexname NOT LIKE 'pk\_%'`,
			d.StoredName(tab.Name)).Scan(&n); err != nil || n != 0 {
			t.Fatalf("%s: %d indexes before CreateIndexes (%v)", tab.Name, n, err)
		}
		for _, s := range d.CreateIndexes("", tab) {
			for range 2 { // safe to run again
				if _, err := db.ExecContext(ctx, s); err != nil {
					t.Fatal(err)
				}
			}
		}
		checkIndexes(t, db, tab)
	}
}

// FuzzBulkMatchesInsert: COPY with profdb's own text encoding
// (AppendCopyText, sent through lib/pq's CopyData) stores exactly what the
// batched INSERT path stores, value by value, or both refuse the row (a
// string with NUL). Without -fuzz it runs the seeds of
// dialecttest.BulkFuzzSeeds.
func FuzzBulkMatchesInsert(f *testing.F) {
	dialecttest.FuzzBulkMatchesInsert(f, Dialect{}, testdb.Open(f, testdb.Fresh(f, "postgres")))
}

// TestAppendCopyText: the encoding of every canonical type, and an error
// for anything else.
func TestAppendCopyText(t *testing.T) {
	got, err := AppendCopyText(nil, []any{int64(-5), 0.1, "a\tb\nc\\d\re", ddl.Dec("-1.5"), nil, `\N`})
	if err != nil {
		t.Fatal(err)
	}
	if want := "-5\t0.1\ta\\tb\\nc\\\\d\\re\t-1.5\t\\N\t\\\\N\n"; string(got) != want {
		t.Errorf("AppendCopyText = %q, want %q", got, want)
	}
	if _, err := AppendCopyText(nil, []any{int64(1), true}); err == nil || !strings.Contains(err.Error(), "column 2") {
		t.Errorf("AppendCopyText(bool) = %v, want an error naming column 2", err)
	}
}
