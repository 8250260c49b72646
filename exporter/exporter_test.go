package exporter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	_ "github.com/profdb/profdb/dialects/mysql"
	_ "github.com/profdb/profdb/dialects/postgres"
	_ "github.com/profdb/profdb/dialects/sqlite"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/optionerr"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	_ "github.com/profdb/profdb/profilers/referencecount"
	_ "github.com/profdb/profdb/profilers/resource"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// localDialects are the databases every exporter test runs on.
var localDialects = dbtest.Dialects("sqlserver")

var bulkModes = []exporter.BulkMode{exporter.BulkAuto, exporter.BulkOff}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// openFresh opens an exporter DB on a private namespace of dialect.
func openFresh(t *testing.T, dialect string, so store.Options, o exporter.Options) (*exporter.Exporter, string) {
	t.Helper()
	dsn := dbtest.Fresh(t, dialect)
	db, err := exporter.Open(ctxT(t), dsn, so, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, dsn
}

// forEach runs f for every local dialect and both write paths.
func forEach(t *testing.T, f func(t *testing.T, dialect string, bulk exporter.BulkMode)) {
	for _, d := range localDialects {
		for _, b := range bulkModes {
			t.Run(d+"/bulk="+b.String(), func(t *testing.T) { f(t, d, b) })
		}
	}
}

func rowsOf(rows ...[]any) func(func([]any, error) bool) {
	return func(yield func([]any, error) bool) {
		for _, r := range rows {
			if !yield(r, nil) {
				return
			}
		}
	}
}

// edgeSet is a function-trace result set with edge values in every type.
func edgeSet() *resultset.ResultSet {
	big := strings.Repeat("ж€😀a", 1<<20/10) // over 1 MiB of non-ASCII text
	return &resultset.ResultSet{
		Header: resultset.Header{Profiler: functiontrace.Name, Caption: "edge ✓ 'quoted' \"dq\"",
			Counter: &resultset.Counter{Name: "Time", Description: "Elapsed Time", Frequency: uint64(math.MaxUint64)}},
		Tables: []resultset.TableRows{
			// Children first: resultset.Export orders them.
			{Name: functiontrace.CallTrace, Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL__S", "COL__S_WITH_CHILDREN", "COL_PARENT_NO"},
				Rows: rowsOf(
					[]any{int64(0), int64(0), int64(0), int64(math.MaxInt64), int64(math.MinInt64), int64(-1)},
					[]any{int64(1), int64(0), int64(1), json.Number("42"), nil, int64(0)},
				)},
			{Name: functiontrace.Threads, Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL_WIN32THREADID", "COL_LINE_NUMBER"},
				Rows: rowsOf([]any{int64(0), int64(-1), int64(0), int64(4711), nil})},
			{Name: functiontrace.Routines, Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL_ADDRESS", "COL_CLASS_NAME", "COL_UNIT_NAME", "COL_HIT_COUNT"},
				Rows: rowsOf(
					[]any{int64(0), int64(-1), int64(0), uint64(math.MaxUint64), big, "", int64(3)},
					[]any{int64(1), int64(-1), int64(1), "0.12345678", "naïve Ünïcödé 中文", nil, nil},
					[]any{int64(2), int64(-1), int64(2), json.Number("-123.45"), nil, "tab\tnew\nline\\back'q\"", int64(0)},
					[]any{int64(3), int64(-1), int64(3), json.Number("99999999999999999999.99999999"), "x", "y", int64(1)},
				)},
		},
	}
}

func TestRoundTrip(t *testing.T) {
	forEach(t, func(t *testing.T, dialect string, bulk exporter.BulkMode) {
		db, _ := openFresh(t, dialect, store.Options{}, exporter.Options{Bulk: bulk})
		ctx := ctxT(t)
		want := edgeSet()
		res, err := resultset.Export(ctx, db, want)
		if err != nil {
			t.Fatal(err)
		}
		if res.InstID != 1 || res.Rows != 7 || res.Tables[functiontrace.CallTrace] != 2 {
			t.Fatalf("result = %+v", res)
		}
		// A second result set gets the next INST_ID.
		res2, err := resultset.Export(ctx, db, edgeSet())
		if err != nil {
			t.Fatal(err)
		}
		if res2.InstID != 2 {
			t.Fatalf("second INST_ID = %d, want 2", res2.InstID)
		}
		got, err := db.DB().Read(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got.Caption != want.Caption || got.Profiler != want.Profiler {
			t.Errorf("header = %q %q", got.Profiler, got.Caption)
		}
		if got.Counter == nil || got.Counter.Name != "Time" || got.Counter.Description != "Elapsed Time" ||
			got.Counter.Frequency != ddl.Dec("18446744073709551615") {
			t.Errorf("counter = %+v", got.Counter)
		}
		compareSets(t, want, got)
	})
}

// TestReadUnordered: Read returns each table's rows by ID, whatever order
// they were written in; ReadUnordered returns the same rows, every value
// equal, in whatever order the database finds cheapest, and nothing of
// another result set.
func TestReadUnordered(t *testing.T) {
	for _, dialect := range localDialects {
		t.Run(dialect, func(t *testing.T) {
			db, _ := openFresh(t, dialect, store.Options{}, exporter.Options{})
			ctx := ctxT(t)
			set := func() *resultset.ResultSet {
				return &resultset.ResultSet{
					Header: resultset.Header{Profiler: functiontrace.Name, Caption: "shuffled"},
					Tables: []resultset.TableRows{
						{Name: functiontrace.Threads, Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL_WIN32THREADID"},
							Rows: rowsOf([]any{int64(0), int64(-1), int64(0), int64(4711)}, []any{int64(1), int64(-1), int64(1), int64(4712)})},
						{Name: functiontrace.CallTrace, Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL__S", "COL_PARENT_NO"},
							Rows: rowsOf(
								[]any{int64(7), int64(1), int64(7), int64(70), nil},
								[]any{int64(2), int64(0), int64(2), int64(math.MinInt64), int64(-1)},
								[]any{int64(5), int64(1), int64(5), int64(math.MaxInt64), int64(2)},
								[]any{int64(1), int64(0), int64(1), int64(10), int64(5)},
							)},
					},
				}
			}
			for range 2 {
				if _, err := resultset.Export(ctx, db, set()); err != nil {
					t.Fatal(err)
				}
			}
			var callCols []string // CALL_TRACE's columns, as Read gives them
			tables := func(rs *resultset.ResultSet, err error) map[string][][]any {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
				out := map[string][][]any{}
				for _, tr := range rs.Tables {
					rows := [][]any{}
					for r, err := range tr.Rows {
						if err != nil {
							t.Fatal(err)
						}
						rows = append(rows, r)
					}
					out[tr.Name] = rows
					if tr.Name == functiontrace.CallTrace {
						callCols = tr.Columns
					}
				}
				return out
			}
			ordered := tables(db.DB().Read(ctx, 2))
			idAt := indexOf(callCols, "ID")
			unordered := tables(db.DB().ReadUnordered(ctx, 2))
			var ids []int64
			for _, r := range ordered[functiontrace.CallTrace] {
				ids = append(ids, r[idAt].(int64))
			}
			if !reflect.DeepEqual(ids, []int64{1, 2, 5, 7}) {
				t.Errorf("Read: CALL_TRACE IDs %v, want them in order, 1 2 5 7", ids)
			}
			// On SQLite ID order costs nothing (dialects.IndexOrdered), and
			// ReadUnordered asks for it, rather than the parents' order
			// of the other index, 2 1 7 5.
			if dialect == "sqlite" {
				ids = nil
				for _, r := range unordered[functiontrace.CallTrace] {
					ids = append(ids, r[idAt].(int64))
				}
				if !reflect.DeepEqual(ids, []int64{1, 2, 5, 7}) {
					t.Errorf("ReadUnordered on SQLite: CALL_TRACE IDs %v, want them by ID, 1 2 5 7", ids)
				}
			}
			if len(unordered) != len(ordered) {
				t.Fatalf("ReadUnordered: %d tables, Read %d", len(unordered), len(ordered))
			}
			key := func(rows [][]any) []string {
				var out []string
				for _, r := range rows {
					out = append(out, fmt.Sprintf("%#v", r))
				}
				slices.Sort(out)
				return out
			}
			for name, rows := range ordered {
				if got, want := key(unordered[name]), key(rows); !reflect.DeepEqual(got, want) {
					t.Errorf("ReadUnordered: %s rows\n%s\nwant\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
		})
	}
}

// compareSets checks that every value of want comes back from got, in
// canonical form; columns want does not give must be NULL.
func compareSets(t *testing.T, want, got *resultset.ResultSet) {
	t.Helper()
	def := profilers.MustLookup(want.Profiler)
	gotTables := map[string]resultset.TableRows{}
	for _, tr := range got.Tables {
		gotTables[tr.Name] = tr
	}
	for _, wt := range want.Tables {
		td, _ := def.Table(wt.Name)
		gt, ok := gotTables[wt.Name]
		if !ok {
			t.Errorf("table %s not read back", wt.Name)
			continue
		}
		var wantRows, gotRows [][]any
		for r, err := range wt.Rows {
			if err != nil {
				t.Fatal(err)
			}
			full := make([]any, len(gt.Columns))
			for i, c := range wt.Columns {
				col, _ := td.Column(c)
				v, err := resultset.Convert(col.Type, r[i])
				if err != nil {
					t.Fatal(err)
				}
				full[indexOf(gt.Columns, col.Name)] = v
			}
			wantRows = append(wantRows, full)
		}
		for r, err := range gt.Rows {
			if err != nil {
				t.Fatal(err)
			}
			gotRows = append(gotRows, append([]any(nil), r...))
		}
		if len(gotRows) != len(wantRows) {
			t.Errorf("%s: %d rows back, want %d", wt.Name, len(gotRows), len(wantRows))
			continue
		}
		for i := range wantRows {
			for j := range wantRows[i] {
				if !reflect.DeepEqual(wantRows[i][j], gotRows[i][j]) {
					t.Errorf("%s row %d column %s: got %s, want %s", wt.Name, i, gt.Columns[j], show(gotRows[i][j]), show(wantRows[i][j]))
				}
			}
		}
	}
}

func show(v any) string {
	s := fmt.Sprintf("%T(%v)", v, v)
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	panic("no column " + s)
}

// counts returns the rows of every table of a profiler plus the shared ones.
func counts(t *testing.T, db *exporter.Exporter, profiler string) map[string]int64 {
	t.Helper()
	ctx := ctxT(t)
	d := db.DB().Dialect()
	tables, err := d.Tables(ctx, db.DB().SQL(), "")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]string{}
	for _, n := range tables {
		have[strings.ToUpper(n)] = n
	}
	def := profilers.MustLookup(profiler)
	out := map[string]int64{}
	for _, tb := range append(profilers.Shared(), def.Tables...) {
		real, ok := have[tb.Name]
		if !ok {
			out[tb.Name] = -1
			continue
		}
		var n int64
		if err := db.DB().SQL().QueryRowContext(ctx, "SELECT COUNT(*) FROM "+dialects.Qualify(d, "", real)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[tb.Name] = n
	}
	return out
}

func TestBadRowsLeaveNoTrace(t *testing.T) {
	cases := []struct {
		name    string
		table   string
		columns []string
		row     []any
		want    string // in the error
	}{
		{"text in integer", functiontrace.CallTrace, []string{"ID", "COL__S"}, []any{int64(5), "abc"}, "table FUNCTION_TRACE_PROFILER_CALL_TRACE, column COL__S, row 2: want an integer"},
		{"fraction in integer", functiontrace.CallTrace, []string{"ID", "COL__S"}, []any{int64(5), json.Number("1.5")}, "column COL__S, row 2: want an integer"},
		{"integer out of range", functiontrace.CallTrace, []string{"ID", "COL__S"}, []any{int64(5), json.Number("9223372036854775808")}, "out of range"},
		{"decimal too many places", functiontrace.Routines, []string{"ID", "COL_ADDRESS"}, []any{int64(5), "0.123456789"}, "column COL_ADDRESS, row 2: \"0.123456789\" has more than 8 decimal places"},
		{"decimal too large", functiontrace.Routines, []string{"ID", "COL_ADDRESS"}, []any{int64(5), "123456789012345678901"}, "out of range for a decimal"},
		{"number in string", functiontrace.Routines, []string{"ID", "COL_CLASS_NAME"}, []any{int64(5), int64(7)}, "column COL_CLASS_NAME, row 2: want text"},
		{"invalid utf-8", functiontrace.Routines, []string{"ID", "COL_CLASS_NAME"}, []any{int64(5), "a\xffb"}, "not valid UTF-8"},
		{"unknown column", functiontrace.Routines, []string{"ID", "COL_NOPE"}, []any{int64(5), int64(1)}, "has no column COL_NOPE"},
		{"unknown table", "FUNCTION_TRACE_PROFILER_NOPE", []string{"ID"}, []any{int64(5)}, "profiler function-trace has no table FUNCTION_TRACE_PROFILER_NOPE"},
		{"inst id given", functiontrace.Routines, []string{"ID", "INST_ID"}, []any{int64(5), int64(1)}, "INST_ID is assigned by profdb"},
		{"wrong arity", functiontrace.Routines, []string{"ID", "REC_ID"}, []any{int64(5)}, "1 values for 2 columns"},
	}
	forEach(t, func(t *testing.T, dialect string, bulk exporter.BulkMode) {
		db, _ := openFresh(t, dialect, store.Options{}, exporter.Options{Bulk: bulk})
		ctx := ctxT(t)
		if _, err := resultset.Export(ctx, db, edgeSet()); err != nil {
			t.Fatal(err)
		}
		before := counts(t, db, functiontrace.Name)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				rs := &resultset.ResultSet{Header: resultset.Header{Profiler: functiontrace.Name, Caption: "bad"},
					Tables: []resultset.TableRows{
						{Name: functiontrace.Threads, Columns: []string{"ID", "PARENT_ID"}, Rows: rowsOf([]any{int64(0), int64(-1)})},
						{Name: c.table, Columns: c.columns, Rows: rowsOf(padRow(c.columns), c.row)},
					}}
				_, err := resultset.Export(ctx, db, rs)
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("error = %v, want it to contain %q", err, c.want)
				}
				if after := counts(t, db, functiontrace.Name); !reflect.DeepEqual(before, after) {
					t.Fatalf("row counts changed: before %v after %v", before, after)
				}
			})
		}
		// The database still takes a good result set, with the next INST_ID.
		res, err := resultset.Export(ctx, db, edgeSet())
		if err != nil || res.InstID != 2 {
			t.Fatalf("after failures: %+v, %v", res, err)
		}
	})
}

// padRow is a valid first row for the columns (so the bad row is row 2).
func padRow(cols []string) []any {
	r := make([]any, len(cols))
	for i := range r {
		r[i] = nil
	}
	if len(cols) > 0 {
		r[0] = int64(1)
	}
	return r
}

func TestConcurrentExporters(t *testing.T) {
	for _, dialect := range localDialects {
		t.Run(dialect, func(t *testing.T) {
			dsn := dbtest.Fresh(t, dialect)
			ctx := ctxT(t)
			const n = 8
			const rowsEach = 3000
			var wg sync.WaitGroup
			ids := make([]int64, n)
			errs := make([]error, n)
			for i := 0; i < n; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					db, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{Bulk: bulkModes[i%2]})
					if err != nil {
						errs[i] = err
						return
					}
					defer db.Close()
					res, err := resultset.Export(ctx, db, callTraceSet(fmt.Sprintf("worker %d", i), rowsEach))
					ids[i], errs[i] = res.InstID, err
				}(i)
			}
			wg.Wait()
			seen := map[int64]bool{}
			for i, err := range errs {
				if err != nil {
					t.Fatalf("exporter %d: %v", i, err)
				}
				if seen[ids[i]] {
					t.Fatalf("INST_ID %d allocated twice: %v", ids[i], ids)
				}
				seen[ids[i]] = true
			}
			db, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			list, err := db.DB().List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(list) != n {
				t.Fatalf("%d result sets listed, want %d", len(list), n)
			}
			for _, l := range list {
				if l.Rows != rowsEach+1 || l.Profiler != functiontrace.Name {
					t.Errorf("result set %d: %d rows of %s, want %d", l.InstID, l.Rows, l.Profiler, rowsEach+1)
				}
			}
			findings, err := db.DB().Verify(ctx, 0)
			if err != nil || len(findings) != 0 {
				t.Fatalf("verify: %v %v", findings, err)
			}
			// RELATIONS IDs are unique across the table.
			var dup int64
			d := db.DB().Dialect()
			q := fmt.Sprintf("SELECT COUNT(*) - COUNT(DISTINCT %s) FROM %s", d.Quote(d.StoredName("ID")), dialects.Qualify(d, "", d.StoredName("RELATIONS")))
			if err := db.DB().SQL().QueryRowContext(ctx, q).Scan(&dup); err != nil || dup != 0 {
				t.Fatalf("duplicate RELATIONS IDs: %d %v", dup, err)
			}
		})
	}
}

