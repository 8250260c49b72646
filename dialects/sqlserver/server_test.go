package sqlserver_test

import (
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/internal/testdb"
	"github.com/profdb/profdb/profilers"
)

// TestConformance runs dialecttest's suite on the SQL Server named by
// PROFDB_TEST_SQLSERVER (a profdb DSN; Babelfish included) and skips
// without it: the catalogue is created in the database's default schema
// and in a new one, and its columns are described as profdb creates them.
// Columns of a missing table is not an error here yet: that check is
// skipped.
func TestConformance(t *testing.T) {
	db := testdb.Open(t, testdb.Fresh(t, "sqlserver"))
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
	db := testdb.Open(t, testdb.Fresh(t, "sqlserver"))
	var d sqlserver.Dialect
	ctx := dialecttest.Context(t)
	inst := profilers.Instances()
	for _, s := range d.CreateTable(inst) {
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
	if _, err := tx.ExecContext(ctx, dialects.InsertSQL(d, d.Qualify("", inst.Name), inst.ColumnNames(), len(rows)), args...); err != nil {
		t.Fatal(err)
	}
	res, err := tx.QueryContext(ctx, "SELECT CAPTION, CAST(COUNTER_FREQUENCY AS NVARCHAR(40)) FROM "+
		d.Qualify("", inst.Name)+" ORDER BY INST_ID")
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
