package merge_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	_ "github.com/profdb/profdb/dialects/mysql"
	_ "github.com/profdb/profdb/dialects/postgres"
	_ "github.com/profdb/profdb/dialects/sqlite"
	_ "github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/merge"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

var dialectNames = dbtest.Dialects()

// cov describes a Light Coverage result set for the builder: routines in
// order, each with its count and its lines (source line -> count) in order.
type cov []covRoutine

type covRoutine struct {
	name, module, file string
	line, count        int64
	lines              [][2]int64
}

func (c cov) builder() *lightcoverage.Builder {
	b := lightcoverage.NewBuilder()
	for _, r := range c {
		br := b.AddRoutine(lightcoverage.RoutineInfo{Name: r.name, Module: r.module, SourceFile: r.file,
			SourceLine: r.line, Count: r.count, CodeType: "x64", LineLevel: true, Class: "C", Namespace: "ns"})
		for _, l := range r.lines {
			br.AddLine(l[0], l[1])
		}
	}
	return b
}

// The inputs: B holds the routines of A in another order (so other IDs),
// not every line of A, lines A lacks and a routine A lacks.
var (
	covA = cov{
		{name: "f", module: "m", file: "f.go", line: 10, count: 2, lines: [][2]int64{{10, 2}, {11, 0}, {12, 5}}},
		{name: "g", module: "m", file: "g.go", line: 3, count: 0, lines: [][2]int64{{3, 0}, {4, 0}}},
	}
	covB = cov{
		{name: "h", module: "n", file: "h.go", line: 1, count: 7, lines: [][2]int64{{1, 7}}},
		{name: "g", module: "m", file: "g.go", line: 3, count: 1, lines: [][2]int64{{4, 3}, {5, 1}}},
		{name: "f", module: "m", file: "f.go", line: 10, count: 1, lines: [][2]int64{{11, 4}, {12, 1}, {13, 0}}},
	}
)

// mergedAB is the merge of A and B under op, in the order of first
// mention; want[op] gives each count under sum, avg, max, min.
func mergedAB(op merge.Op) cov {
	pick := func(w [4]int64) int64 { return w[op] }
	type l = [2]int64
	return cov{
		{name: "f", module: "m", file: "f.go", line: 10, count: pick([4]int64{3, 2, 2, 1}), lines: []l{
			{10, pick([4]int64{2, 2, 2, 2})}, // A only
			{11, pick([4]int64{4, 2, 4, 4})}, // 0 and 4: avg rounds up 2
			{12, pick([4]int64{6, 3, 5, 1})},
			{13, 0}, // B only, not run
		}},
		{name: "g", module: "m", file: "g.go", line: 3, count: 1, lines: []l{
			{3, 0},
			{4, pick([4]int64{3, 2, 3, 3})}, // 0 and 3: avg 1.5 rounds up to 2
			{5, 1},
		}},
		{name: "h", module: "n", file: "h.go", line: 1, count: 7, lines: []l{{1, 7}}},
	}
}

// tables is a result set's rows by table, as db.Read returns them.
type tables map[string][][]any

func read(t *testing.T, db *store.DB, inst int64) tables {
	t.Helper()
	rs, err := db.Read(t.Context(), inst)
	if err != nil {
		t.Fatal(err)
	}
	out := tables{}
	for _, tr := range rs.Tables {
		rows := [][]any{}
		for row, err := range tr.Rows {
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, row)
		}
		out[tr.Name] = rows
	}
	return out
}

// exported writes c to db and returns its INST_ID.
func exported(t *testing.T, x *exporter.Exporter, c cov, caption string) int64 {
	t.Helper()
	res, err := c.builder().Export(t.Context(), x, caption)
	if err != nil {
		t.Fatal(err)
	}
	return res.InstID
}

func sameTables(t *testing.T, what string, got, want tables) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d tables, want %d", what, len(got), len(want))
	}
	for name, w := range want {
		g := got[name]
		if len(g) != len(w) {
			t.Errorf("%s: %s: %d rows, want %d", what, name, len(g), len(w))
			continue
		}
		for i := range w {
			if !reflect.DeepEqual(g[i], w[i]) {
				t.Errorf("%s: %s row %d = %v, want %v", what, name, i, g[i], w[i])
			}
		}
	}
}

