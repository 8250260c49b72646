package gate_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/profdb/profdb/compare"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/gate"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"

	_ "github.com/profdb/profdb/dialects/mysql"
	_ "github.com/profdb/profdb/dialects/postgres"
	_ "github.com/profdb/profdb/dialects/sqlite"
	_ "github.com/profdb/profdb/dialects/sqlserver"
	_ "github.com/profdb/profdb/profilers/functiontrace"
	_ "github.com/profdb/profdb/profilers/lightcoverage"
)

var dialectNames = dbtest.Dialects()

// The result sets of the tests: coverage of Calc.go and calc.go (names
// that differ only in case) in A and B, traces of routines Calc and calc
// in A and B, and a trace of another counter.
type sets struct{ covA, covB, ftA, ftB, ftOther int64 }

// coverage has routine Calc in Calc.go (lines 1..n, the first covered
// ones ran) and calc in calc.go (two lines, one ran).
func coverage(n, covered int64) *lightcoverage.Builder {
	b := lightcoverage.NewBuilder()
	r := b.AddRoutine(lightcoverage.RoutineInfo{Name: "Calc", SourceFile: "Calc.go"})
	for l := int64(1); l <= n; l++ {
		r.AddLine(l, min(1, max(0, covered-l+1)))
	}
	s := b.AddRoutine(lightcoverage.RoutineInfo{Name: "calc", SourceFile: "calc.go"})
	s.AddLine(1, 3)
	s.AddLine(2, 0)
	return b
}

// trace calls Calc count times (own time own each) and calc once, from
// main, which also spends 4 ticks in code no routine of the trace stands
// for: its time with children is more than the own times added up.
func trace(t *testing.T, c *resultset.Counter, count, own int64) *functiontrace.Builder {
	t.Helper()
	b := functiontrace.NewBuilder()
	b.SetCounter(c)
	main := b.AddRoutine(functiontrace.RoutineInfo{Name: "main"})
	upper := b.AddRoutine(functiontrace.RoutineInfo{Name: "Calc", SourceFile: "Calc.go"})
	lower := b.AddRoutine(functiontrace.RoutineInfo{Name: "calc", SourceFile: "calc.go"})
	th := b.AddThread(functiontrace.ThreadInfo{})
	call := func(r *functiontrace.Routine, n, self, total int64, inner func()) {
		if _, err := th.Enter(functiontrace.CallInfo{Routine: r, Count: n, Time: self, TimeWithChildren: total}); err != nil {
			t.Fatal(err)
		}
		if inner != nil {
			inner()
		}
		if err := th.Exit(); err != nil {
			t.Fatal(err)
		}
	}
	call(main, 1, 5, 5+count*own+7+4, func() {
		call(upper, count, count*own, count*own, nil)
		call(lower, 1, 7, 7, nil)
	})
	return b
}

func exportSets(t *testing.T, dsn string) sets {
	t.Helper()
	ctx := context.Background()
	e, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	put := func(b interface {
		Export(context.Context, resultset.Target, string) (resultset.Result, error)
	}, caption string) int64 {
		t.Helper()
		res, err := b.Export(ctx, e, caption)
		if err != nil {
			t.Fatalf("export %s: %v", caption, err)
		}
		return res.InstID
	}
	ticks := &resultset.Counter{Name: "Ticks", Description: "CPU ticks"}
	var s sets
	s.covA = put(coverage(4, 3), "coverage A")
	s.covB = put(coverage(5, 2), "coverage B")
	s.ftA = put(trace(t, ticks, 2, 10), "trace A")
	s.ftB = put(trace(t, ticks, 3, 12), "trace B")
	s.ftOther = put(trace(t, &resultset.Counter{Name: "Time", Description: "Elapsed", Frequency: 1000}, 1, 1), "trace of another counter")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return s
}

