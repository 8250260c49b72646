package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/profilers/functiontrace"
)

// bulkRows are dialecttest.BulkRows plus what LOAD DATA's text must
// escape besides: NUL, and text that looks like a hexadecimal literal.
func bulkRows() [][]any {
	return dialecttest.BulkRows(true, "\x00", "0x09")
}

func count(ctx context.Context, t *testing.T, db *sql.DB, table string) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestLoadDataSQL(t *testing.T) {
	got := Dialect{}.LoadDataSQL("profdb-7", "db", "T`X", []string{"A", "INST_ID"})
	want := "LOAD DATA LOCAL INFILE 'Reader::profdb-7' INTO TABLE `db`.`T``X` CHARACTER SET utf8mb4 " +
		"FIELDS TERMINATED BY X'09' ENCLOSED BY '' ESCAPED BY X'5C' LINES STARTING BY '' TERMINATED BY X'0A' (`A`, `INST_ID`)"
	if got != want {
		t.Errorf("LoadDataSQL =\n%s\nwant\n%s", got, want)
	}
}

// TestBulkRoundTrip: every edge value comes back exactly through LOAD DATA,
// on a session with NO_BACKSLASH_ESCAPES, in the current and a named
// database; the reader handler is gone afterwards.
func TestBulkRoundTrip(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	db, name := open(t)
	var mode string
	if err := db.QueryRowContext(ctx, "SELECT @@SESSION.sql_mode").Scan(&mode); err != nil || !strings.Contains(mode, "NO_BACKSLASH_ESCAPES") {
		t.Fatalf("sql_mode = %q (%v): the test needs NO_BACKSLASH_ESCAPES", mode, err)
	}
	dialecttest.CreateRoundTripTable(ctx, t, d, db, "")
	want := bulkRows()
	dialecttest.CheckBulkRoundTrip(ctx, t, d, db, dialecttest.RoundTripTarget(d, name), want, true) // text protocol
	dialecttest.CheckRoundTrip(ctx, t, d, db, want, int64(0))                                       // binary protocol
	more := [][]any{{int64(1000), "more", int64(1), ddl.Dec("1"), 1.0}}
	if n, err := dialecttest.BulkLoad(ctx, db, d, dialecttest.RoundTripTarget(d, ""), &dialecttest.SliceRows{Rows: more}, true); err != nil || n != 1 {
		t.Fatalf("BulkLoad into the current database = %d, %v", n, err)
	}
	// The handler was deregistered.
	last := "profdb-" + strconv.FormatUint(readerSeq.Load(), 10)
	_, err := db.ExecContext(ctx, d.LoadDataSQL(last, "", d.StoredName(dialecttest.RoundTripTable().Name), []string{"INST_ID"}))
	if err == nil || !strings.Contains(err.Error(), "not registered") {
		t.Errorf("LOAD DATA from %s after BulkLoad: %v, want \"not registered\"", last, err)
	}
}

