package sqlserver_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/sqlserver"
)

// fakeDB is a database/sql driver that records each query with its
// arguments and answers with canned rows, standing in for the server's
// INFORMATION_SCHEMA views.
type fakeDB struct {
	mu      sync.Mutex
	queries []string
	args    [][]any
	columns []string
	rows    [][]driver.Value
	err     error
}

func (f *fakeDB) Open(string) (driver.Conn, error) { return fakeConn{f}, nil }

type fakeConn struct{ f *fakeDB }

func (c fakeConn) Prepare(string) (driver.Stmt, error) { return nil, errors.New("fake: no Prepare") }
func (c fakeConn) Close() error                        { return nil }
func (c fakeConn) Begin() (driver.Tx, error)           { return nil, errors.New("fake: no transactions") }

func (c fakeConn) QueryContext(_ context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	f := c.f
	f.mu.Lock()
	defer f.mu.Unlock()
	vals := make([]any, len(args))
	for i, a := range args {
		vals[i] = a.Value
	}
	f.queries = append(f.queries, query)
	f.args = append(f.args, vals)
	if f.err != nil {
		return nil, f.err
	}
	return &fakeRows{cols: f.columns, rows: f.rows}, nil
}

type fakeRows struct {
	cols []string
	rows [][]driver.Value
}

func (r *fakeRows) Columns() []string { return r.cols }
func (r *fakeRows) Close() error      { return nil }
func (r *fakeRows) Next(dest []driver.Value) error {
	if len(r.rows) == 0 {
		return io.EOF
	}
	copy(dest, r.rows[0])
	r.rows = r.rows[1:]
	return nil
}

func openFake(t *testing.T, f *fakeDB) *sql.DB {
	t.Helper()
	db := sql.OpenDB(fakeConnector{f})
	t.Cleanup(func() { db.Close() })
	return db
}

type fakeConnector struct{ f *fakeDB }

func (c fakeConnector) Connect(context.Context) (driver.Conn, error) { return fakeConn{c.f}, nil }
func (c fakeConnector) Driver() driver.Driver                        { return c.f }

func TestTables(t *testing.T) {
	var d sqlserver.Dialect
	ctx := context.Background()
	f := &fakeDB{columns: []string{"TABLE_NAME"}, rows: [][]driver.Value{{"INSTANCES"}, {"RELATIONS"}}}
	db := openFake(t, f)

	got, err := d.Tables(ctx, db, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"INSTANCES", "RELATIONS"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Tables = %q, want %q", got, want)
	}
	// The default schema is the login's, asked of the server.
	if q := f.queries[0]; !strings.Contains(q, "INFORMATION_SCHEMA.TABLES") || !strings.Contains(q, "TABLE_SCHEMA = SCHEMA_NAME()") ||
		!strings.Contains(q, "TABLE_TYPE = 'BASE TABLE'") || len(f.args[0]) != 0 {
		t.Errorf("default schema: %s %v", q, f.args[0])
	}
	f.rows = [][]driver.Value{{"X"}}
	if _, err := d.Tables(ctx, db, "prof"); err != nil {
		t.Fatal(err)
	}
	if q := f.queries[1]; !strings.Contains(q, "TABLE_SCHEMA = @p1") || !reflect.DeepEqual(f.args[1], []any{"prof"}) {
		t.Errorf("named schema: %s %v", q, f.args[1])
	}
	// Both queries run on the real server in TestTablesOfMissingSchema.

	boom := errors.New("boom")
	f.err = boom
	if _, err := d.Tables(ctx, db, ""); !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "sqlserver: list tables: ") {
		t.Errorf("Tables error = %v", err)
	}
}