// callTraceSet is a function-trace result set of one thread and n calls.
func callTraceSet(caption string, n int) *resultset.ResultSet {
	return &resultset.ResultSet{
		Header: resultset.Header{Profiler: functiontrace.Name, Caption: caption},
		Tables: []resultset.TableRows{
			{Name: functiontrace.Threads, Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL_WIN32THREADID"},
				Rows: rowsOf([]any{int64(0), int64(-1), int64(0), int64(1)})},
			{Name: functiontrace.CallTrace,
				Columns: []string{"COL__S", "COL__S_WITH_CHILDREN", "COL_CALL_NO", "COL_LINE_NUMBER", "COL_NEXT", "COL_PARENT_NO", "COL_RECID", "COL_ROUTINE_NAME", "ID", "PARENT_ID", "REC_ID"},
				Rows: func(yield func([]any, error) bool) {
					row := make([]any, 11)
					for i := 0; i < n; i++ {
						v := int64(i)
						row[0], row[1], row[2], row[3], row[4], row[5] = v*3, v*7, v, v%100, v+1, v-1
						row[6], row[7], row[8], row[9], row[10] = v%50, v%50, v, int64(0), v
						if !yield(row, nil) {
							return
						}
					}
				}},
		},
	}
}

func TestListVerifyDelete(t *testing.T) {
	for _, dialect := range localDialects {
		t.Run(dialect, func(t *testing.T) {
			db, _ := openFresh(t, dialect, store.Options{}, exporter.Options{})
			ctx := ctxT(t)
			if _, err := resultset.Export(ctx, db, callTraceSet("one", 10)); err != nil {
				t.Fatal(err)
			}
			lc := &resultset.ResultSet{Header: resultset.Header{Profiler: lightcoverage.Name, Caption: "cov"},
				Tables: []resultset.TableRows{
					{Name: lightcoverage.RoutinesData, Columns: []string{"ID", "PARENT_ID"}, Rows: rowsOf([]any{int64(7), int64(-1)})},
					{Name: lightcoverage.Lines, Columns: []string{"ID", "PARENT_ID", "COL_MARK"}, Rows: rowsOf([]any{int64(0), int64(7), int64(1)}, []any{int64(1), int64(7), int64(0)})},
				}}
			if _, err := resultset.Export(ctx, db, lc); err != nil {
				t.Fatal(err)
			}
			// Line 1 now points at a routine that does not exist; line 0
			// shares its ID with line 1.
			d := db.DB().Dialect()
			for _, set := range []string{"PARENT_ID = 99", "ID = 1"} {
				col, val, _ := strings.Cut(set, " = ")
				upd := fmt.Sprintf("UPDATE %s SET %s = %s WHERE %s = 2 AND %s = %s", dialects.Qualify(d, "", d.StoredName(lightcoverage.Lines)),
					d.Quote(d.StoredName(col)), val, d.Quote(d.StoredName("INST_ID")), d.Quote(d.StoredName("COL_MARK")), map[string]string{"PARENT_ID": "0", "ID": "1"}[col])
				if _, err := db.DB().SQL().ExecContext(ctx, upd); err != nil {
					t.Fatal(err)
				}
			}
			list, err := db.DB().List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(list) != 2 || list[0].Profiler != functiontrace.Name || list[0].Rows != 11 || list[1].Profiler != lightcoverage.Name || list[1].Rows != 3 || list[1].Caption != "cov" {
				t.Fatalf("list = %+v", list)
			}
			f, err := db.DB().Verify(ctx, 1)
			if err != nil || len(f) != 0 {
				t.Fatalf("verify 1: %v %v", f, err)
			}
			f, err = db.DB().Verify(ctx, 2)
			if err != nil || len(f) != 2 || f[0].Table != lightcoverage.Lines || f[0].Message != "1 ID held by more than one row: ID 1" ||
				f[1].Table != lightcoverage.Lines || f[1].Message != "1 row whose PARENT_ID names no row of "+lightcoverage.RoutinesData+": ID 1" {
				t.Fatalf("verify 2: %q %v", f, err)
			}
			// A RELATIONS row that disagrees with the graph is found.
			upd := fmt.Sprintf("UPDATE %s SET %s = NULL WHERE %s = 1 AND %s = %s", dialects.Qualify(d, "", d.StoredName("RELATIONS")),
				d.Quote(d.StoredName("COL_PARENT_TABLE")), d.Quote(d.StoredName("INST_ID")), d.Quote(d.StoredName("COL_CHILD_TABLE")), d.Placeholder(1))
			if _, err := db.DB().SQL().ExecContext(ctx, upd, functiontrace.CallTrace); err != nil {
				t.Fatal(err)
			}
			f, err = db.DB().Verify(ctx, 1)
			if err != nil || len(f) != 1 || !strings.Contains(f[0].Message, "table FUNCTION_TRACE_PROFILER_CALL_TRACE has parent NULL; profiler function-trace says FUNCTION_TRACE_PROFILER_THREADS") {
				t.Fatalf("verify after update: %v %v", f, err)
			}
			n, err := db.DB().Delete(ctx, 1)
			if err != nil || n != 11 {
				t.Fatalf("delete = %d, %v; want 11 rows, the profiler rows List counts (not RELATIONS and INSTANCES)", n, err)
			}
			if _, err := db.DB().Delete(ctx, 1); err == nil || !strings.Contains(err.Error(), "no result set 1") {
				t.Fatalf("second delete: %v", err)
			}
			list, _ = db.DB().List(ctx)
			if len(list) != 1 || list[0].InstID != 2 {
				t.Fatalf("after delete: %+v", list)
			}
			if c := counts(t, db, functiontrace.Name); c[functiontrace.CallTrace] != 0 || c[functiontrace.Threads] != 0 {
				t.Fatalf("rows left after delete: %v", c)
			}
		})
	}
}