// TestBulkWarningsFail: what LOAD DATA LOCAL would store changed or skip
// with a warning is an error naming the table, and nothing remains.
func TestBulkWarningsFail(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	db, _ := open(t)
	if _, err := db.ExecContext(ctx, "CREATE TABLE NARROW (ID BIGINT NOT NULL PRIMARY KEY, S VARCHAR(10), I INT, D DECIMAL(10,2), F FLOAT)"); err != nil {
		t.Fatal(err)
	}
	target := dialects.Target{Table: "NARROW", Columns: []string{"ID", "S", "I", "D", "F"}}
	target.Types = dialecttest.RoundTripTarget(d, "").Types
	fits := []any{int64(1), "0123456789", int64(2147483647), ddl.Dec("12345678.25"), 1.5}
	if n, err := dialecttest.BulkLoad(ctx, db, d, target, &dialecttest.SliceRows{Rows: [][]any{fits}}, true); err != nil || n != 1 {
		t.Fatalf("values that fit: %d, %v", n, err)
	}
	for _, c := range []struct {
		name string
		row  []any
		want string
	}{
		{"too long", []any{int64(2), "01234567890", nil, nil, nil}, "1265: Data truncated for column 'S'"},
		{"out of range", []any{int64(2), nil, int64(2147483648), nil, nil}, "1264"},
		{"too many places", []any{int64(2), nil, nil, ddl.Dec("1.125"), nil}, "1265: Data truncated for column 'D'"},
		{"too many digits", []any{int64(2), nil, nil, ddl.Dec("123456789.5"), nil}, "1264"},
		{"float out of range", []any{int64(2), nil, nil, nil, 1e300}, "1264"},
		{"duplicate key", []any{int64(1), nil, nil, nil, nil}, "1062"},
		{"NULL key", []any{nil, nil, nil, nil, nil}, "NARROW"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows := [][]any{{int64(10), "ok", nil, nil, nil}, c.row, {int64(11), "ok", nil, nil, nil}}
			_, err := dialecttest.BulkLoad(ctx, db, d, target, &dialecttest.SliceRows{Rows: rows}, true)
			if err == nil || !strings.Contains(err.Error(), "NARROW") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want one naming NARROW and %s", err, c.want)
			}
			t.Log(err)
			if n := count(ctx, t, db, "NARROW"); n != 1 {
				t.Fatalf("%d rows after the failed load, want 1", n)
			}
		})
	}
}

// TestBulkFailures: a missing table, failing Rows and a row of the wrong
// width are errors; the transaction leaves nothing.
func TestBulkFailures(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	db, _ := open(t)
	dialecttest.CreateRoundTripTable(ctx, t, d, db, "")
	good := dialecttest.RoundTripRows(false)
	missing := dialecttest.RoundTripTarget(d, "")
	missing.Table = "NO_SUCH_TABLE"
	if _, err := dialecttest.BulkLoad(ctx, db, d, missing, &dialecttest.SliceRows{Rows: good}, true); err == nil || !strings.Contains(err.Error(), "NO_SUCH_TABLE") {
		t.Errorf("missing table: error = %v", err)
	}
	// Failing rows and a row of the wrong width; nothing is left.
	dialecttest.CheckBulkFailures(ctx, t, d, db)
	// The connections are still good.
	if n, err := dialecttest.BulkLoad(ctx, db, d, dialecttest.RoundTripTarget(d, ""), &dialecttest.SliceRows{Rows: good}, true); err != nil || n != int64(len(good)) {
		t.Fatalf("after the failures: %d, %v", n, err)
	}
}

// withLocalInfileOff makes BulkLoad see a server with local_infile=0
// without changing the server-wide setting that other tests share.
func withLocalInfileOff(t *testing.T) {
	old := localInfileQuery
	localInfileQuery = "SELECT 0"
	t.Cleanup(func() { localInfileQuery = old })
}

