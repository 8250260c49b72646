package sqlserver_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sort"
	"testing"
	"time"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/internal/testdb"
	"github.com/profdb/profdb/profilers"
)

// TestRealServer runs against the SQL Server named by PROFDB_TEST_SQLSERVER
// (a profdb DSN) and skips without it. It creates the whole catalogue in a
// new schema twice (the second run must change nothing), inspects it, and
// writes and reads back a result set under the allocation lock.
func TestRealServer(t *testing.T) {
	db := testdb.Open(t, testdb.DSN(t, "sqlserver"))
	var d sqlserver.Dialect
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	schema := "profdb_t_" + hex.EncodeToString(b)
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+d.Quote(schema)); err != nil {
		t.Fatal(err)
	}
	tables := catalogue(t)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for _, tb := range tables {
			name := d.Qualify(schema, tb.Name)
			if _, err := db.ExecContext(ctx, "IF OBJECT_ID(N'"+name+"', N'U') IS NOT NULL DROP TABLE "+name); err != nil {
				t.Errorf("drop %s: %v", name, err)
			}
		}
		if _, err := db.ExecContext(ctx, "DROP SCHEMA "+d.Quote(schema)); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})

	for pass := 1; pass <= 2; pass++ {
		for _, tb := range tables {
			for _, s := range d.CreateTableIn(schema, tb) {
				if _, err := db.ExecContext(ctx, s); err != nil {
					t.Fatalf("pass %d: %v\n%s", pass, err, s)
				}
			}
		}
	}

	got, err := d.Tables(ctx, db, schema)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, tb := range tables {
		want = append(want, tb.Name)
	}
	sort.Strings(want)
	sort.Strings(got)
	if !equal(got, want) {
		t.Errorf("Tables = %q, want %q", got, want)
	}

	inst := profilers.Instances()
	cols, err := d.Columns(ctx, db, schema, inst.Name)
	if err != nil {
		t.Fatal(err)
	}
	if len(cols) != len(inst.Columns) {
		t.Fatalf("Columns = %+v", cols)
	}
	for i, c := range cols {
		w := inst.Columns[i]
		ok := c.Name == w.Name && c.Type == w.Type && c.Nullable == !w.NotNull && !c.HasDefault
		switch w.Type {
		case ddl.String:
			ok = ok && c.MaxChars == 0 && c.DBType == "nvarchar(max)"
		case ddl.Integer:
			ok = ok && c.IntBits == 64
		case ddl.Decimal:
			ok = ok && c.Precision == ddl.DecimalPrecision && c.Scale == ddl.DecimalScale
		}
		if !ok {
			t.Errorf("column %d: %+v, want %s %v", i+1, c, w.Name, w.Type)
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
	if _, err := tx.ExecContext(ctx, dialects.InsertSQL(d, d.Qualify(schema, inst.Name), inst.ColumnNames(), len(rows)), args...); err != nil {
		t.Fatal(err)
	}
	res, err := tx.QueryContext(ctx, "SELECT CAPTION, CAST(COUNTER_FREQUENCY AS NVARCHAR(40)) FROM "+
		d.Qualify(schema, inst.Name)+" ORDER BY INST_ID")
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

// TestColumnsMissingTable: Columns of a missing table is ErrNoTable, on the
// server named by PROFDB_TEST_SQLSERVER.
func TestColumnsMissingTable(t *testing.T) {
	dialecttest.CheckColumnsMissingTable(t, sqlserver.Dialect{}, testdb.Open(t, testdb.Fresh(t, "sqlserver")))
}