func open(t *testing.T, dsn string) *readback.Reader {
	t.Helper()
	r, err := readback.Open(context.Background(), dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func pct(v float64) *float64 { return &v }

// show (readback.Summarize), compare and check give one figure for the
// same thing on every dialect, and names that differ only in case are two
// items everywhere.
func TestFiguresAgree(t *testing.T) {
	for _, dn := range dialectNames {
		t.Run(dn, func(t *testing.T) {
			ctx := context.Background()
			dsn := dbtest.Fresh(t, dn)
			s := exportSets(t, dsn)
			r := open(t, dsn)

			// Coverage: lines and files.
			show := map[int64]*readback.Summary{}
			for _, id := range []int64{s.covA, s.covB, s.ftA, s.ftB} {
				sum, err := r.Summarize(ctx, id, readback.Options{})
				if err != nil {
					t.Fatal(err)
				}
				show[id] = sum
			}
			files := func(id int64) map[string]readback.Ratio {
				out := map[string]readback.Ratio{}
				for _, g := range show[id].Coverage.Files.Items {
					out[g.Name] = readback.Ratio{Covered: g.Covered, Total: g.Total}
				}
				return out
			}
			fa, fb := files(s.covA), files(s.covB)
			if len(fa) != 2 || len(fb) != 2 {
				t.Fatalf("show: files %v and %v, want Calc.go and calc.go apart", fa, fb)
			}
			cd, err := compare.Coverage(ctx, r, s.covA, s.covB, compare.Options{})
			if err != nil {
				t.Fatal(err)
			}
			la, lb := show[s.covA].Coverage.Lines, show[s.covB].Coverage.Lines
			if got := (readback.Ratio{Covered: cd.Lines.CoveredA, Total: cd.Lines.TotalA}); got != la {
				t.Errorf("lines of A: compare %v, show %v", got, la)
			}
			if got := (readback.Ratio{Covered: cd.Lines.CoveredB, Total: cd.Lines.TotalB}); got != lb {
				t.Errorf("lines of B: compare %v, show %v", got, lb)
			}
			if cd.Files.Total != 2 || cd.RoutineList.Total != 2 {
				t.Errorf("compare: %d files and %d routines in both, want 2 and 2", cd.Files.Total, cd.RoutineList.Total)
			}
			for _, f := range cd.Files.Items {
				a, b := readback.Ratio{Covered: f.CoveredA, Total: f.TotalA}, readback.Ratio{Covered: f.CoveredB, Total: f.TotalB}
				if a != fa[f.File] || b != fb[f.File] {
					t.Errorf("file %s: compare %v -> %v, show %v -> %v", f.File, a, b, fa[f.File], fb[f.File])
				}
			}
			rep, err := gate.Check(ctx, r, s.covB, gate.Options{MinCoverage: pct(100), Baseline: s.covA, MaxDrop: pct(100)})
			if err != nil {
				t.Fatal(err)
			}
			if c := rep.Rules[0].Coverage; *c != lb {
				t.Errorf("check min-coverage: %v, show %v", *c, lb)
			}
			if c, b := rep.Rules[1].Coverage, rep.Rules[1].Before; *c != lb || *b != la {
				t.Errorf("check max-drop: %v from %v, show %v from %v", *c, *b, lb, la)
			}
			if n := len(rep.Rules[0].Files); n != 2 {
				t.Errorf("check min-coverage names %d files, want Calc.go and calc.go", n)
			}
			for _, f := range rep.Rules[0].Files {
				if f.After != fb[f.Name] {
					t.Errorf("check: file %s %v, show %v", f.Name, f.After, fb[f.Name])
				}
			}

			// Time: calls, own time, total time.
			ta, tb := show[s.ftA].Trace, show[s.ftB].Trace
			td, err := compare.Trace(ctx, r, s.ftA, s.ftB, compare.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if td.Calls.A != float64(ta.Calls) || td.Calls.B != float64(tb.Calls) {
				t.Errorf("calls: compare %v -> %v, show %d -> %d", td.Calls.A, td.Calls.B, ta.Calls, tb.Calls)
			}
			if td.Time.A != float64(ta.TotalTime) || td.Time.B != float64(tb.TotalTime) {
				t.Errorf("total time: compare %v -> %v, show %d -> %d", td.Time.A, td.Time.B, ta.TotalTime, tb.TotalTime)
			}
			if ta.TotalTime != 5+2*10+7+4 || tb.TotalTime != 5+3*12+7+4 {
				t.Errorf("show: total time %d and %d, want main's time with children 36 and 52", ta.TotalTime, tb.TotalTime)
			}
			if ta.Calls != 1+2+1 || tb.Calls != 1+3+1 {
				t.Errorf("show: calls %d and %d, want the routines' hit counts 4 and 5", ta.Calls, tb.Calls)
			}
			byName := func(tr *readback.Trace) map[string]readback.RoutineTime {
				out := map[string]readback.RoutineTime{}
				for _, x := range tr.ByOwn.Items {
					out[x.FullName()] = x
				}
				return out
			}
			ra, rb := byName(ta), byName(tb)
			if td.Routines.Total != 3 {
				t.Errorf("compare: %d routines, want main, Calc and calc", td.Routines.Total)
			}
			for _, x := range td.Routines.Items {
				a, b := ra[x.FullName()], rb[x.FullName()]
				if x.Calls.A != float64(a.Calls) || x.Calls.B != float64(b.Calls) || x.Own.A != float64(a.Own) || x.Own.B != float64(b.Own) ||
					x.WithChild.A != float64(a.WithChild) || x.WithChild.B != float64(b.WithChild) {
					t.Errorf("routine %s: compare %+v, show %+v -> %+v", x.FullName(), x, a, b)
				}
			}
			rep, err = gate.Check(ctx, r, s.ftB, gate.Options{Baseline: s.ftA, MaxTimeIncrease: pct(0)})
			if err != nil {
				t.Fatal(err)
			}
			rule := rep.Rules[0]
			want := float64(tb.TotalTime-ta.TotalTime) * 100 / float64(ta.TotalTime)
			if rule.Value != want || rule.Passed {
				t.Errorf("check max-time-increase: %v%% (passed %v), show's totals %d -> %d give %v%%", rule.Value, rule.Passed, ta.TotalTime, tb.TotalTime, want)
			}
			if tt := rule.Time; tt == nil || tt.Before != float64(ta.TotalTime) || tt.After != float64(tb.TotalTime) || tt.Unit != "Ticks" {
				t.Errorf("check max-time-increase: total time %+v, show's totals %d -> %d Ticks", tt, ta.TotalTime, tb.TotalTime)
			}
			if len(rule.Routines) != 1 || rule.Routines[0].Name != "Calc" {
				t.Fatalf("check: routines that slowed %+v, want Calc only", rule.Routines)
			}
			if x := rule.Routines[0]; x.Before != float64(ra["Calc"].Own) || x.After != float64(rb["Calc"].Own) {
				t.Errorf("check: Calc %v -> %v, show %d -> %d", x.Before, x.After, ra["Calc"].Own, rb["Calc"].Own)
			}
		})
	}
}

// Check's rules on their own, and what it refuses.
func TestCheck(t *testing.T) {
	ctx := context.Background()
	dsn := dbtest.Fresh(t, "sqlite")
	s := exportSets(t, dsn)
	r := open(t, dsn)

	// A: Calc.go 3 of 4 lines, calc.go 1 of 2: 4 of 6. B: 2 of 5 and 1 of
	// 2: 3 of 7.
	rep, err := gate.Check(ctx, r, s.covA, gate.Options{MinCoverage: pct(66)})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Passed || rep.Rules[0].Coverage.Covered != 4 || rep.Rules[0].Coverage.Total != 6 {
		t.Errorf("min-coverage 66 on 4 of 6: %+v", rep.Rules[0])
	}
	rep, err = gate.Check(ctx, r, s.covA, gate.Options{MinCoverage: pct(67)})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed || len(rep.Failed()) != 1 {
		t.Errorf("min-coverage 67 on 4 of 6 passed: %+v", rep.Rules[0])
	}
	// max-drop: 66.7% to 42.9%, 23.8 points; Calc.go lost most (one
	// more line, one fewer covered: 2 more missed).
	rep, err = gate.Check(ctx, r, s.covB, gate.Options{Baseline: s.covA, MaxDrop: pct(23)})
	if err != nil {
		t.Fatal(err)
	}
	if d := rep.Rules[0]; d.Passed || len(d.Files) != 1 || d.Files[0].Name != "Calc.go" || d.Files[0].Missed != 2 {
		t.Errorf("max-drop 23 of 23.8 points: %+v", d)
	}
	rep, err = gate.Check(ctx, r, s.covB, gate.Options{Baseline: s.covA, MaxDrop: pct(24)})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Passed {
		t.Errorf("max-drop 24 of 23.8 points failed: %+v", rep.Rules[0])
	}
	// patch-coverage: lines 2-5 of src/Calc.go changed; 2 ran in B, 3 to
	// 5 did not; lib/calc.go matches calc.go, not Calc.go, and its line 2
	// did not run.
	p := &gate.Patch{Files: []gate.ChangedFile{{Path: "src/Calc.go", Runs: []gate.Span{{From: 2, To: 5}}}, {Path: "lib/calc.go", Runs: []gate.Span{{From: 2, To: 2}}}}}
	rep, err = gate.Check(ctx, r, s.covB, gate.Options{Diff: p, MinPatchCoverage: pct(50)})
	if err != nil {
		t.Fatal(err)
	}
	pc := rep.Rules[0]
	var ranges []string
	for _, l := range pc.Lines {
		ranges = append(ranges, l.String())
	}
	if pc.Passed || pc.Coverage.Covered != 1 || pc.Coverage.Total != 5 || strings.Join(ranges, " ") != "src/Calc.go:3-5 lib/calc.go:2" {
		t.Errorf("patch coverage: %+v, ranges %v", pc, ranges)
	}

	for _, tc := range []struct {
		name string
		o    gate.Options
		inst int64
		is   []error
		want string
	}{
		{"no rule", gate.Options{}, s.covA, []error{gate.ErrUsage}, "no rule given"},
		{"no baseline", gate.Options{MaxDrop: pct(1)}, s.covA, []error{gate.ErrUsage}, "set gate.Options.Baseline"},
		{"coverage rule on a trace", gate.Options{MinCoverage: pct(1)}, s.ftA, []error{gate.ErrUsage}, "need a light-coverage one"},
		{"baseline of another profiler", gate.Options{Baseline: s.ftA, MaxDrop: pct(1)}, s.covA, []error{gate.ErrUsage, readback.ErrIncomparable},
			fmt.Sprintf("result set %d is function-trace, result set %d is light-coverage", s.ftA, s.covA)},
		{"baseline of another counter", gate.Options{Baseline: s.ftOther, MaxTimeIncrease: pct(1)}, s.ftA, []error{gate.ErrUsage, readback.ErrIncomparable},
			"different counters"},
		{"no such result set", gate.Options{MinCoverage: pct(1)}, 99, nil, "no result set 99"},
	} {
		_, err := gate.Check(ctx, r, tc.inst, tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.want)
			continue
		}
		for _, target := range tc.is {
			if !errors.Is(err, target) {
				t.Errorf("%s: %v is not %v", tc.name, err, target)
			}
		}
	}
}
