package merge_test

import (
	"fmt"
	"testing"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/merge"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/resultset"
)

// ft describes a Function Trace result set for the builder: routines in
// order, then threads, each with its call tree.
type ft struct {
	routines []ftRoutine
	threads  []ftThread
}

type ftRoutine struct {
	name, module, file string
	line               int64
	lines              []int64
	param              string // the type name of its one parameter, "" for none
}

type ftThread struct {
	win   int64
	calls []ftCall
}

type ftCall struct {
	routine                  string
	count, self, all, lineNo int64
	enter, exit              string // a parameter value on entry, on exit; "" for none
	children                 []ftCall
}

var elapsed = &resultset.Counter{Name: "Elapsed Time", Description: "Elapsed Time", Frequency: 1000000}

func (s ft) export(t *testing.T, x *exporter.Exporter, caption string) int64 {
	t.Helper()
	b := functiontrace.NewBuilder()
	defer b.Close()
	b.SetCounter(elapsed)
	rs := map[string]*functiontrace.Routine{}
	for _, r := range s.routines {
		br := b.AddRoutine(functiontrace.RoutineInfo{Name: r.name, Module: r.module, SourceFile: r.file,
			SourceLine: r.line, Class: "C", Namespace: "ns", CodeType: "x64", LineLevel: true, Token: 7})
		for _, l := range r.lines {
			br.AddLine(l)
		}
		if r.param != "" {
			br.AddParameter(functiontrace.ParameterType{TypeID: 9, MemSize: 4, TypeName: r.param})
		}
		rs[r.name] = br
	}
	var enter func(th *functiontrace.Thread, cs []ftCall)
	enter = func(th *functiontrace.Thread, cs []ftCall) {
		for _, c := range cs {
			var in, out []functiontrace.Param
			if c.enter != "" {
				in = []functiontrace.Param{{Type: "int", Value: c.enter}, {Type: "string", Value: c.enter + "!"}}
			}
			if c.exit != "" {
				out = []functiontrace.Param{{Type: "bool", Value: c.exit, Comment: "Result"}}
			}
			if _, err := th.Enter(functiontrace.CallInfo{Routine: rs[c.routine], Count: c.count, Time: c.self,
				TimeWithChildren: c.all, LineNumber: c.lineNo, Params: in}); err != nil {
				t.Fatal(err)
			}
			enter(th, c.children)
			if err := th.Exit(out...); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, th := range s.threads {
		enter(b.AddThread(functiontrace.ThreadInfo{Win32ThreadID: th.win}), th.calls)
	}
	res, err := b.Export(t.Context(), x, caption)
	if err != nil {
		t.Fatal(err)
	}
	return res.InstID
}

// The inputs: B declares the routines in another order (so other IDs), and
// its threads in another order (matched by thread id; the one without is
// matched by position); it lacks A's second call of f from main and adds a
// routine h and a call of it; main's lines differ; f's parameter and the
// parameter values of its first call differ (the merge keeps A's).
// CALL_TRACE has no count column: a call's count is its route's hit count
// shared among the route's calls, so the calls of one route (main at the
// top of the threads: 5 hits, 3 calls) have counts as that sharing gives
// them (2, 2, 1 in thread order), and the merge finds them again.
var (
	ftA = ft{
		routines: []ftRoutine{
			{name: "main", module: "m", file: "m.go", line: 1, lines: []int64{1, 2}},
			{name: "f", module: "m", file: "f.go", line: 10, lines: []int64{10}, param: "int"},
			{name: "g", module: "m", file: "g.go", line: 20},
		},
		threads: []ftThread{
			{win: 100, calls: []ftCall{{routine: "main", count: 1, self: 10, all: 100, children: []ftCall{
				{routine: "f", count: 1, self: 20, all: 30, lineNo: 3, enter: "1", exit: "true", children: []ftCall{
					{routine: "g", count: 1, self: 10, all: 10},
				}},
				{routine: "f", count: 1, self: 5, all: 5},
				{routine: "g", count: 2, self: 40, all: 40},
				{routine: "f", count: 1, self: 1, all: 1}, // the third call of f from main
			}}}},
			{win: 200, calls: []ftCall{{routine: "main", count: 1, self: 7, all: 7}}},
			{calls: []ftCall{{routine: "main", count: 1, self: 1, all: 1}}},
		},
	}
	ftB = ft{
		routines: []ftRoutine{
			{name: "g", module: "m", file: "g.go", line: 20},
			{name: "h", module: "n", file: "h.go", line: 5},
			{name: "main", module: "m", file: "m.go", line: 1, lines: []int64{2, 3}},
			{name: "f", module: "m", file: "f.go", line: 10, lines: []int64{10}, param: "long"},
		},
		threads: []ftThread{
			{win: 200, calls: []ftCall{{routine: "main", count: 2, self: 9, all: 20, children: []ftCall{
				{routine: "h", count: 1, self: 11, all: 11, lineNo: 5, exit: "done"},
			}}}},
			{win: 100, calls: []ftCall{{routine: "main", count: 2, self: 30, all: 150, children: []ftCall{
				{routine: "f", count: 1, self: 40, all: 60, lineNo: 4, enter: "2", exit: "false", children: []ftCall{
					{routine: "g", count: 1, self: 20, all: 20},
				}},
				{routine: "g", count: 1, self: 80, all: 80},
			}}}},
			{calls: []ftCall{{routine: "main", count: 1, self: 2, all: 2}}},
		},
	}
)

// ftMergedAB is the merge of A and B under op; each figure is given under
// sum, avg, max, min.
func ftMergedAB(op merge.Op) ft {
	p := func(w [4]int64) int64 { return w[op] }
	return ft{
		routines: []ftRoutine{
			{name: "main", module: "m", file: "m.go", line: 1, lines: []int64{1, 2, 3}},
			{name: "f", module: "m", file: "f.go", line: 10, lines: []int64{10}, param: "int"},
			{name: "g", module: "m", file: "g.go", line: 20},
			{name: "h", module: "n", file: "h.go", line: 5},
		},
		threads: []ftThread{
			{win: 100, calls: []ftCall{{routine: "main", count: p([4]int64{3, 2, 2, 1}), self: p([4]int64{40, 20, 30, 10}),
				all: p([4]int64{250, 125, 150, 100}), children: []ftCall{
					{routine: "f", count: p([4]int64{2, 1, 1, 1}), self: p([4]int64{60, 30, 40, 20}), all: p([4]int64{90, 45, 60, 30}),
						lineNo: 3, enter: "1", exit: "true", children: []ftCall{
							{routine: "g", count: p([4]int64{2, 1, 1, 1}), self: p([4]int64{30, 15, 20, 10}), all: p([4]int64{30, 15, 20, 10})},
						}},
					{routine: "f", count: 1, self: 5, all: 5}, // A only
					{routine: "g", count: p([4]int64{3, 2, 2, 1}), self: p([4]int64{120, 60, 80, 40}), all: p([4]int64{120, 60, 80, 40})},
					{routine: "f", count: 1, self: 1, all: 1}, // A only
				}}}},
			{win: 200, calls: []ftCall{{routine: "main", count: p([4]int64{3, 2, 2, 1}), self: p([4]int64{16, 8, 9, 7}),
				all: p([4]int64{27, 14, 20, 7}), children: []ftCall{
					{routine: "h", count: 1, self: 11, all: 11, lineNo: 5, exit: "done"}, // B only
				}}}},
			{calls: []ftCall{{routine: "main", count: p([4]int64{2, 1, 1, 1}), self: p([4]int64{3, 2, 2, 1}), all: p([4]int64{3, 2, 2, 1})}}},
		},
	}
}

func TestMergeFunctionTrace(t *testing.T) {
	for _, dn := range dialectNames {
		t.Run(dn, func(t *testing.T) {
			db, x := open(t, dn)
			a := ftA.export(t, x, "A")
			b := ftB.export(t, x, "B")
			for _, op := range []merge.Op{merge.Sum, merge.Avg, merge.Max, merge.Min} {
				res, err := merge.Merge(t.Context(), db, []int64{a, b}, op, "", x)
				if err != nil {
					t.Fatalf("%s: %v", op, err)
				}
				if want := fmt.Sprintf("merge (%s) of %d, %d", op, a, b); res.Caption != want || res.Profiler != functiontrace.Name {
					t.Errorf("%s: result %+v, want caption %q", op, res, want)
				}
				verified(t, db, res.InstID)
				got := read(t, db, res.InstID)
				sameTables(t, op.String(), got, read(t, db, ftMergedAB(op).export(t, x, "want")))
				// Hit counts are rebuilt from the merged calls: g is called
				// from f and from main in thread 100.
				routines := got[functiontrace.Routines]
				if len(routines) != 4 || routines[2][11] != int64(2) { // g is the third routine, ID 2
					t.Fatalf("%s: ROUTINES %v", op, routines)
				}
				if want := p4(op, [4]int64{5, 3, 3, 2}); routines[2][4] != want {
					t.Errorf("%s: g's COL_HIT_COUNT %v, want %d", op, routines[2][4], want)
				}
			}
		})
	}
}

func p4(op merge.Op, w [4]int64) int64 { return w[op] }

// ftDoubled is s with every count and time doubled.
func ftDoubled(s ft) ft {
	var dbl func(cs []ftCall) []ftCall
	dbl = func(cs []ftCall) []ftCall {
		var out []ftCall
		for _, c := range cs {
			c.count, c.self, c.all = 2*c.count, 2*c.self, 2*c.all
			c.children = dbl(c.children)
			out = append(out, c)
		}
		return out
	}
	out := ft{routines: s.routines}
	for _, th := range s.threads {
		out.threads = append(out.threads, ftThread{win: th.win, calls: dbl(th.calls)})
	}
	return out
}

func TestMergeFunctionTraceWithItself(t *testing.T) {
	for _, dn := range dialectNames {
		t.Run(dn, func(t *testing.T) {
			db, x := open(t, dn)
			a := ftA.export(t, x, "A")
			orig := read(t, db, a)
			sum, err := merge.Merge(t.Context(), db, []int64{a, a}, merge.Sum, "twice", x)
			if err != nil {
				t.Fatal(err)
			}
			verified(t, db, sum.InstID)
			sameTables(t, "sum", read(t, db, sum.InstID), read(t, db, ftDoubled(ftA).export(t, x, "doubled")))
			for _, op := range []merge.Op{merge.Max, merge.Min, merge.Avg} {
				res, err := merge.Merge(t.Context(), db, []int64{a, a, a}, op, "same", x)
				if err != nil {
					t.Fatal(err)
				}
				verified(t, db, res.InstID)
				sameTables(t, op.String(), read(t, db, res.InstID), orig)
			}
		})
	}
}

// A generated trace of a few hundred calls, with many calls of a routine by
// one caller, deep and shallow, merged with itself under max, is itself.
func TestMergeFunctionTraceGenerated(t *testing.T) {
	for _, dn := range dialectNames {
		t.Run(dn, func(t *testing.T) {
			db, x := open(t, dn)
			b := functiontrace.NewBuilder()
			defer b.Close()
			b.SetCounter(elapsed)
			var rs []*functiontrace.Routine
			for i := range 7 {
				rs = append(rs, b.AddRoutine(functiontrace.RoutineInfo{Name: fmt.Sprint("r", i), Module: "m"}))
			}
			for w := range 2 {
				th := b.AddThread(functiontrace.ThreadInfo{Win32ThreadID: int64(w + 1)})
				for i := range 300 {
					if _, err := th.Enter(functiontrace.CallInfo{Routine: rs[(i*i+w)%7], Count: 1, Time: int64(i), TimeWithChildren: int64(2 * i)}); err != nil {
						t.Fatal(err)
					}
					for i%3 != 0 && th.Depth() > 0 || th.Depth() > 6 {
						if err := th.Exit(); err != nil {
							t.Fatal(err)
						}
						if i%5 != 0 {
							break
						}
					}
				}
			}
			res, err := b.Export(t.Context(), x, "generated")
			if err != nil {
				t.Fatal(err)
			}
			m, err := merge.Merge(t.Context(), db, []int64{res.InstID, res.InstID}, merge.Max, "", x)
			if err != nil {
				t.Fatal(err)
			}
			verified(t, db, m.InstID)
			sameTables(t, "max", read(t, db, m.InstID), read(t, db, res.InstID))
		})
	}
}
