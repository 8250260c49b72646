package postgres

import (
	"context"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/internal/dbtest"
)

// TestBulkRoundTrip: every edge value comes back exactly through COPY, in
// the default schema and a named one.
func TestBulkRoundTrip(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	db, schema := open(t)
	dialecttest.CreateRoundTripTable(ctx, t, d, db, "")
	want := dialecttest.BulkRows(false)
	target := dialecttest.RoundTripTarget(d, "")
	dialecttest.CheckBulkRoundTrip(ctx, t, d, db, target, want, true)

	// The same rows through database/sql (no connection given).
	if _, err := db.ExecContext(ctx, "DELETE FROM "+dialects.Qualify(d, "", target.Table)); err != nil {
		t.Fatal(err)
	}
	dialecttest.CheckBulkRoundTrip(ctx, t, d, db, target, want, false)

	// Named schema, and a table name that needs quoting.
	odd := dialecttest.RoundTripTable()
	odd.Name = `Odd "Name"`
	for _, s := range d.CreateTableIn(schema, odd) {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	target = dialecttest.RoundTripTarget(d, schema)
	target.Table = d.StoredName(odd.Name)
	if n, err := dialecttest.BulkLoad(ctx, db, d, target, &dialecttest.SliceRows{Rows: want[:3]}, true); err != nil || n != 3 {
		t.Fatalf("BulkLoad into %s = %d, %v", target.Table, n, err)
	}
}

// TestBulkFailures: a value the server refuses and a failing Rows are
// errors, and the transaction leaves nothing.
func TestBulkFailures(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	db, _ := open(t)
	dialecttest.CreateRoundTripTable(ctx, t, d, db, "")
	good := dialecttest.RoundTripRows(false)

	// U+0000 cannot be stored: the server refuses it, as for INSERT.
	bad := append(append([][]any(nil), good...), []any{int64(50), "a\x00b", nil, nil, nil})
	if _, err := dialecttest.BulkLoad(ctx, db, d, dialecttest.RoundTripTarget(d, ""), &dialecttest.SliceRows{Rows: bad}, true); err == nil || !strings.Contains(err.Error(), "profdb_round_trip") {
		t.Errorf("a string with U+0000: error = %v", err)
	} else {
		t.Log(err)
	}
	// The same in a long row, which goes by an INSERT of its own between
	// two COPYs, through either path.
	long := strings.Repeat("x", longRow) + "\x00"
	bad = append(append([][]any(nil), good...), []any{int64(50), long, nil, nil, nil}, []any{int64(51), "after", nil, nil, nil})
	for _, withConn := range []bool{true, false} {
		if _, err := dialecttest.BulkLoad(ctx, db, d, dialecttest.RoundTripTarget(d, ""), &dialecttest.SliceRows{Rows: bad}, withConn); err == nil || !strings.Contains(err.Error(), "profdb_round_trip, row "+strconv.Itoa(len(good)+1)+" (by INSERT, being long)") {
			t.Errorf("a long string with U+0000 (connection %v): error = %.300v", withConn, err)
		}
	}
	// A NULL in the NOT NULL key.
	bad = [][]any{{nil, "x", nil, nil, nil}}
	if _, err := dialecttest.BulkLoad(ctx, db, d, dialecttest.RoundTripTarget(d, ""), &dialecttest.SliceRows{Rows: bad}, true); err == nil {
		t.Error("NULL in a NOT NULL column was accepted")
	}
	// Failing rows and a row of the wrong width; nothing is left.
	dialecttest.CheckBulkFailures(ctx, t, d, db)
	// A cancelled context stops the load.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := dialecttest.BulkLoad(cctx, db, d, dialecttest.RoundTripTarget(d, ""), &dialecttest.SliceRows{Rows: good}, true); err == nil {
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
	dialecttest.FuzzBulkMatchesInsert(f, Dialect{}, dbtest.Open(f, dbtest.Fresh(f, "postgres")))
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
