package sqlserver_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/internal/tdstest"
)

// TestFloatBits: float is 64 bits, real (and FLOAT(n) for n <= 24, which
// SQL Server reports as real) is 32.
func TestFloatBits(t *testing.T) {
	var d sqlserver.Dialect
	null := driver.Value(nil)
	f := &fakeDB{
		columns: []string{"COLUMN_NAME", "DATA_TYPE", "IS_NULLABLE", "COLUMN_DEFAULT", "CHARACTER_MAXIMUM_LENGTH", "NUMERIC_PRECISION", "NUMERIC_SCALE"},
		rows: [][]driver.Value{
			{"F", "float", "YES", null, null, int64(53), null},
			{"R", "real", "YES", null, null, int64(24), null},
			{"F24", "float", "YES", null, null, int64(24), null},
			{"FNOPREC", "float", "YES", null, null, null, null},
			{"I", "bigint", "YES", null, null, int64(19), int64(0)},
		},
	}
	cols, err := d.Columns(context.Background(), openFake(t, f), "", "T")
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, c := range cols {
		got = append(got, c.FloatBits)
	}
	if want := []int{64, 32, 32, 64, 0}; !reflect.DeepEqual(got, want) {
		t.Errorf("FloatBits = %v, want %v", got, want)
	}
}

// catalogServer starts tdstest's fake SQL Server catalog, creates the
// tables in it and returns a connection.
func catalogServer(t *testing.T, tables ...ddl.Table) (*tdstest.Server, *tdstest.Catalog, *sql.Conn, context.Context) {
	t.Helper()
	srv, cat, err := tdstest.NewCatalogServer()
	if err != nil {
		t.Fatal(err)
	}
	conn, ctx := connect(t, srv)
	var d sqlserver.Dialect
	for _, tb := range tables {
		for _, s := range d.CreateTableIn("", tb) {
			if _, err := conn.ExecContext(ctx, s); err != nil {
				t.Fatalf("%v\n%s", err, s)
			}
		}
	}
	srv.ResetEvents()
	return srv, cat, conn, ctx
}

// bulkTable has a column of each logical type and INST_ID.
var bulkTable = ddl.Table{Name: "BULK_T", Columns: []ddl.Column{
	{Name: "S", Type: ddl.String}, {Name: "I", Type: ddl.Integer}, {Name: "D", Type: ddl.Decimal},
	{Name: "F", Type: ddl.Float}, {Name: ddl.ID, Type: ddl.Integer}, {Name: ddl.InstID, Type: ddl.Integer, NotNull: true},
}}