func TestNoCreate(t *testing.T) {
	for _, dialect := range localDialects {
		t.Run(dialect, func(t *testing.T) {
			dsn := dbtest.Fresh(t, dialect)
			if dialect == "sqlite" {
				// NoCreate does not create the database file either; an
				// existing, empty one is a database without tables.
				_, err := exporter.Open(ctxT(t), dsn, store.Options{NoCreate: true}, exporter.Options{})
				var oe *optionerr.Error
				if err == nil || !strings.Contains(err.Error(), "no such database file (store.Options.NoCreate: ") ||
					!errors.Is(err, store.ErrNoResultSets) || !errors.As(err, &oe) || !oe.Names("NoCreate") {
					t.Fatalf("NoCreate on a missing file: %v; want ErrNoResultSets and an optionerr.Error naming NoCreate", err)
				}
				if err := os.WriteFile(strings.TrimPrefix(dsn, "sqlite:"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			db, err := exporter.Open(ctxT(t), dsn, store.Options{NoCreate: true}, exporter.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			_, err = resultset.Export(ctxT(t), db, callTraceSet("x", 1))
			if !errors.Is(err, exporter.ErrNoCreate) || !strings.Contains(err.Error(), "does not exist") || !strings.Contains(err.Error(), "(store.Options.NoCreate)") {
				t.Fatalf("error = %v", err)
			}
			tables, err := db.DB().Dialect().Tables(ctxT(t), db.DB().SQL(), "")
			if err != nil || len(tables) != 0 {
				t.Fatalf("tables after a NoCreate export: %v, %v; want none and no error", tables, err)
			}
		})
	}
}

// TestNarrowExistingColumns writes into tables a DBA made with narrower
// types: values that fit go in, the first that does not fails naming table,
// column and row, and nothing of that result set remains.
func TestNarrowExistingColumns(t *testing.T) {
	for _, dialect := range localDialects {
		t.Run(dialect, func(t *testing.T) {
			db, _ := openFresh(t, dialect, store.Options{}, exporter.Options{})
			ctx := ctxT(t)
			d := db.DB().Dialect()
			// Create the shared tables and the profiler's, then replace
			// ROUTINES with a narrow hand-made one.
			if _, err := resultset.Export(ctx, db, callTraceSet("seed", 1)); err != nil {
				t.Fatal(err)
			}
			rt := dialects.Qualify(d, "", d.StoredName(functiontrace.Routines))
			q := func(s string) string { return d.Quote(d.StoredName(s)) }
			mustExec(t, db, "DROP TABLE "+rt)
			vc := "VARCHAR(10)"
			mustExec(t, db, fmt.Sprintf("CREATE TABLE %s (%s BIGINT NOT NULL, %s INT, %s INT, %s INT, %s %s, %s DECIMAL(10,2), %s INT, %s %s)",
				rt, q("INST_ID"), q("ID"), q("PARENT_ID"), q("REC_ID"), q("COL_CLASS_NAME"), vc, q("COL_ADDRESS"), q("COL_HIT_COUNT"), q("EXTRA_NOTE"), vc))
			fits := &resultset.ResultSet{Header: resultset.Header{Profiler: functiontrace.Name, Caption: "fits"},
				Tables: []resultset.TableRows{{Name: functiontrace.Routines, Columns: []string{"ID", "PARENT_ID", "COL_CLASS_NAME", "COL_ADDRESS", "COL_HIT_COUNT"},
					Rows: rowsOf([]any{int64(1), int64(-1), "0123456789", "12345678.25", int64(2147483647)})}}}
			if _, err := resultset.Export(ctx, db, fits); err != nil {
				t.Fatalf("values that fit: %v", err)
			}
			before := counts(t, db, functiontrace.Name)
			for _, c := range []struct {
				col  string
				val  any
				want string
			}{
				// SQLite keeps every INT as 64 bits and does not enforce
				// VARCHAR(n): those columns are not narrow there.
				{"COL_HIT_COUNT", int64(2147483648), "column COL_HIT_COUNT, row 2: 2147483648 does not fit column type"},
				{"COL_CLASS_NAME", "01234567890", "column COL_CLASS_NAME, row 2: text of 11 characters does not fit column type"},
				{"COL_ADDRESS", "123456789.5", "column COL_ADDRESS, row 2: 123456789.5 needs 9 integer digits"},
				{"COL_ADDRESS", "1.125", "column COL_ADDRESS, row 2: 1.125 has 3 decimal places"},
			} {
				if dialect == "sqlite" && (c.col == "COL_HIT_COUNT" || c.col == "COL_CLASS_NAME") {
					continue
				}
				rs := &resultset.ResultSet{Header: resultset.Header{Profiler: functiontrace.Name, Caption: "too wide"},
					Tables: []resultset.TableRows{{Name: functiontrace.Routines, Columns: []string{"ID", c.col},
						Rows: rowsOf([]any{int64(1), nil}, []any{int64(2), c.val})}}}
				_, err := resultset.Export(ctx, db, rs)
				if err == nil || !strings.Contains(err.Error(), "table "+functiontrace.Routines) || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("%s: error = %v, want %q", c.col, err, c.want)
				}
				if after := counts(t, db, functiontrace.Name); !reflect.DeepEqual(before, after) {
					t.Fatalf("row counts changed: %v -> %v", before, after)
				}
			}
			// A NOT NULL column profdb does not fill is refused up front.
			mustExec(t, db, "DROP TABLE "+rt)
			mustExec(t, db, fmt.Sprintf("CREATE TABLE %s (%s BIGINT NOT NULL, %s BIGINT, %s INT NOT NULL)", rt, q("INST_ID"), q("ID"), q("MUST_FILL")))
			if _, err := resultset.Export(ctx, db, callTraceSet("x", 1)); err == nil || !strings.Contains(err.Error(), "NOT NULL without a default") {
				t.Fatalf("NOT NULL extra column: %v", err)
			}
		})
	}
}

func mustExec(t *testing.T, db *exporter.Exporter, q string) {
	t.Helper()
	if _, err := db.DB().SQL().ExecContext(ctxT(t), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// TestRelationsRows checks the RELATIONS rows of a result set: one per
// table of the profiler, with its parent or NULL.
func TestRelationsRows(t *testing.T) {
	db, _ := openFresh(t, "sqlite", store.Options{}, exporter.Options{})
	ctx := ctxT(t)
	if _, err := resultset.Export(ctx, db, callTraceSet("x", 1)); err != nil {
		t.Fatal(err)
	}
	rows, err := db.DB().SQL().QueryContext(ctx, `SELECT COL_CHILD_TABLE, COL_PARENT_TABLE, ID FROM RELATIONS WHERE INST_ID = 1 ORDER BY ID`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	def := profilers.MustLookup(functiontrace.Name)
	i := 0
	for rows.Next() {
		var child string
		var parent *string
		var id int64
		if err := rows.Scan(&child, &parent, &id); err != nil {
			t.Fatal(err)
		}
		want := def.Tables[i]
		if child != want.Name || (parent == nil) != (want.Parent == "") || parent != nil && *parent != want.Parent || id != int64(i+1) {
			t.Errorf("RELATIONS row %d = %s %v %d, want %s %q", i, child, parent, id, want.Name, want.Parent)
		}
		i++
	}
	if i != len(def.Tables) {
		t.Fatalf("%d RELATIONS rows, want %d", i, len(def.Tables))
	}
	_ = ddl.InstID
}
