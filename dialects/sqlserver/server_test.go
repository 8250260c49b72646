package sqlserver_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/profilers"
)

// TestConformance runs dialecttest's suite on the SQL Server named by
// PROFDB_TEST_SQLSERVER (a profdb DSN; Babelfish included) and skips
// without it: the catalogue is created in the database's default schema
// and in a new one, and its columns are described as profdb creates them.
// Columns of a missing table is not an error here yet: that check is
// skipped.
func TestConformance(t *testing.T) {
	db := dbtest.Open(t, dbtest.Fresh(t, "sqlserver"))
	var d sqlserver.Dialect
	ctx := dialecttest.Context(t)
	const schema = "profdb_second"
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+d.Quote(schema)); err != nil {
		t.Fatal(err)
	}
	babelfish, err := sqlserver.IsBabelfish(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	cfg := dialecttest.Config{
		Schema: schema,
		Column: func(tab ddl.Table, c ddl.Column) dialects.ColumnInfo {
			ci := dialects.ColumnInfo{Name: c.Name, Type: c.Type, Nullable: !c.NotNull && c.Name != tab.Key}
			switch c.Type {
			case ddl.Integer:
				ci.DBType, ci.IntBits = "bigint", 64
			case ddl.String:
				ci.DBType = "nvarchar(max)"
			case ddl.Float:
				ci.DBType, ci.FloatBits = "float", 64
			case ddl.Decimal:
				ci.DBType, ci.Precision, ci.Scale = "decimal(28,8)", ddl.DecimalPrecision, ddl.DecimalScale
			}
			return ci
		},
		// SQL Server's float has no subnormals.
		NoSubnormals: !babelfish,
		// Babelfish keeps text in PostgreSQL, which refuses U+0000.
		NoNUL: babelfish,
	}
	dialecttest.Run(t, d, db, cfg)
}

