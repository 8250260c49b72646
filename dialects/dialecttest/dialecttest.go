package dialecttest

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/profilers"
	_ "github.com/profdb/profdb/profilers/functiontrace"
	_ "github.com/profdb/profdb/profilers/lightcoverage"
	_ "github.com/profdb/profdb/profilers/referencecount"
	_ "github.com/profdb/profdb/profilers/resource"
)

// AllTables returns INSTANCES, RELATIONS, profdb's own PROFDB_RESULT_SETS
// and the 37 tables of the four profilers.
func AllTables(t *testing.T) []ddl.Table {
	t.Helper()
	tables := append(profilers.Shared(), profilers.ResultSets())
	for _, def := range profilers.All() {
		tables = append(tables, def.Tables...)
	}
	if len(tables) != 3+37 {
		t.Fatalf("got %d tables from the registry, want 40 (2 shared, profdb's own, 37 of 4 profilers)", len(tables))
	}
	return tables
}

// Context is a test context that ends with the test, after 5 minutes at
// the latest.
func Context(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// NormDec brings a decimal read back from the database into canonical form:
// no trailing fractional zeros, no trailing point.
func NormDec(v any) (string, bool) {
	var s string
	switch x := v.(type) {
	case nil:
		return "", false
	case []byte:
		s = string(x)
	case string:
		s = x
	case int64:
		s = strconv.FormatInt(x, 10)
	case float64:
		s = strconv.FormatFloat(x, 'f', -1, 64)
	default:
		s = fmt.Sprint(x)
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s, true
}

// AsString reads a scanned text value ([]byte or string).
func AsString(v any) (string, bool) {
	switch x := v.(type) {
	case []byte:
		return string(x), true
	case string:
		return x, true
	}
	return "", false
}

// AsFloat reads a scanned floating-point value (float64, or text).
func AsFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case []byte:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil
	}
	return 0, false
}

// AsInt reads a scanned integer value (int64, or text).
func AsInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case []byte:
		i, err := strconv.ParseInt(string(x), 10, 64)
		return i, err == nil
	}
	return 0, false
}

// roundTripTable has one column of every logical type; see RoundTripTable.
var roundTripTable = ddl.Table{
	Name: "PROFDB_ROUND_TRIP",
	Key:  "INST_ID",
	Columns: []ddl.Column{
		{Name: "INST_ID", Type: ddl.Integer, NotNull: true},
		{Name: "COL_STRING", Type: ddl.String},
		{Name: "COL_INTEGER", Type: ddl.Integer},
		{Name: "COL_DECIMAL", Type: ddl.Decimal},
		{Name: "COL_FLOAT", Type: ddl.Float},
	},
}

// RoundTripRows are the values the spec allows at their extremes, with
// NULLs, in canonical form; INST_ID is the row number.
func RoundTripRows(withNUL bool) [][]any {
	big := strings.Repeat("ж€😀", (1<<20)/9+1) // 9 bytes per repetition: > 1 MiB of non-ASCII
	rows := [][]any{
		{int64(1), big, int64(math.MaxInt64), ddl.Dec("18446744073709551615"), 1e308},
		{int64(2), "", int64(math.MinInt64), ddl.Dec("0.12345678"), math.SmallestNonzeroFloat64},
		{int64(3), `a'b"c\d` + "`", int64(0), ddl.Dec("-123.45"), -math.MaxFloat64},
		{int64(4), nil, nil, nil, nil},
		{int64(5), "x", int64(-1), ddl.Dec("99999999999999999999.99999999"), 0.1},
		{int64(6), "y", int64(1), ddl.Dec("-18446744073709551615.00000001"), 2.2250738585072014e-308},
		{int64(7), "z", int64(2), ddl.Dec("0"), 0.0},
		{int64(8), "Ω", int64(3), ddl.Dec("9223372036854775807"), 123456.789},
		{int64(9), "q", int64(4), ddl.Dec("18446744073709551616"), -5e-324},
		{int64(10), "r", int64(5), ddl.Dec("-9223372036854775808"), 1.5},
		{int64(11), "s", int64(6), ddl.Dec("12345678901234567890.1"), 1e-300},
	}
	if withNUL {
		rows = append(rows, []any{int64(12), "nul\x00byte", int64(7), ddl.Dec("1"), 2.0})
	}
	return rows
}

// InsertRows inserts canonical rows into table through Bind and InsertSQL,
// one statement for all of them.
func InsertRows(ctx context.Context, t *testing.T, d dialects.Dialect, q dialects.DBTX, schema string, table ddl.Table, rows [][]any) {
	t.Helper()
	if err := insertRows(ctx, d, q, schema, table, rows); err != nil {
		t.Fatalf("insert into %s: %v", table.Name, err)
	}
}