// TestBulkLoadOverTDS bulk-copies edge values of every type inside a
// transaction and checks what reached the server: the INSERT BULK options,
// the columns by their exact names, and every value exactly.
func TestBulkLoadOverTDS(t *testing.T) {
	var d sqlserver.Dialect
	srv, cat, conn, ctx := catalogServer(t, bulkTable)
	big := strings.Repeat("ж€😀a", 1<<20/10)
	rows := [][]any{
		{"Grüße ☃ 'x' 𝄞", int64(math.MinInt64), ddl.Dec("18446744073709551615"), 1e308, int64(1)},
		{nil, nil, nil, nil, int64(1)},
		{big, int64(math.MaxInt64), ddl.Dec("0.12345678"), -0.5, int64(1)},
		{"", int64(3), ddl.Dec("-123.45"), 1.0 / 3, int64(1)},
		{"42", int64(0), ddl.Dec("3"), math.SmallestNonzeroFloat64, int64(1)},
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	target := dialects.Target{Table: "BULK_T", Columns: []string{"S", "I", "D", "F", "INST_ID"},
		Types: []ddl.Type{ddl.String, ddl.Integer, ddl.Decimal, ddl.Float, ddl.Integer}}
	in := &dialecttest.SliceRows{Rows: rows}
	n, err := d.BulkLoad(ctx, dialects.Tx{Tx: tx, Conn: conn}, target, in)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(len(rows)) {
		t.Errorf("BulkLoad = %d rows, want %d", n, len(rows))
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	var bulks, batches []tdstest.Event
	var begin uint64
	for _, ev := range srv.Events() {
		switch ev.Kind {
		case tdstest.Begin:
			begin = ev.TxDescriptor
		case tdstest.BulkLoad:
			bulks = append(bulks, ev)
		case tdstest.Batch:
			batches = append(batches, ev)
		}
	}
	if len(bulks) != 1 {
		t.Fatalf("%d bulk loads", len(bulks))
	}
	b := bulks[0]
	if b.TxDescriptor == 0 || b.TxDescriptor != begin {
		t.Errorf("bulk load in transaction %x, want %x", b.TxDescriptor, begin)
	}
	if !strings.HasPrefix(b.SQL, "INSERT BULK [BULK_T] ([S] nvarchar(max), [I] bigint, [D] decimal(28, 8), [F] float, [INST_ID] bigint)") ||
		!strings.HasSuffix(b.SQL, "WITH (CHECK_CONSTRAINTS,FIRE_TRIGGERS,KEEP_NULLS)") {
		t.Errorf("bulk statement %s", b.SQL)
	}
	var names []string
	for _, c := range b.Bulk.Columns {
		names = append(names, c.Name)
	}
	if !reflect.DeepEqual(names, target.Columns) {
		t.Errorf("bulk columns %v", names)
	}
	for _, ev := range batches {
		if ev.TxDescriptor != begin {
			t.Errorf("batch outside the transaction: %s", ev.SQL)
		}
	}
	// Decimals come back at the column's scale; the rest exactly.
	wantDec := []any{"18446744073709551615.00000000", nil, "0.12345678", "-123.45000000", "3.00000000"}
	if len(b.Bulk.Rows) != len(rows) {
		t.Fatalf("%d rows sent", len(b.Bulk.Rows))
	}
	for i, r := range rows {
		want := []any{r[0], r[1], wantDec[i], r[3], r[4]}
		got := b.Bulk.Rows[i]
		for j := range want {
			if !reflect.DeepEqual(got[j], want[j]) {
				t.Errorf("row %d column %s: sent %s, want %s", i+1, target.Columns[j], short(got[j]), short(want[j]))
			}
		}
	}
	tb, ok := cat.Table("BULK_T")
	if !ok || len(tb.Rows) != len(rows) {
		t.Fatalf("catalog holds %d rows", len(tb.Rows))
	}
	if in.Asked != len(rows)+1 {
		t.Errorf("Rows.Next called %d times", in.Asked)
	}
}

// short shows a value's type and the start of its text.
func short(v any) string {
	s := fmt.Sprintf("%T(%v)", v, v)
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}

// TestBulkLoadConverts writes canonical values into existing columns of
// other types, as a DBA may have made them: each value is sent in the form
// bulk copy encodes correctly for the real column.
func TestBulkLoadConverts(t *testing.T) {
	var d sqlserver.Dialect
	srv, cat, conn, ctx := catalogServer(t)
	for _, s := range []string{
		"CREATE TABLE [X] ([S] NVARCHAR(20) NULL, [D] BIGINT NULL, [I] DECIMAL(10,2) NULL, [F] DECIMAL(10,2) NULL, [N] NVARCHAR(10) NULL, [G] REAL NULL, [INST_ID] INT NOT NULL)",
	} {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	target := dialects.Target{Table: "X", Columns: []string{"S", "D", "I", "F", "N", "G", "INST_ID"},
		Types: []ddl.Type{ddl.String, ddl.Decimal, ddl.Integer, ddl.Float, ddl.Integer, ddl.Float, ddl.Integer}}
	rows := [][]any{{"ü", ddl.Dec("123"), int64(3), 2.5, int64(42), 0.5, int64(7)}}
	if _, err := d.BulkLoad(ctx, dialects.Tx{Tx: tx, Conn: conn}, target, &dialecttest.SliceRows{Rows: rows}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tb, _ := cat.Table("X")
	want := [][]any{{"ü", int64(123), "3.00", "2.50", "42", 0.5, int64(7)}}
	if !reflect.DeepEqual(tb.Rows, want) {
		t.Errorf("stored %v, want %v", tb.Rows, want)
	}
	loads := 0
	for _, ev := range srv.Events() {
		if ev.Kind != tdstest.BulkLoad {
			continue
		}
		loads++
		if ev.Bulk.Columns[6].Type.ID != tdstest.TypeInt4 {
			t.Errorf("NOT NULL INT column sent as %v", ev.Bulk.Columns[6].Type)
		}
	}
	if loads != 1 {
		t.Errorf("%d bulk loads sent, want 1", loads)
	}
}

// TestBulkLoadSkips: a table the bulk path cannot fill faithfully is
// refused with ErrSkip before any row is asked for; an empty load sends
// nothing.
func TestBulkLoadSkips(t *testing.T) {
	var d sqlserver.Dialect
	srv, _, conn, ctx := catalogServer(t, bulkTable)
	if _, err := conn.ExecContext(ctx, "CREATE TABLE [V] ([S] VARCHAR(50) NULL, [N] VARCHAR(50) NULL, [INST_ID] BIGINT NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	rows := &dialecttest.SliceRows{Rows: [][]any{{"é", int64(1)}}}
	_, err = d.BulkLoad(ctx, dialects.Tx{Tx: tx, Conn: conn}, dialects.Target{Table: "V", Columns: []string{"S", "INST_ID"}, Types: []ddl.Type{ddl.String, ddl.Integer}}, rows)
	if !errors.Is(err, dialects.ErrSkip) || rows.Asked != 0 || !strings.Contains(err.Error(), "column S is varchar(50)") {
		t.Errorf("varchar column: %v after %d rows asked", err, rows.Asked)
	}
	// Numbers are ASCII text: a varchar column takes them.
	rows = &dialecttest.SliceRows{Rows: [][]any{{int64(5), int64(1)}}}
	if _, err := d.BulkLoad(ctx, dialects.Tx{Tx: tx, Conn: conn}, dialects.Target{Table: "V", Columns: []string{"N", "INST_ID"}, Types: []ddl.Type{ddl.Integer, ddl.Integer}}, rows); err != nil {
		t.Errorf("number into varchar: %v", err)
	}
	// No rows: nothing is sent.
	srv.ResetEvents()
	n, err := d.BulkLoad(ctx, dialects.Tx{Tx: tx, Conn: conn}, dialects.Target{Table: "BULK_T", Columns: []string{"I", "INST_ID"}, Types: []ddl.Type{ddl.Integer, ddl.Integer}}, &dialecttest.SliceRows{})
	if err != nil || n != 0 {
		t.Errorf("empty load: %d, %v", n, err)
	}
	for _, ev := range srv.Events() {
		if ev.Kind == tdstest.BulkLoad || strings.Contains(ev.SQL, "INSERT BULK") {
			t.Errorf("empty load sent %v %s", ev.Kind, ev.SQL)
		}
	}
	// A missing column is an error, not a skip.
	_, err = d.BulkLoad(ctx, dialects.Tx{Tx: tx, Conn: conn}, dialects.Target{Table: "BULK_T", Columns: []string{"i", "INST_ID"}, Types: []ddl.Type{ddl.Integer, ddl.Integer}}, &dialecttest.SliceRows{})
	if err == nil || errors.Is(err, dialects.ErrSkip) || !strings.Contains(err.Error(), "no column i") {
		t.Errorf("missing column: %v", err)
	}
}

// TestBulkLoadFailure: a value bulk copy cannot send fails the load after
// ending the BULK LOAD message, so that the transaction can still be
// rolled back on the same connection.
func TestBulkLoadFailure(t *testing.T) {
	var d sqlserver.Dialect
	srv, cat, conn, ctx := catalogServer(t, bulkTable)
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	target := dialects.Target{Table: "BULK_T", Columns: []string{"I", "INST_ID"}, Types: []ddl.Type{ddl.Integer, ddl.Integer}}
	rows := &dialecttest.SliceRows{Rows: [][]any{{int64(1), int64(1)}, {int64(2), nil}}}
	_, err = d.BulkLoad(ctx, dialects.Tx{Tx: tx, Conn: conn}, target, rows)
	if err == nil || !strings.Contains(err.Error(), "NULL in NOT NULL column INST_ID") {
		t.Fatalf("error = %v", err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatalf("rollback after a failed bulk load: %v", err)
	}
	if err := conn.PingContext(ctx); err != nil {
		t.Fatalf("connection unusable: %v", err)
	}
	var rolledBack bool
	for _, ev := range srv.Events() {
		rolledBack = rolledBack || ev.Kind == tdstest.Rollback
	}
	if tb, _ := cat.Table("BULK_T"); !rolledBack || len(tb.Rows) != 0 {
		t.Errorf("rolled back %v, rows left %v", rolledBack, tb.Rows)
	}
}

// TestBulkLoadBadRows: a row of the wrong width, or rows that fail, fail
// the load with an error naming the table (and the row), after ending the
// BULK LOAD message, so that the transaction still rolls back.
func TestBulkLoadBadRows(t *testing.T) {
	var d sqlserver.Dialect
	boom := errors.New("boom")
	for name, tc := range map[string]struct {
		rows *dialecttest.SliceRows
		want string
	}{
		"width":  {&dialecttest.SliceRows{Rows: [][]any{{int64(1), int64(1)}, {int64(2)}}}, "sqlserver: bulk load into BULK_T: row 2 has 1 values for 2 columns"},
		"source": {&dialecttest.SliceRows{Rows: [][]any{{int64(1), int64(1)}}, Err: boom}, "boom"},
	} {
		t.Run(name, func(t *testing.T) {
			_, cat, conn, ctx := catalogServer(t, bulkTable)
			tx, err := conn.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			target := dialects.Target{Table: "BULK_T", Columns: []string{"I", "INST_ID"}, Types: []ddl.Type{ddl.Integer, ddl.Integer}}
			_, err = d.BulkLoad(ctx, dialects.Tx{Tx: tx, Conn: conn}, target, tc.rows)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
			if err := tx.Rollback(); err != nil {
				t.Fatalf("rollback after a failed bulk load: %v", err)
			}
			if tb, _ := cat.Table("BULK_T"); len(tb.Rows) != 0 {
				t.Errorf("rows left %v", tb.Rows)
			}
		})
	}
}

// cancellingRows yields n rows of the BULK_T (I, S, INST_ID) columns and
// cancels the load's context after the k-th.
type cancellingRows struct {
	n, k, i int
	cancel  context.CancelFunc
}

func (r *cancellingRows) Next() ([]any, error) {
	if r.i == r.k {
		r.cancel()
	}
	if r.i == r.n {
		return nil, io.EOF
	}
	r.i++
	return []any{int64(r.i), strings.Repeat("x", 100), int64(1)}, nil
}

// TestBulkLoadCancelled: a load whose context is cancelled midway (the
// exporter does so when a later row is bad) stops, still ends the BULK LOAD
// message, and leaves the connection usable for the ROLLBACK.
func TestBulkLoadCancelled(t *testing.T) {
	var d sqlserver.Dialect
	srv, cat, conn, ctx := catalogServer(t, bulkTable)
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rows := &cancellingRows{n: 1000, k: 500, cancel: cancel} // 500 rows are well over one packet
	target := dialects.Target{Table: "BULK_T", Columns: []string{"I", "S", "INST_ID"}, Types: []ddl.Type{ddl.Integer, ddl.String, ddl.Integer}}
	_, err = d.BulkLoad(lctx, dialects.Tx{Tx: tx, Conn: conn}, target, rows)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatalf("rollback: %v", err)
	}
	if err := conn.PingContext(ctx); err != nil {
		t.Fatalf("connection unusable: %v", err)
	}
	var loaded int
	for _, ev := range srv.Events() {
		if ev.Kind == tdstest.BulkLoad {
			loaded += len(ev.Bulk.Rows)
		}
	}
	if loaded != 500 {
		t.Errorf("%d rows reached the server, want the 500 before the cancellation", loaded)
	}
	if tb, _ := cat.Table("BULK_T"); len(tb.Rows) != 0 {
		t.Errorf("%d rows left after the rollback", len(tb.Rows))
	}
}
