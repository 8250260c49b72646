package functiontrace_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/resultset"
)

func val(tb *resultset.MemoryTable, row int, col string) any {
	v := tb.Value(row, col)
	if d, ok := v.(ddl.Dec); ok {
		return string(d)
	}
	return v
}

func check(t *testing.T, tb *resultset.MemoryTable, name string, row int, want map[string]any) {
	t.Helper()
	if row >= len(tb.Rows) {
		t.Fatalf("%s: no row %d", name, row)
	}
	for col, w := range want {
		if i, ok := w.(int); ok {
			w = int64(i)
		}
		if got := val(tb, row, col); got != w {
			t.Errorf("%s row %d %s = %#v, want %#v", name, row, col, got, w)
		}
	}
}

// byRec indexes CALL_TRACE rows by (PARENT_ID, REC_ID): the builder writes
// a call's row when its next sibling is known, not in Enter order.
func byRec(t *testing.T, tb *resultset.MemoryTable) map[[2]int64]int {
	m := map[[2]int64]int{}
	for i := range tb.Rows {
		k := [2]int64{tb.Value(i, "PARENT_ID").(int64), tb.Value(i, "REC_ID").(int64)}
		if _, dup := m[k]; dup {
			t.Errorf("CALL_TRACE: (thread %d, REC_ID %d) twice", k[0], k[1])
		}
		m[k] = i
	}
	return m
}

func build(t *testing.T, memLimit int, dir string) (*functiontrace.Builder, []*functiontrace.Routine) {
	b := functiontrace.NewBuilder()
	b.SetSpool(memLimit, dir)
	b.SetCounter(&resultset.Counter{Name: "Time", Description: "Elapsed Time", Frequency: 1000000})
	a := b.AddRoutine(functiontrace.RoutineInfo{Name: "a", Class: "A", Namespace: "p", Module: "p",
		SourceFile: "A.java", SourceLine: 3, CodeType: "Byte-code", LineLevel: true, Address: 10, Token: 5})
	bb := b.AddRoutine(functiontrace.RoutineInfo{Name: "b", Module: "q"})
	c := b.AddRoutine(functiontrace.RoutineInfo{Name: "c", Module: "q", SourceFile: "C.java", SourceLine: 9})
	a.AddLine(3)
	a.AddLine(4)
	c.AddParameter(functiontrace.ParameterType{TypeID: 9, MemSize: 4, TypeName: "int"})

	t0 := b.AddThread(functiontrace.ThreadInfo{Win32ThreadID: 1234})
	t1 := b.AddThread(functiontrace.ThreadInfo{})
	enter := func(th *functiontrace.Thread, r *functiontrace.Routine, n, s, sc int64, params ...functiontrace.Param) {
		t.Helper()
		if _, err := th.Enter(functiontrace.CallInfo{Routine: r, Count: n, Time: s, TimeWithChildren: sc, Params: params}); err != nil {
			t.Fatal(err)
		}
	}
	exit := func(th *functiontrace.Thread, params ...functiontrace.Param) {
		t.Helper()
		if err := th.Exit(params...); err != nil {
			t.Fatal(err)
		}
	}
	enter(t0, a, 2, 10, 100)
	enter(t0, bb, 1, 20, 50, functiontrace.Param{Type: "int", Value: "1"}, functiontrace.Param{Type: "String", Value: "x"})
	enter(t0, c, 1, 5, 5)
	exit(t0)
	exit(t0, functiontrace.Param{Type: "int", Value: "7", Comment: "result"})
	enter(t0, c, 3, 7, 7)
	exit(t0)
	exit(t0)
	enter(t0, a, 1, 1, 2)
	enter(t0, bb, 2, 1, 1)
	// left open: ResultSet ends it
	enter(t1, bb, 1, 0, 0)
	enter(t1, c, 1, 0, 0)
	exit(t1)
	exit(t1)
	if err := t1.Exit(); err == nil {
		t.Error("Exit on an empty stack succeeded")
	}
	if _, err := t1.Enter(functiontrace.CallInfo{}); err == nil {
		t.Error("Enter without routine succeeded")
	}
	return b, []*functiontrace.Routine{a, bb, c}
}