// TestRealServer runs against the SQL Server named by PROFDB_TEST_SQLSERVER
// (a profdb DSN) and skips without it. It writes and reads back INSTANCES
// rows under the allocation lock.
func TestRealServer(t *testing.T) {
	db := dbtest.Open(t, dbtest.Fresh(t, "sqlserver"))
	var d sqlserver.Dialect
	ctx := dialecttest.Context(t)
	inst := profilers.Instances()
	for _, s := range d.CreateTableIn("", inst) {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatalf("%v\n%s", err, s)
		}
	}

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	acquire, _ := d.Lock("")
	for _, s := range acquire {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	var mode string
	if err := tx.QueryRowContext(ctx, "SELECT APPLOCK_MODE(N'public', @p1, N'Transaction')", sqlserver.AllocLock).Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "Exclusive" {
		t.Errorf("lock mode %q, want Exclusive", mode)
	}
	rows := [][]any{
		{"Grüße ☃ 'x' 𝄞", nil, ddl.Dec("18446744073709551615.12345678"), "n", int64(1)},
		{"", "d", ddl.Dec("-0.5"), nil, int64(2)},
	}
	var args []any
	for _, r := range rows {
		for i, v := range r {
			args = append(args, d.Bind(inst.Columns[i].Type, v))
		}
	}
	if _, err := tx.ExecContext(ctx, dialects.InsertSQL(d, dialects.Qualify(d, "", inst.Name), inst.ColumnNames(), len(rows)), args...); err != nil {
		t.Fatal(err)
	}
	res, err := tx.QueryContext(ctx, "SELECT CAPTION, CAST(COUNTER_FREQUENCY AS NVARCHAR(40)) FROM "+
		dialects.Qualify(d, "", inst.Name)+" ORDER BY INST_ID")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	var read [][2]string
	for res.Next() {
		var a, b string
		if err := res.Scan(&a, &b); err != nil {
			t.Fatal(err)
		}
		read = append(read, [2]string{a, b})
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	wantRead := [][2]string{{"Grüße ☃ 'x' 𝄞", "18446744073709551615.12345678"}, {"", "-0.50000000"}}
	if len(read) != 2 || read[0] != wantRead[0] || read[1] != wantRead[1] {
		t.Errorf("read back %q, want %q", read, wantRead)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestCreateNewTable: the one batch an export runs for a table it found
// missing (CreateNewTableIn) makes the same table as the script's
// statements (CreateTableIn), the same columns and indexes on the same
// key columns, in a schema of each; run again, it changes nothing.
func TestCreateNewTable(t *testing.T) {
	db := dbtest.Open(t, dbtest.Fresh(t, "sqlserver"))
	var d sqlserver.Dialect
	ctx := dialecttest.Context(t)
	for _, s := range []string{"by_script", "by_export"} {
		if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+d.Quote(s)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tb := range dialecttest.AllTables(t) {
		for _, stmt := range d.CreateTableIn("by_script", tb) {
			if _, err := db.ExecContext(ctx, stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
		for range 2 {
			for _, stmt := range d.CreateNewTableIn("by_export", tb) {
				if _, err := db.ExecContext(ctx, stmt); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
		}
		keys := func(schema string) []string {
			rows, err := db.QueryContext(ctx, `SELECT ic.index_id, c.name FROM sys.index_columns ic
				JOIN sys.columns c ON c.object_id = ic.object_id AND c.column_id = ic.column_id
				WHERE ic.object_id = OBJECT_ID(@p1) AND ic.key_ordinal > 0 ORDER BY ic.index_id, ic.key_ordinal`, dialects.Qualify(d, schema, tb.Name))
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			byIndex := map[int]string{}
			for rows.Next() {
				var id int
				var col string
				if err := rows.Scan(&id, &col); err != nil {
					t.Fatal(err)
				}
				byIndex[id] += col + ","
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, k := range byIndex {
				out = append(out, k)
			}
			slices.Sort(out)
			return out
		}
		want, got := keys("by_script"), keys("by_export")
		if len(want) != len(tb.Indexes()) || !slices.Equal(got, want) {
			t.Errorf("%s: indexes on %v, want %v (the script's; %d indexes documented)", tb.Name, got, want, len(tb.Indexes()))
		}
		wantCols, err := d.Columns(ctx, db, "by_script", tb.Name)
		if err != nil {
			t.Fatal(err)
		}
		gotCols, err := d.Columns(ctx, db, "by_export", tb.Name)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gotCols, wantCols) {
			t.Errorf("%s: columns %+v, want %+v", tb.Name, gotCols, wantCols)
		}
	}
}

// TestFewSetsSettings: on Babelfish, PostgreSQL's settings hold for the
// transaction that runs FewSetsSettings and end with it; on SQL Server the
// statement runs and changes nothing.
func TestFewSetsSettings(t *testing.T) {
	db := dbtest.Open(t, dbtest.Fresh(t, "sqlserver"))
	ctx := dialecttest.Context(t)
	babelfish, err := sqlserver.IsBabelfish(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	settings := func(q dialects.DBTX) []string {
		t.Helper()
		if !babelfish {
			return nil
		}
		var s, n, w, j string
		if err := q.QueryRowContext(ctx, "SELECT current_setting('enable_seqscan'), current_setting('enable_nestloop'), current_setting('max_parallel_workers_per_gather'), current_setting('jit')").Scan(&s, &n, &w, &j); err != nil {
			t.Fatal(err)
		}
		return []string{s, n, w, j}
	}
	before := settings(conn)
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := dialects.ExecAll(ctx, tx, sqlserver.Dialect{}.FewSetsSettings()); err != nil {
		t.Fatal(err)
	}
	if got := settings(tx); babelfish && !reflect.DeepEqual(got, []string{"off", "off", "0", "off"}) {
		t.Errorf("in the transaction: enable_seqscan, enable_nestloop, max_parallel_workers_per_gather, jit = %q", got)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := settings(conn); !reflect.DeepEqual(got, before) {
		t.Errorf("after the transaction: %q, want the session's %q again", got, before)
	}
}

// TestTablesOfMissingSchema: Tables of a schema that does not exist is an
// error naming it (wrapping dialects.ErrNoSchema), not an empty list; an
// existing schema without tables lists none, whatever the case of its name,
// and so does the default schema of an empty database, named or not.
func TestTablesOfMissingSchema(t *testing.T) {
	db := dbtest.Open(t, dbtest.Fresh(t, "sqlserver"))
	var d sqlserver.Dialect
	ctx := dialecttest.Context(t)
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+d.Quote("empty")); err != nil {
		t.Fatal(err)
	}
	tables, err := d.Tables(ctx, db, "nosuch")
	if !errors.Is(err, dialects.ErrNoSchema) || !strings.Contains(err.Error(), `"nosuch"`) {
		t.Errorf("Tables(nosuch) = %v, %v; want an error naming the schema, wrapping dialects.ErrNoSchema", tables, err)
	}
	for _, schema := range []string{"empty", "EMPTY", "", "dbo"} {
		if tables, err := d.Tables(ctx, db, schema); err != nil || len(tables) != 0 {
			t.Errorf("Tables(%q) of an existing schema without tables = %v, %v; want none", schema, tables, err)
		}
	}
}
