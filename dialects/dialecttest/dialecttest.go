package dialecttest

import (
	"context"
	"fmt"
	"math"
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

// AllTables returns every table profdb creates, profilers.Tables of every
// registered profiler: INSTANCES, RELATIONS, profdb's own
// PROFDB_RESULT_SETS and the 37 tables of the four profilers.
func AllTables(t testing.TB) []ddl.Table {
	t.Helper()
	tables, err := profilers.Tables(profilers.All()...)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 + len(profilers.Own()) + 37; len(tables) != want {
		t.Fatalf("got %d tables from the registry, want %d (2 shared, profdb's own %d, 37 of 4 profilers)", len(tables), want, len(profilers.Own()))
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
	stmt := dialects.InsertSQL(d, dialects.Qualify(d, schema, d.StoredName(table.Name)), cols, len(rows))
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
	query := "SELECT " + strings.Join(cols, ", ") + " FROM " + dialects.Qualify(d, "", d.StoredName(roundTripTable.Name))
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

// RoundTripTable returns the table the round trip uses: one column of every
// logical type.
func RoundTripTable() ddl.Table { return roundTripTable.Clone() }

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
