package sqlite

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects/dialecttest"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/internal/dbtest"
)

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
	dialecttest.CreateRoundTripTable(ctx, t, d, db, "")
	dialecttest.CheckBulkRoundTrip(ctx, t, d, db, dialecttest.RoundTripTarget(d, "main"), dialecttest.BulkRows(true), withConn)
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
				dialecttest.CreateRoundTripTable(ctx, t, d, db, "")
				var rows [][]any
				for i := range count {
					s := "s"
					if withLong && i%50 < 5 {
						s = long
					}
					rows = append(rows, []any{int64(i), s, int64(-i), ddl.Dec(fmt.Sprint(i)), float64(i) / 4})
				}
				n, err := dialecttest.BulkLoad(ctx, db, d, dialecttest.RoundTripTarget(d, ""), &dialecttest.SliceRows{Rows: rows}, true)
				if err != nil || n != int64(count) {
					t.Fatalf("BulkLoad = %d, %v; want %d", n, err, count)
				}
				dialecttest.CheckRoundTrip(ctx, t, d, db, rows)
			})
		}
	}
}

// TestBulkLongRowsCache: a load that meets long strings writes them, and
// the rest of the table, with a small page cache (LongRowCacheKiB), and
// gives the connection back with its usual one (CacheKiB), after a
// failure too; a load without long strings leaves the cache alone.
func TestBulkLongRowsCache(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	long := strings.Repeat("é", BulkBytes/2)
	small := "PRAGMA cache_size = -" + strconv.Itoa(LongRowCacheKiB)
	usual := "PRAGMA cache_size = -" + strconv.Itoa(CacheKiB)
	for _, c := range []struct {
		long, fail bool
		want       []string // the statements prepared, INSERTs as "insert"
	}{
		{false, false, []string{"insert"}},
		{true, false, []string{small, "insert", usual}},
		{true, true, []string{small, "insert", usual}},
	} {
		db := open(t)
		db.SetMaxOpenConns(1) // the load's connection is the one asked after
		dialecttest.CreateRoundTripTable(ctx, t, d, db, "")
		s := "s"
		if c.long {
			s = long
		}
		rows := [][]any{{int64(1), s, nil, nil, nil}, {int64(2), "t", nil, nil, nil}}
		if c.fail {
			rows = append(rows, []any{int64(3)}) // a row of the wrong width
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		n, err := d.load(ctx, dialecttest.RoundTripTarget(d, ""), &dialecttest.SliceRows{Rows: rows}, func(query string) (execer, error) {
			name := query
			if strings.HasPrefix(query, "INSERT") {
				name = "insert"
			}
			if len(got) == 0 || got[len(got)-1] != name {
				got = append(got, name)
			}
			st, err := tx.PrepareContext(ctx, query)
			return sqlStmt{st}, err
		})
		if c.fail != (err != nil) || !c.fail && n != 2 {
			t.Errorf("long=%v, failing=%v: %d rows, %v", c.long, c.fail, n, err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("long=%v, failing=%v: prepared %q, want %q", c.long, c.fail, got, c.want)
		}
		var kib int
		if err := tx.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&kib); err != nil || kib != -CacheKiB {
			t.Errorf("long=%v, failing=%v: cache_size %d after the load (%v), want %d", c.long, c.fail, kib, err, -CacheKiB)
		}
		tx.Rollback()
	}
}

// TestBulkFailures: a value the table refuses and a failing Rows are
// errors, and the transaction leaves nothing.
func TestBulkFailures(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	db := open(t)
	dialecttest.CreateRoundTripTable(ctx, t, d, db, "")
	// Text in an INTEGER column of the STRICT table, in a full statement
	// and in the single-row tail.
	for _, at := range []int{3, BulkRows + 3} {
		var rows [][]any
		for i := range BulkRows + 10 {
			rows = append(rows, []any{int64(i), "s", int64(i), nil, nil})
		}
		rows[at][2] = "text"
		if _, err := dialecttest.BulkLoad(ctx, db, d, dialecttest.RoundTripTarget(d, ""), &dialecttest.SliceRows{Rows: rows}, true); err == nil || !strings.Contains(err.Error(), "PROFDB_ROUND_TRIP") {
			t.Errorf("text in an INTEGER column at row %d: error = %v", at+1, err)
		}
	}
	// Failing rows and a row of the wrong width; nothing is left.
	dialecttest.CheckBulkFailures(ctx, t, d, db)
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
	dialecttest.FuzzBulkMatchesInsert(f, Dialect{}, dbtest.Open(f, dbtest.Fresh(f, "sqlite")))
}