func TestBuilder(t *testing.T) {
	for _, limit := range []int{1, 0} {
		t.Run(fmt.Sprint("spool", limit), func(t *testing.T) {
			dir := t.TempDir()
			b, _ := build(t, limit, dir)
			var mem resultset.Memory
			res, err := b.Export(context.Background(), &mem, "trace")
			if err != nil {
				t.Fatal(err)
			}
			set := mem.Sets[0]
			if set.Header.Counter == nil || set.Header.Counter.Name != "Time" {
				t.Errorf("counter %+v", set.Header.Counter)
			}
			if len(set.Order) != 10 {
				t.Errorf("%d tables, want 10", len(set.Order))
			}
			if res.Tables[functiontrace.CallTrace] != 8 {
				t.Errorf("CALL_TRACE rows %d, want 8", res.Tables[functiontrace.CallTrace])
			}
			ct := set.Tables[functiontrace.CallTrace]
			idx := byRec(t, ct)
			type call struct {
				thread, rec, parentNo, next, routine, id, s, sc int
			}
			calls := []call{
				{0, 0, -1, 4, 0, 0, 10, 100},
				{0, 1, 0, 3, 1, 1, 20, 50},
				{0, 2, 1, -1, 2, 2, 5, 5},
				{0, 3, 0, -1, 2, 3, 7, 7},
				{0, 4, -1, -1, 0, 4, 1, 2},
				{0, 5, 4, -1, 1, 5, 1, 1},
				{1, 0, -1, -1, 1, 6, 0, 0},
				{1, 1, 0, -1, 2, 7, 0, 0},
			}
			for _, c := range calls {
				i, ok := idx[[2]int64{int64(c.thread), int64(c.rec)}]
				if !ok {
					t.Errorf("no call thread %d REC_ID %d", c.thread, c.rec)
					continue
				}
				check(t, ct, "CALL_TRACE", i, map[string]any{"COL_PARENT_NO": c.parentNo, "COL_NEXT": c.next,
					"COL_RECID": c.routine, "COL_ROUTINE_NAME": c.routine, "ID": c.id, "COL_CALL_NO": c.rec,
					"COL__S": c.s, "COL__S_WITH_CHILDREN": c.sc, "COL_LINE_NUMBER": nil})
			}

			th := set.Tables[functiontrace.Threads]
			check(t, th, "THREADS", 0, map[string]any{"COL_WIN32THREADID": 1234, "ID": 0, "PARENT_ID": -1, "COL_LINE_NUMBER": nil})
			check(t, th, "THREADS", 1, map[string]any{"COL_WIN32THREADID": nil, "ID": 1})

			ro := set.Tables[functiontrace.Routines]
			mr := set.Tables[functiontrace.MetaRoutines]
			for i, hits := range []int{3, 4, 5} {
				check(t, ro, "ROUTINES", i, map[string]any{"COL_HIT_COUNT": hits, "ID": i, "REC_ID": i, "PARENT_ID": -1})
				check(t, mr, "META_ROUTINES", i, map[string]any{"ID": i, "REC_ID": i, "PARENT_ID": -1})
			}
			check(t, mr, "META_ROUTINES", 0, map[string]any{"COL_ROUTINE_NAME": "a", "COL_CLASS_NAME": "A",
				"COL_NAMESPACE": "p", "COL_MODULE_NAME": "p", "COL_SOURCE_FILE": "A.java", "COL_SOURCE_LINE": 3,
				"COL_CODE_TYPE": "Byte-code", "COL_PROFILELINES": 1, "COL_ISCLASSFUNCTION": 1, "COL_ADDRESS": "10",
				"COL_TOKEN": 5, "COL_ACTIONDISABLEROUTINE": nil, "COL_TRIGGERACTIVE": 0})
			check(t, mr, "META_ROUTINES", 1, map[string]any{"COL_PROFILELINES": 0, "COL_ISCLASSFUNCTION": 0})

			// Routes: [a] [a b] [a b c] [a c] [b] [b c].
			cr := set.Tables[functiontrace.CallRoutes]
			type rt struct{ routine, hits, rec int }
			routes := []rt{{0, 3, 0}, {1, 3, 0}, {2, 1, 0}, {2, 3, 1}, {1, 1, 1}, {2, 1, 2}}
			if len(cr.Rows) != len(routes) {
				t.Fatalf("CALL_ROUTES %d rows, want %d", len(cr.Rows), len(routes))
			}
			for i, r := range routes {
				check(t, cr, "CALL_ROUTES", i, map[string]any{"ID": i, "PARENT_ID": r.routine, "COL_RECID": r.routine,
					"COL_HIT_COUNT": r.hits, "REC_ID": r.rec, "COL_ROUTE_NO": r.rec})
			}
			cs := set.Tables[functiontrace.CallStack]
			// route: routines from the top of the stack (the route's routine) down.
			stacks := [][]int{{0}, {1, 0}, {2, 1, 0}, {2, 0}, {1}, {2, 1}}
			n := 0
			for route, st := range stacks {
				for callNo, r := range st {
					check(t, cs, "CALL_STACK", n, map[string]any{"PARENT_ID": route, "COL_CALL_NO": callNo,
						"REC_ID": callNo, "COL_RECID": r, "COL_ROUTINE_NAME": r, "ID": n})
					n++
				}
			}
			if len(cs.Rows) != n {
				t.Errorf("CALL_STACK %d rows, want %d", len(cs.Rows), n)
			}
			check(t, cs, "CALL_STACK", 3, map[string]any{"COL_MODULE_NAME": "q", "COL_SOURCE_FILE": "C.java", "COL_SOURCE_LINE": "9"})

			ml := set.Tables[functiontrace.MetaLines]
			check(t, ml, "META_LINES", 1, map[string]any{"COL_SOURCE_LINE": 4, "PARENT_ID": 0, "REC_ID": 1, "ID": 1})
			mp := set.Tables[functiontrace.MetaParameters]
			check(t, mp, "METAPARAMETERS", 0, map[string]any{"COL_TYPEID": 9, "COL_TYPEMEMSIZE": 4, "COL_TYPENAME": "int", "PARENT_ID": 2})
			pe := set.Tables[functiontrace.ParametersOnEnter]
			check(t, pe, "PARAMETERS_ON_ENTER", 1, map[string]any{"COL_PARAM_NO": 1, "COL_PARAM_TYPE": "String",
				"COL_PARAM_VALUE": "x", "PARENT_ID": 1, "REC_ID": 1, "ID": 1})
			px := set.Tables[functiontrace.ParametersOnExit]
			check(t, px, "PARAMETERS_ON_EXIT", 0, map[string]any{"COL_COMMENT": "result", "COL_PARAM_VALUE": "7", "PARENT_ID": 1})

			if ents := readDir(t, dir); (len(ents) > 0) != (limit == 1) {
				t.Errorf("spool files %v with memory limit %d", ents, limit)
			}
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			if ents := readDir(t, dir); len(ents) != 0 {
				t.Errorf("files left: %v", ents)
			}
		})
	}
}

// readDir lists dir; an error fails the test.
func readDir(t *testing.T, dir string) []os.DirEntry {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ents
}

// TestClosed: after Close, exporting fails instead of writing empty call rows.
func TestClosed(t *testing.T) {
	b, rs := build(t, 0, t.TempDir())
	th := b.AddThread(functiontrace.ThreadInfo{})
	b.Close()
	if _, err := th.Enter(functiontrace.CallInfo{Routine: rs[0]}); err == nil {
		t.Error("Enter after Close succeeded")
	}
	var mem resultset.Memory
	if _, err := b.Export(context.Background(), &mem, "x"); err == nil {
		t.Error("Export after Close succeeded")
	}
	if len(mem.Sets) != 0 {
		t.Error("something committed")
	}
}