func TestColumns(t *testing.T) {
	var d sqlserver.Dialect
	ctx := context.Background()
	null := driver.Value(nil)
	row := func(name, typ, nullable string, def, maxLen, prec, scale driver.Value) []driver.Value {
		return []driver.Value{name, typ, nullable, def, maxLen, prec, scale}
	}
	f := &fakeDB{
		columns: []string{"COLUMN_NAME", "DATA_TYPE", "IS_NULLABLE", "COLUMN_DEFAULT", "CHARACTER_MAXIMUM_LENGTH", "NUMERIC_PRECISION", "NUMERIC_SCALE"},
		rows: [][]driver.Value{
			row("CAPTION", "nvarchar", "YES", null, int64(-1), null, null),
			row("SHORT", "nvarchar", "NO", "(N'x')", int64(50), null, null),
			row("A", "varchar", "YES", null, int64(8000), null, null),
			row("B", "nchar", "YES", null, int64(10), null, null),
			row("C", "char", "YES", null, int64(1), null, null),
			row("D", "ntext", "YES", null, int64(1073741823), null, null),
			row("E", "text", "YES", null, int64(2147483647), null, null),
			row("INST_ID", "bigint", "NO", null, null, int64(19), int64(0)),
			row("I32", "int", "YES", "((0))", null, int64(10), int64(0)),
			row("I16", "smallint", "YES", null, null, int64(5), int64(0)),
			row("I8", "tinyint", "YES", null, null, int64(3), int64(0)),
			row("COUNTER_FREQUENCY", "decimal", "YES", null, null, int64(28), int64(8)),
			row("N", "numeric", "YES", null, null, int64(10), int64(2)),
			row("M", "money", "YES", null, null, int64(19), int64(4)),
			row("F", "float", "YES", null, null, int64(53), null),
			row("R", "real", "YES", null, null, int64(24), null),
			row("BIT", "bit", "YES", null, null, null, null),
			row("WHEN", "datetime2", "YES", "(sysdatetime())", null, null, null),
		},
	}
	db := openFake(t, f)
	got, err := d.Columns(ctx, db, "", "INSTANCES")
	if err != nil {
		t.Fatal(err)
	}
	want := []dialects.ColumnInfo{
		{Name: "CAPTION", DBType: "nvarchar(max)", Type: ddl.String, Nullable: true},
		{Name: "SHORT", DBType: "nvarchar(50)", Type: ddl.String, HasDefault: true, MaxChars: 50, MaxCharsUTF16: true},
		{Name: "A", DBType: "varchar(8000)", Type: ddl.String, Nullable: true, MaxChars: 8000, MaxCharsUTF16: true},
		{Name: "B", DBType: "nchar(10)", Type: ddl.String, Nullable: true, MaxChars: 10, MaxCharsUTF16: true},
		{Name: "C", DBType: "char(1)", Type: ddl.String, Nullable: true, MaxChars: 1, MaxCharsUTF16: true},
		{Name: "D", DBType: "ntext", Type: ddl.String, Nullable: true},
		{Name: "E", DBType: "text", Type: ddl.String, Nullable: true},
		{Name: "INST_ID", DBType: "bigint", Type: ddl.Integer, IntBits: 64},
		{Name: "I32", DBType: "int", Type: ddl.Integer, Nullable: true, HasDefault: true, IntBits: 32},
		{Name: "I16", DBType: "smallint", Type: ddl.Integer, Nullable: true, IntBits: 16},
		{Name: "I8", DBType: "tinyint", Type: ddl.Integer, Nullable: true, IntBits: 8},
		{Name: "COUNTER_FREQUENCY", DBType: "decimal(28,8)", Type: ddl.Decimal, Nullable: true, Precision: 28, Scale: 8},
		{Name: "N", DBType: "numeric(10,2)", Type: ddl.Decimal, Nullable: true, Precision: 10, Scale: 2},
		{Name: "M", DBType: "money", Type: ddl.Decimal, Nullable: true, Precision: 19, Scale: 4},
		{Name: "F", DBType: "float", Type: ddl.Float, Nullable: true, FloatBits: 64},
		{Name: "R", DBType: "real", Type: ddl.Float, Nullable: true, FloatBits: 32},
		{Name: "BIT", DBType: "bit", Nullable: true},
		{Name: "WHEN", DBType: "datetime2", Nullable: true, HasDefault: true},
	}
	if len(got) != len(want) {
		t.Fatalf("%d columns, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("column %d:\n got %+v\nwant %+v", i+1, got[i], want[i])
		}
	}
	q := f.queries[0]
	for _, s := range []string{"INFORMATION_SCHEMA.COLUMNS", "TABLE_SCHEMA = SCHEMA_NAME()", "TABLE_NAME = @p1", "ORDER BY ORDINAL_POSITION"} {
		if !strings.Contains(q, s) {
			t.Errorf("query lacks %q: %s", s, q)
		}
	}
	if !reflect.DeepEqual(f.args[0], []any{"INSTANCES"}) {
		t.Errorf("args %v", f.args[0])
	}

	// No rows: the table does not exist.
	f.rows = nil
	if _, err := d.Columns(ctx, db, "prof", "INSTANCES"); !errors.Is(err, dialects.ErrNoTable) || !strings.Contains(err.Error(), "INSTANCES") {
		t.Fatalf("Columns of a missing table = %v, want ErrNoTable naming it", err)
	}
	if q := f.queries[1]; !strings.Contains(q, "TABLE_SCHEMA = @p1") || !strings.Contains(q, "TABLE_NAME = @p2") ||
		!reflect.DeepEqual(f.args[1], []any{"prof", "INSTANCES"}) {
		t.Errorf("named schema: %s %v", q, f.args[1])
	}
	// Both queries run on the real server in TestConformance (the default
	// schema and a named one) and TestCreateNewTable.

	boom := errors.New("boom")
	f.err = boom
	if _, err := d.Columns(ctx, db, "", "X"); !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "sqlserver: columns of X: ") {
		t.Errorf("Columns error = %v", err)
	}
}
