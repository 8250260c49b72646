package sqlscript_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sqlc-dev/teesql/ast"
	"github.com/sqlc-dev/teesql/parser"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	_ "github.com/profdb/profdb/dialects/mysql"
	_ "github.com/profdb/profdb/dialects/postgres"
	_ "github.com/profdb/profdb/dialects/sqlite"
	"github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/exporter/sqlscript"
	"github.com/profdb/profdb/internal/tdstest"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	_ "github.com/profdb/profdb/profilers/referencecount"
	_ "github.com/profdb/profdb/profilers/resource"
	"github.com/profdb/profdb/resultset"
)

func rowsOf(rows [][]any) func(func([]any, error) bool) {
	return func(yield func([]any, error) bool) {
		for _, r := range rows {
			if !yield(r, nil) {
				return
			}
		}
	}
}

// edgeStrings break naive quoting in some client.
var edgeStrings = []string{"", "it's ''", `C:\src\`, "a\r\nb\rc\nd", "\nGO\n", "go", "$(PATH) $(", ":setvar x\n:r f",
	"-- x /* y", "ж€😀 中文 \u2028", "nul\x00", strings.Repeat("ж€😀a", 1500) + "\n" + strings.Repeat("x", 5000)}

// sets returns two result sets whose values cover the edges of every type:
// light coverage (with its Float columns) and function trace.
func sets() []*resultset.ResultSet {
	var lines, files, routines [][]any
	floats := []float64{0.1, 1.0 / 3, math.MaxFloat64, -2.2250738585072014e-308, 0, -1.5e300, 123456.789}
	decs := []ddl.Dec{"18446744073709551615", "-99999999999999999999.99999999", "0.00000001", "0", "-9223372036854775808"}
	for i, s := range edgeStrings {
		files = append(files, []any{int64(i), int64(-1), int64(i), s, floats[i%len(floats)], decs[i%len(decs)]})
		lines = append(lines, []any{int64(i), int64(i), int64(i), int64(math.MinInt64 + int64(i)), decs[(i+1)%len(decs)]})
		routines = append(routines, []any{int64(i), int64(-1), int64(i)})
	}
	files = append(files, []any{int64(99), int64(-1), int64(99), nil, nil, nil})
	var calls [][]any
	for i := range 2500 { // more than one INSERT of 1000 rows
		calls = append(calls, []any{int64(i), int64(0), int64(i), int64(math.MaxInt64 - int64(i))})
	}
	return []*resultset.ResultSet{
		{Header: resultset.Header{Profiler: lightcoverage.Name, Caption: "cov 'x'\nGO",
			Counter: &resultset.Counter{Name: "Hits", Frequency: uint64(math.MaxUint64)}},
			Tables: []resultset.TableRows{
				{Name: lightcoverage.SourceFilesData, Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL_FILE_NAME", "COL____COVERED", "COL_HIT_COUNT"}, Rows: rowsOf(files)},
				{Name: lightcoverage.RoutinesData, Columns: []string{"ID", "PARENT_ID", "REC_ID"}, Rows: rowsOf(routines)},
				{Name: lightcoverage.Lines, Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL_SOURCE_LINE", "COL_MARK"}, Rows: rowsOf(lines)},
			}},
		{Header: resultset.Header{Profiler: functiontrace.Name, Caption: "ft"},
			Tables: []resultset.TableRows{
				{Name: functiontrace.Threads, Columns: []string{"ID", "PARENT_ID"}, Rows: rowsOf([][]any{{int64(0), int64(-1)}})},
				{Name: functiontrace.CallTrace, Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL__S"}, Rows: rowsOf(calls)},
			}},
	}
}

func script(t *testing.T, dialect string, o sqlscript.Options, rs ...*resultset.ResultSet) string {
	t.Helper()
	d, err := dialects.Lookup(dialect)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sqlscript.New(d, o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, r := range rs {
		if _, err := resultset.Export(context.Background(), s, r); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if _, err := s.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var goLine = regexp.MustCompile(`(?mi)^[ \t]*GO[ \t]*\r?$`)

func splitBatches(script string) []string {
	var out []string
	for _, b := range goLine.Split(script, -1) {
		if b = strings.TrimSpace(b); b != "" && !onlyComments(b) {
			out = append(out, b)
		}
	}
	return out
}

func onlyComments(b string) bool {
	for _, l := range strings.Split(b, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "--") {
			return false
		}
	}
	return true
}

// value evaluates an INSERT value the script writes: literals, unary minus,
// + on numbers or strings, NCHAR(n), CAST(x AS NVARCHAR(MAX)) and
// parentheses. Numbers come back as their text; variables as "@name".
func value(t *testing.T, e ast.ScalarExpression) any {
	t.Helper()
	switch x := e.(type) {
	case *ast.NullLiteral:
		return nil
	case *ast.StringLiteral:
		if !x.IsNational {
			t.Errorf("string literal %q without N", x.Value)
		}
		return x.Value
	case *ast.IntegerLiteral:
		return number(x.Value)
	case *ast.NumericLiteral:
		return number(x.Value)
	case *ast.RealLiteral:
		return number(x.Value)
	case *ast.VariableReference:
		return variable(x.Name)
	case *ast.ParenthesisExpression:
		return value(t, x.Expression)
	case *ast.UnaryExpression:
		v, ok := value(t, x.Expression).(number)
		if !ok || x.UnaryExpressionType != "Negative" {
			t.Fatalf("unary %s of %T", x.UnaryExpressionType, x.Expression)
		}
		return number("-" + string(v))
	case *ast.CastCall:
		return value(t, x.Parameter)
	case *ast.FunctionCall:
		if !strings.EqualFold(x.FunctionName.Value, "NCHAR") || len(x.Parameters) != 1 {
			t.Fatalf("function %s", x.FunctionName.Value)
		}
		n, _ := strconv.Atoi(string(value(t, x.Parameters[0]).(number)))
		return string(rune(n))
	case *ast.BinaryExpression:
		a, b := value(t, x.FirstExpression), value(t, x.SecondExpression)
		if x.BinaryExpressionType != "Add" && x.BinaryExpressionType != "Subtract" {
			t.Fatalf("binary %s", x.BinaryExpressionType)
		}
		if as, ok := a.(string); ok {
			return as + b.(string)
		}
		if av, ok := a.(variable); ok {
			return variable(string(av) + "+" + string(b.(number)))
		}
		ai, _ := new(big.Int).SetString(string(a.(number)), 10)
		bi, _ := new(big.Int).SetString(string(b.(number)), 10)
		if x.BinaryExpressionType == "Add" {
			return number(ai.Add(ai, bi).String())
		}
		return number(ai.Sub(ai, bi).String())
	}
	t.Fatalf("unexpected expression %T", e)
	return nil
}

type number string
type variable string

// matches tells whether the script's value is the canonical value want of
// logical type typ.
func matches(typ ddl.Type, want, got any) bool {
	if want == nil || got == nil {
		return want == nil && got == nil
	}
	switch typ {
	case ddl.String:
		return got == want
	case ddl.Integer:
		n, ok := got.(number)
		return ok && string(n) == strconv.FormatInt(want.(int64), 10)
	case ddl.Decimal:
		n, ok := got.(number)
		if !ok {
			return false
		}
		d, err := resultset.ParseDecimal(string(n))
		return err == nil && d == want
	case ddl.Float:
		n, ok := got.(number)
		if !ok {
			return false
		}
		f, err := strconv.ParseFloat(string(n), 64)
		return err == nil && math.Float64bits(f) == math.Float64bits(want.(float64))
	}
	return false
}

// TestSQLServerScript parses a SQL Server script with teesql, compares every
// INSERT value as SQL Server reads it with the exported value, and replays
// the script batch by batch through go-mssqldb against tdstest.
//
// That the script runs and stores every value is cmd/profdb's
// TestSQLOutScriptAppends, on the real server. teesql stays for what
// Babelfish cannot tell: text with U+0000 (NUL), which Babelfish cannot
// store (its NCHAR(0) is NULL; TestSQLOutScriptAppends leaves NUL out
// there), and the exact case of table and column names, which Babelfish
// compares without case.
func TestSQLServerScript(t *testing.T) {
	src := script(t, "sqlserver", sqlscript.Options{}, sets()...)
	tree, err := parser.Parse(context.Background(), strings.NewReader(src))
	if err != nil {
		t.Fatalf("teesql: %v", err)
	}
	batches := splitBatches(src)
	if len(tree.Batches) != len(batches) {
		t.Errorf("teesql finds %d batches, the GO lines make %d", len(tree.Batches), len(batches))
	}

	// Every value of every INSERT, by table, in order.
	got := map[string][][]any{}
	cols := map[string][]string{}
	ledgerRows := 0
	for _, b := range tree.Batches {
		for _, st := range b.Statements {
			ins, ok := st.(*ast.InsertStatement)
			if !ok {
				continue
			}
			spec := ins.InsertSpecification
			table := spec.Target.(*ast.NamedTableReference).SchemaObject.BaseIdentifier.Value
			if strings.HasPrefix(table, "#") {
				continue
			}
			if table == profilers.ResultSetsTable {
				// Its EXPORTED_AT is the server's clock, not a literal.
				ledgerRows += len(spec.InsertSource.(*ast.ValuesInsertSource).RowValues)
				continue
			}
			var names []string
			for _, c := range spec.Columns {
				ids := c.MultiPartIdentifier.Identifiers
				names = append(names, ids[len(ids)-1].Value)
			}
			cols[table] = names
			for _, rv := range spec.InsertSource.(*ast.ValuesInsertSource).RowValues {
				var row []any
				for _, e := range rv.ColumnValues {
					row = append(row, value(t, e))
				}
				got[table] = append(got[table], row)
			}
		}
	}
	if ledgerRows != len(sets()) {
		t.Errorf("%d rows for %s, want one per result set (%d)", ledgerRows, profilers.ResultSetsTable, len(sets()))
	}
	instances, relations := 0, 0
	for _, rs := range sets() {
		def := profilers.MustLookup(rs.Profiler)
		// RELATIONS: one row per table, IDs 1.. after the base.
		for k, tb := range def.Tables {
			row := got["RELATIONS"][relations]
			relations++
			var parent any
			if tb.Parent != "" {
				parent = tb.Parent
			}
			if row[0] != tb.Name || row[1] != parent || row[2] != variable("@profdb_rel_id+"+strconv.Itoa(k+1)) || row[3] != variable("@profdb_inst_id") {
				t.Errorf("RELATIONS row %v, want %s %v %d", row, tb.Name, parent, k+1)
			}
		}
		for _, tr := range rs.Tables {
			td, _ := def.Table(tr.Name)
			rows := got[tr.Name]
			i := 0
			for want := range tr.Rows {
				if i >= len(rows) {
					t.Fatalf("%s: only %d rows in the script", tr.Name, len(rows))
				}
				for c, name := range tr.Columns {
					col, _ := td.Column(name)
					wv, err := resultset.Convert(col.Type, want[c])
					if err != nil {
						t.Fatal(err)
					}
					if cols[tr.Name][c] != name {
						t.Fatalf("%s: column %d is %s, want %s", tr.Name, c, cols[tr.Name][c], name)
					}
					if !matches(col.Type, wv, rows[i][c]) {
						t.Errorf("%s row %d %s: script has %#v, want %#v", tr.Name, i, name, rows[i][c], wv)
					}
				}
				if rows[i][len(tr.Columns)] != variable("@profdb_inst_id") {
					t.Errorf("%s row %d: INST_ID %v", tr.Name, i, rows[i][len(tr.Columns)])
				}
				i++
			}
			if i != len(rows) {
				t.Errorf("%s: %d rows in the script, want %d", tr.Name, len(rows), i)
			}
		}
		inst := got["INSTANCES"][instances]
		instances++
		if inst[0] != rs.Caption || !matches(ddl.Decimal, counterFreq(t, rs.Counter), inst[2]) {
			t.Errorf("INSTANCES row %#v for %q", inst, rs.Caption)
		}
	}

	// Replay: each batch reaches the server as one plain SQL batch.
	srv, err := tdstest.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var d sqlserver.Dialect
	dsn, err := d.DriverDSN(srv.DSN("profdb"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open(d.Facts().Driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, b := range batches {
		if _, err := conn.ExecContext(ctx, b); err != nil {
			t.Fatalf("%v\n%.300s", err, b)
		}
	}
	var sent []string
	for _, ev := range srv.Events() {
		if ev.Kind == tdstest.Login {
			continue
		}
		if ev.Kind != tdstest.Batch || len(ev.Params) > 0 {
			t.Errorf("request %v with %d parameters", ev.Kind, len(ev.Params))
		}
		sent = append(sent, ev.SQL)
	}
	if len(sent) != len(batches) {
		t.Fatalf("server received %d batches, want %d", len(sent), len(batches))
	}
	for i := range sent {
		if sent[i] != batches[i] {
			t.Errorf("batch %d differs", i+1)
		}
	}
}

func counterFreq(t *testing.T, c *resultset.Counter) any {
	if c == nil {
		return nil
	}
	v, err := resultset.Convert(ddl.Decimal, c.Frequency)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSQLServerBatchesChain: every data batch checks that the one before it
// ran to its end, and records its own end; the last one commits.
func TestSQLServerBatchesChain(t *testing.T) {
	batches := splitBatches(script(t, "sqlserver", sqlscript.Options{}, sets()...))
	step := -1
	for _, b := range batches {
		if strings.Contains(b, "INSERT INTO #profdb_ids (step) VALUES (0)") {
			step = 0
			if !strings.Contains(b, "BEGIN TRANSACTION") || !strings.Contains(b, "sp_getapplock") {
				t.Errorf("the first data batch neither begins nor locks:\n%s", b)
			}
			continue
		}
		if step < 0 {
			continue // DDL
		}
		if !strings.Contains(b, fmt.Sprintf("WHERE step = %d)", step)) {
			t.Fatalf("batch after step %d does not check it:\n%.400s", step, b)
		}
		step++
		if strings.Contains(b, "COMMIT TRANSACTION") {
			if b != batches[len(batches)-1] {
				t.Error("COMMIT before the last batch")
			}
			continue
		}
		if !strings.HasSuffix(b, fmt.Sprintf("UPDATE #profdb_ids SET step = %d;", step)) {
			t.Fatalf("batch %d does not record its end:\n%.400s", step, b[max(0, len(b)-200):])
		}
	}
	if step < 5 {
		t.Fatalf("only %d data batches", step)
	}
}

// TestRollbackAndErrors: a rolled-back result set leaves nothing in the
// script; bad values fail naming table, column and row, as an export into
// a database does.
func TestRollbackAndErrors(t *testing.T) {
	d, _ := dialects.Lookup("postgres")
	s, err := sqlscript.New(d, sqlscript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	bad := &resultset.ResultSet{Header: resultset.Header{Profiler: functiontrace.Name, Caption: "BAD SET"},
		Tables: []resultset.TableRows{
			{Name: functiontrace.Threads, Columns: []string{"ID", "PARENT_ID"}, Rows: rowsOf([][]any{{int64(0), int64(-1)}})},
			{Name: functiontrace.CallTrace, Columns: []string{"ID", "COL__S"}, Rows: rowsOf([][]any{{int64(1), int64(2)}, {int64(2), "text"}})},
		}}
	if _, err := resultset.Export(ctx, s, bad); err == nil || !strings.Contains(err.Error(), "table FUNCTION_TRACE_PROFILER_CALL_TRACE, column COL__S, row 2: want an integer") {
		t.Fatalf("error = %v", err)
	}
	for _, c := range []struct {
		rs   *resultset.ResultSet
		want string
	}{
		{&resultset.ResultSet{Header: resultset.Header{Profiler: "nope"}}, `unknown profiler "nope"`},
		{&resultset.ResultSet{Header: resultset.Header{Profiler: functiontrace.Name}, Tables: []resultset.TableRows{
			{Name: functiontrace.Threads, Columns: []string{"ID", "INST_ID"}}}}, "INST_ID is assigned by profdb"},
		{&resultset.ResultSet{Header: resultset.Header{Profiler: functiontrace.Name}, Tables: []resultset.TableRows{
			{Name: functiontrace.Threads, Columns: []string{"NOPE"}}}}, "has no column NOPE"},
		{&resultset.ResultSet{Header: resultset.Header{Profiler: functiontrace.Name, Counter: &resultset.Counter{Frequency: "x"}}}, "COUNTER_FREQUENCY"},
	} {
		if _, err := resultset.Export(ctx, s, c.rs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error = %v, want %q", err, c.want)
		}
	}
	good := sets()[1]
	res, err := resultset.Export(ctx, s, good)
	if err != nil {
		t.Fatal(err)
	}
	if res.InstID != 0 || res.Rows != 2501 || res.Tables[functiontrace.CallTrace] != 2500 || s.ResultSets() != 1 {
		t.Errorf("result %+v, %d sets", res, s.ResultSets())
	}
	var b bytes.Buffer
	if _, err := s.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "BAD SET") || strings.Count(out, `INSERT INTO "instances"`) != 1 || strings.Count(out, `INSERT INTO "function_trace_profiler_call_trace"`) != 3 {
		t.Errorf("script holds traces of the failed result sets, or lacks the good one:\n%.3000s", out)
	}
	if !strings.Contains(out, "CREATE TABLE IF NOT EXISTS \"function_trace_profiler_call_trace\"") || strings.Contains(out, "light_coverage") {
		t.Error("the DDL is not that of the profilers exported")
	}
}

// TestNoScriptForm: a dialect that is no dialects.Scripter has no scripts;
// New says so.
func TestNoScriptForm(t *testing.T) {
	d, err := dialects.Lookup("sqlite")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sqlscript.New(struct{ dialects.Dialect }{d}, sqlscript.Options{})
	if err == nil {
		s.Close()
		t.Fatal("New made a script for a dialect without a script form")
	}
	if want := "sqlscript: no script form for dialect sqlite"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}