// TestBulkSkipsWithoutLocalInfile: with local_infile off, BulkLoad returns
// ErrSkip before it asks for a row, and an export says why in one line and
// writes every row with INSERT.
func TestBulkSkipsWithoutLocalInfile(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	db, _ := open(t)
	dialecttest.CreateRoundTripTable(ctx, t, d, db, "")
	withLocalInfileOff(t)
	rows := &dialecttest.SliceRows{Rows: dialecttest.RoundTripRows(false)}
	if _, err := dialecttest.BulkLoad(ctx, db, d, dialecttest.RoundTripTarget(d, ""), rows, true); !errors.Is(err, dialects.ErrSkip) || rows.Asked != 0 {
		t.Fatalf("BulkLoad = %v after %d rows, want ErrSkip before the first", err, rows.Asked)
	}

	var logs []string
	xdb, err := exporter.Open(ctx, dbtest.Fresh(t, "mysql"), store.Options{Logf: func(format string, args ...any) { logs = append(logs, fmt.Sprintf(format, args...)) }}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer xdb.Close()
	const calls = 3000
	rs := &resultset.ResultSet{Header: resultset.Header{Profiler: functiontrace.Name, Caption: "no local_infile"},
		Tables: []resultset.TableRows{
			{Name: functiontrace.Threads, Columns: []string{"ID", "PARENT_ID"}, Rows: func(yield func([]any, error) bool) {
				yield([]any{int64(0), int64(-1)}, nil)
			}},
			{Name: functiontrace.CallTrace, Columns: []string{"ID", "PARENT_ID", "COL_ROUTINE_NAME"}, Rows: func(yield func([]any, error) bool) {
				for i := range calls {
					if !yield([]any{int64(i), int64(0), int64(i % 7)}, nil) {
						return
					}
				}
			}},
		}}
	res, err := resultset.Export(ctx, xdb, rs)
	if err != nil || res.Rows != calls+1 {
		t.Fatalf("Export = %+v, %v", res, err)
	}
	if n := count(ctx, t, xdb.DB().SQL(), functiontrace.CallTrace); n != calls {
		t.Fatalf("%d call-trace rows, want %d", n, calls)
	}
	if len(logs) != 2 {
		t.Fatalf("log = %q, want one line per table", logs)
	}
	for i, table := range []string{functiontrace.Threads, functiontrace.CallTrace} {
		want := "mysql: native bulk path not available for table " + table +
			": the server does not allow LOAD DATA LOCAL INFILE (local_infile is 0); using batched INSERT"
		if logs[i] != want {
			t.Errorf("log line %d = %q\nwant %q", i, logs[i], want)
		}
	}
}

// FuzzBulkMatchesInsert: LOAD DATA with profdb's own text encoding stores
// exactly what the batched INSERT path stores, value by value, or both
// refuse the row. Without -fuzz it runs the seeds of
// dialecttest.BulkFuzzSeeds.
func FuzzBulkMatchesInsert(f *testing.F) {
	dialecttest.FuzzBulkMatchesInsert(f, Dialect{}, dbtest.Open(f, dbtest.Fresh(f, "mysql")))
}

// TestEmptyTableBulk: into a table the export created (Target.New), on
// MariaDB outside Galera, the load runs with unique_checks and
// foreign_key_checks off for its one statement: every value comes back
// exactly, and the session's settings are as before.
func TestEmptyTableBulk(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	db, _ := open(t)
	dialecttest.CreateRoundTripTable(ctx, t, d, db, "")
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	btx := dialects.Tx{Tx: tx, Conn: conn}
	var version string
	if err := tx.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	bulk, err := emptyTableBulk(ctx, btx)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Contains(strings.ToLower(version), "mariadb"); bulk != want {
		t.Errorf("emptyTableBulk on %s = %v, want %v", version, bulk, want)
	}
	target := dialecttest.RoundTripTarget(d, "")
	target.New = true
	want := bulkRows()
	if n, err := d.BulkLoad(ctx, btx, target, &dialecttest.SliceRows{Rows: want}); err != nil || n != int64(len(want)) {
		t.Fatalf("BulkLoad = %d, %v; want %d rows", n, err, len(want))
	}
	var uc, fk int
	if err := tx.QueryRowContext(ctx, "SELECT @@SESSION.unique_checks, @@SESSION.foreign_key_checks").Scan(&uc, &fk); err != nil || uc != 1 || fk != 1 {
		t.Errorf("after the load unique_checks = %d, foreign_key_checks = %d (%v); want 1 and 1", uc, fk, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	dialecttest.CheckRoundTrip(ctx, t, d, db, want)
}

// TestBulkLoadSound: the MariaDB versions with the fix of MDEV-34703.
func TestBulkLoadSound(t *testing.T) {
	for v, want := range map[string]bool{
		"10.11.19-MariaDB-0+deb12u1": true, "10.11.11-MariaDB": true, "10.11.10-MariaDB": false,
		"10.6.20-MariaDB": false, "11.4.5-MariaDB": true, "11.4.4-MariaDB": false, "11.5.2-MariaDB": false,
		"11.7.2-MariaDB": true, "11.8.1-MariaDB-log": true, "12.0.2-MariaDB": true, "8.0.36": false, "garbage": false,
	} {
		if got := bulkLoadSound(v); got != want {
			t.Errorf("bulkLoadSound(%q) = %v, want %v", v, got, want)
		}
	}
}