func open(t *testing.T, dn string) (*store.DB, *exporter.Exporter) {
	t.Helper()
	x, err := exporter.Open(context.Background(), dbtest.Fresh(t, dn), store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x.DB(), x
}

func verified(t *testing.T, db *store.DB, inst int64) {
	t.Helper()
	f, err := db.Verify(t.Context(), inst)
	if err != nil {
		t.Fatal(err)
	}
	if len(f) > 0 {
		t.Errorf("verify %d: %v", inst, f)
	}
}

func TestMergeCoverage(t *testing.T) {
	for _, dn := range dialectNames {
		t.Run(dn, func(t *testing.T) {
			db, x := open(t, dn)
			a := exported(t, x, covA, "A")
			b := exported(t, x, covB, "B")
			for _, op := range []merge.Op{merge.Sum, merge.Avg, merge.Max, merge.Min} {
				res, err := merge.Merge(t.Context(), db, []int64{a, b}, op, "", x)
				if err != nil {
					t.Fatalf("%s: %v", op, err)
				}
				if want := fmt.Sprintf("merge (%s) of %d, %d", op, a, b); res.Caption != want || res.Profiler != lightcoverage.Name {
					t.Errorf("%s: result %+v, want caption %q", op, res, want)
				}
				verified(t, db, res.InstID)
				// The expected set, built and exported by the builder.
				w := exported(t, x, mergedAB(op), "want")
				got := read(t, db, res.InstID)
				sameTables(t, op.String(), got, read(t, db, w))
				// % covered recomputed from the merged lines: a line is
				// covered when it ran in any input, whatever the operation.
				files := got[lightcoverage.SourceFilesData]
				wantPct := []float64{75, 200.0 / 3, 100}
				for i, p := range wantPct {
					if i >= len(files) || files[i][0] != p {
						t.Errorf("%s: SOURCE_FILES_DATA %% covered: %v, want %v", op, files, wantPct)
						break
					}
				}
			}
		})
	}
}

// doubled is c with every count doubled.
func doubled(c cov) cov {
	var out cov
	for _, r := range c {
		r.count *= 2
		var ls [][2]int64
		for _, l := range r.lines {
			ls = append(ls, [2]int64{l[0], 2 * l[1]})
		}
		r.lines = ls
		out = append(out, r)
	}
	return out
}

func TestMergeWithItself(t *testing.T) {
	for _, dn := range dialectNames {
		t.Run(dn, func(t *testing.T) {
			db, x := open(t, dn)
			a := exported(t, x, covB, "A")
			orig := read(t, db, a)
			sum, err := merge.Merge(t.Context(), db, []int64{a, a}, merge.Sum, "twice", x)
			if err != nil {
				t.Fatal(err)
			}
			verified(t, db, sum.InstID)
			sameTables(t, "sum", read(t, db, sum.InstID), read(t, db, exported(t, x, doubled(covB), "doubled")))
			for _, op := range []merge.Op{merge.Max, merge.Min, merge.Avg} {
				res, err := merge.Merge(t.Context(), db, []int64{a, a}, op, "same", x)
				if err != nil {
					t.Fatal(err)
				}
				verified(t, db, res.InstID)
				if res.Rows != sum.Rows {
					t.Errorf("%s: %d rows, sum wrote %d", op, res.Rows, sum.Rows)
				}
				sameTables(t, op.String(), read(t, db, res.InstID), orig)
			}
		})
	}
}

func TestMergeRefuses(t *testing.T) {
	for _, dn := range dialectNames {
		t.Run(dn, func(t *testing.T) {
			db, x := open(t, dn)
			lc := exported(t, x, covA, "A")
			trace := func(c *resultset.Counter) int64 {
				b := functiontrace.NewBuilder()
				defer b.Close()
				b.SetCounter(c)
				r := b.AddRoutine(functiontrace.RoutineInfo{Name: "main"})
				th := b.AddThread(functiontrace.ThreadInfo{})
				if _, err := th.Enter(functiontrace.CallInfo{Routine: r, Count: 1, Time: 5, TimeWithChildren: 5}); err != nil {
					t.Fatal(err)
				}
				res, err := b.Export(t.Context(), x, "trace")
				if err != nil {
					t.Fatal(err)
				}
				return res.InstID
			}
			elapsed := trace(&resultset.Counter{Name: "Elapsed Time", Description: "Elapsed Time", Frequency: 1000000})
			cycles := trace(&resultset.Counter{Name: "CPU Cycles", Description: "CPU Cycles"})
			before, err := db.List(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				insts []int64
				want  string
			}{
				{[]int64{lc, elapsed}, fmt.Sprintf("only result sets that compare merge: the result sets cannot be compared: result set %d is light-coverage, result set %d is function-trace", lc, elapsed)},
				{[]int64{elapsed, cycles}, fmt.Sprintf(`different counters: "Elapsed Time" (result set %d) and "CPU Cycles" (result set %d)`, elapsed, cycles)},
				{[]int64{lc, 999}, "999"},
				{nil, "no result set to merge"},
			} {
				_, err := merge.Merge(t.Context(), db, tc.insts, merge.Sum, "", x)
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "merge: ") {
					t.Errorf("merge %v: error %v, want one with %q", tc.insts, err, tc.want)
				}
			}
			after, err := db.List(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if len(after) != len(before) {
				t.Errorf("a refused merge wrote a result set: %d result sets, then %d", len(before), len(after))
			}
		})
	}
}

func TestParseOp(t *testing.T) {
	for _, op := range []merge.Op{merge.Sum, merge.Avg, merge.Max, merge.Min} {
		got, err := merge.ParseOp(strings.ToUpper(op.String()))
		if err != nil || got != op {
			t.Errorf("ParseOp(%q) = %v, %v", op, got, err)
		}
	}
	if _, err := merge.ParseOp("mean"); err == nil || !strings.Contains(err.Error(), "sum, avg, max or min") {
		t.Errorf("ParseOp(mean): %v", err)
	}
}