// insertRows is InsertRows, returning the error.
func insertRows(ctx context.Context, d dialects.Dialect, q dialects.DBTX, schema string, table ddl.Table, rows [][]any) error {
	cols := make([]string, len(table.Columns))
	for i, c := range table.Columns {
		cols[i] = d.StoredName(c.Name)
	}
	var args []any
	for _, r := range rows {
		for i, v := range r {
			args = append(args, d.Bind(table.Columns[i].Type, v))
		}
	}
	stmt := dialects.InsertSQL(d, d.Qualify(schema, d.StoredName(table.Name)), cols, len(rows))
	_, err := q.ExecContext(ctx, stmt, args...)
	return err
}

// CheckRoundTrip reads the round-trip table back (args select the binary
// protocol on MySQL) and compares every value exactly.
func CheckRoundTrip(ctx context.Context, t *testing.T, d dialects.Dialect, q dialects.DBTX, want [][]any, args ...any) {
	t.Helper()
	var cols []string
	for _, c := range roundTripTable.Columns {
		cols = append(cols, d.Quote(d.StoredName(c.Name)))
	}
	query := "SELECT " + strings.Join(cols, ", ") + " FROM " + d.Qualify("", d.StoredName(roundTripTable.Name))
	if len(args) > 0 {
		query += " WHERE " + d.Quote(d.StoredName("INST_ID")) + " > " + d.Placeholder(1)
	}
	query += " ORDER BY " + d.Quote(d.StoredName("INST_ID"))
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		got := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range got {
			ptrs[i] = &got[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		if n >= len(want) {
			t.Fatalf("more rows than inserted")
		}
		w := want[n]
		n++
		for i, c := range roundTripTable.Columns {
			if w[i] == nil {
				if got[i] != nil {
					t.Errorf("row %v %s: got %v, want NULL", w[0], c.Name, got[i])
				}
				continue
			}
			switch c.Type {
			case ddl.Integer:
				g, ok := AsInt(got[i])
				if !ok || g != w[i].(int64) {
					t.Errorf("row %v %s: got %#v, want %d", w[0], c.Name, got[i], w[i])
				}
			case ddl.Decimal:
				g, ok := NormDec(got[i])
				if !ok || g != string(w[i].(ddl.Dec)) {
					t.Errorf("row %v %s: got %#v (%T), want %s", w[0], c.Name, got[i], got[i], w[i])
				}
			case ddl.Float:
				g, ok := AsFloat(got[i])
				if !ok || math.Float64bits(g) != math.Float64bits(w[i].(float64)) {
					t.Errorf("row %v %s: got %#v, want %v", w[0], c.Name, got[i], w[i])
				}
			case ddl.String:
				g, ok := AsString(got[i])
				if !ok || g != w[i].(string) {
					t.Errorf("row %v %s: got %d bytes %.40q, want %d bytes %.40q", w[0], c.Name, len(g), g, len(w[i].(string)), w[i])
				}
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(want) {
		t.Fatalf("read %d rows, want %d", n, len(want))
	}
}

// consumerQuery is the query of docs/layout.md, "Upper-case names without
// quotes", unchanged.
const consumerQuery = `SELECT l.ID, COL_FILE_NAME, l.COL_MARK, l.COL_SOURCE_LINE, f.COL____COVERED
FROM LIGHT_COVERAGE_PROFILER_LINES l
INNER JOIN LIGHT_COVERAGE_PROFILER_SOURCE_FILES_DATA f ON l.PARENT_ID = f.ID
ORDER BY COL_FILE_NAME`

// CheckConsumerQuery creates the tables, fills two source files and three
// lines, and runs the consumer's query.
func CheckConsumerQuery(ctx context.Context, t *testing.T, d dialects.Dialect, q dialects.DBTX) {
	t.Helper()
	var lines, files ddl.Table
	for _, tab := range AllTables(t) {
		switch tab.Name {
		case "LIGHT_COVERAGE_PROFILER_LINES":
			lines = tab
		case "LIGHT_COVERAGE_PROFILER_SOURCE_FILES_DATA":
			files = tab
		}
	}
	for _, tab := range []ddl.Table{lines, files} {
		for _, s := range d.CreateTable(tab) {
			if _, err := q.ExecContext(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	}
	row := func(tab ddl.Table, vals map[string]any) []any {
		r := make([]any, len(tab.Columns))
		for i, c := range tab.Columns {
			if v, ok := vals[c.Name]; ok {
				r[i] = v
			} else if c.Type == ddl.Integer {
				r[i] = int64(0)
			}
		}
		return r
	}
	InsertRows(ctx, t, d, q, "", files, [][]any{
		row(files, map[string]any{"ID": int64(10), "INST_ID": int64(1), "COL_FILE_NAME": "b.pas", "COL____COVERED": ddl.Dec("50")}),
		row(files, map[string]any{"ID": int64(11), "INST_ID": int64(1), "COL_FILE_NAME": "a.pas", "COL____COVERED": ddl.Dec("100")}),
	})
	InsertRows(ctx, t, d, q, "", lines, [][]any{
		row(lines, map[string]any{"ID": int64(1), "INST_ID": int64(1), "PARENT_ID": int64(10), "COL_MARK": ddl.Dec("1"), "COL_SOURCE_LINE": int64(7)}),
		row(lines, map[string]any{"ID": int64(2), "INST_ID": int64(1), "PARENT_ID": int64(11), "COL_MARK": ddl.Dec("2"), "COL_SOURCE_LINE": int64(8)}),
	})
	rows, err := q.QueryContext(ctx, consumerQuery)
	if err != nil {
		t.Fatalf("consumer query: %v", err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var (
			id, line int64
			name     string
			mark     sql.NullString
			covered  any
		)
		if err := rows.Scan(&id, &name, &mark, &line, &covered); err != nil {
			t.Fatal(err)
		}
		c, _ := NormDec(covered)
		m, _ := NormDec(mark.String)
		got = append(got, fmt.Sprintf("%d %s %s %d %s", id, name, m, line, c))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"2 a.pas 2 8 100", "1 b.pas 1 7 50"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("consumer query returned %q, want %q", got, want)
	}
}

// MaxParamsStatement runs one INSERT with as many parameters as the
// dialect's limit allows, in rows of the round-trip table.
func MaxParamsStatement(ctx context.Context, t *testing.T, d dialects.Dialect, q dialects.DBTX) {
	t.Helper()
	cols := len(roundTripTable.Columns)
	n := dialects.RowsPerInsert(d.Limits(), cols)
	if n*cols > d.Limits().MaxParams || (n+1)*cols <= d.Limits().MaxParams {
		t.Fatalf("RowsPerInsert = %d does not fill %d params", n, d.Limits().MaxParams)
	}
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int64(1000 + i), "s", int64(i), ddl.Dec("1.5"), 2.5}
	}
	InsertRows(ctx, t, d, q, "", roundTripTable, rows)
	var count int64
	if err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+d.Qualify("", d.StoredName(roundTripTable.Name))).Scan(&count); err != nil {
		t.Fatal(err)
	}
	if count != int64(n) {
		t.Fatalf("count = %d, want %d", count, n)
	}
}

// RoundTripTable returns the table the round trip uses: one column of every
// logical type.
func RoundTripTable() ddl.Table { return roundTripTable.Clone() }

// CheckCatalogue creates the whole catalogue (AllTables) twice in each of
// schemas with d.CreateTableIn, proving the DDL idempotent; checks that
// d.Tables lists exactly the tables created, under their stored names; that
// d.Columns describes every column as want says; and runs check, the
// dialect's own checks (its indexes, say), for every table. Columns of a
// missing table must fail naming it.
func CheckCatalogue(t *testing.T, d dialects.Dialect, q dialects.DBTX, schemas []string,
	want func(tab ddl.Table, c ddl.Column) dialects.ColumnInfo, check func(schema string, tab ddl.Table)) {
	t.Helper()
	ctx := Context(t)
	tables := AllTables(t)
	var names []string
	for _, tab := range tables {
		names = append(names, d.StoredName(tab.Name))
	}
	slices.Sort(names)
	for _, schema := range schemas {
		for pass := 1; pass <= 2; pass++ {
			for _, tab := range tables {
				for _, stmt := range d.CreateTableIn(schema, tab) {
					if _, err := q.ExecContext(ctx, stmt); err != nil {
						t.Fatalf("schema %q, pass %d: %s: %v", schema, pass, stmt, err)
					}
				}
			}
		}
		got, err := d.Tables(ctx, q, schema)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, names) {
			t.Fatalf("Tables(%q) = %v\nwant %v", schema, got, names)
		}
		for _, tab := range tables {
			cols, err := d.Columns(ctx, q, schema, d.StoredName(tab.Name))
			if err != nil {
				t.Fatal(err)
			}
			var wantCols []dialects.ColumnInfo
			for _, c := range tab.Columns {
				wantCols = append(wantCols, want(tab, c))
			}
			if !reflect.DeepEqual(cols, wantCols) {
				t.Errorf("Columns(%q, %s) =\n%+v\nwant\n%+v", schema, tab.Name, cols, wantCols)
			}
			check(schema, tab)
		}
	}
	missing := d.StoredName("NO_SUCH_TABLE")
	if _, err := d.Columns(ctx, q, schemas[len(schemas)-1], missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("Columns of a missing table: %v", err)
	}
}

// CreateRoundTripTable creates RoundTripTable in schema ("" for the
// default) with d.CreateTableIn.
func CreateRoundTripTable(ctx context.Context, t *testing.T, d dialects.Dialect, q dialects.DBTX, schema string) {
	t.Helper()
	for _, s := range d.CreateTableIn(schema, RoundTripTable()) {
		if _, err := q.ExecContext(ctx, s); err != nil {
			t.Fatalf("create %s: %v", RoundTripTable().Name, err)
		}
	}
}
