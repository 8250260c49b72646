package referencecount_test

import (
	"context"
	"testing"

	"github.com/profdb/profdb/ddl"
	rc "github.com/profdb/profdb/profilers/referencecount"
	"github.com/profdb/profdb/resultset"
)

func check(t *testing.T, set resultset.MemorySet, table string, row int, want map[string]any) {
	t.Helper()
	tb := set.Tables[table]
	if tb == nil || row >= len(tb.Rows) {
		t.Fatalf("%s: no row %d", table, row)
	}
	for col, w := range want {
		if i, ok := w.(int); ok {
			w = int64(i)
		}
		got := tb.Value(row, col)
		if d, ok := got.(ddl.Dec); ok {
			got = string(d)
		}
		if got != w {
			t.Errorf("%s row %d %s = %#v, want %#v", table, row, col, got, w)
		}
	}
}

func TestBuilder(t *testing.T) {
	b := rc.NewBuilder()
	t0 := b.AddThread(rc.ThreadInfo{Name: "main", Size: 10, Win32ThreadID: "0x1F"})
	t1 := b.AddThread(rc.ThreadInfo{Name: "worker"})
	cls := b.Class("TFoo", "app.exe")
	cls.Add(rc.ClassStats{LiveCount: 1, TotalCreated: 2})
	cls.Add(rc.ClassStats{LiveCount: 1, PeakCreated: 3})
	create := b.AddRoutine(rc.RoutineInfo{Name: "Create", Module: "app.exe", HitCount: 2, LineLevel: true})
	use := b.AddRoutine(rc.RoutineInfo{Name: "Use", Module: "app.exe"})
	o := b.AddObject(rc.ObjectInfo{Class: cls, Thread: t1, Number: 1, Address: 4096, LiveReferences: 1, PeakReferences: 2, TotalReferences: 3})
	o.AddCreationFrame(rc.Frame{Routine: create, SourceLine: 20, HitCount: 1})
	o.AddCreationFrame(rc.Frame{Routine: use, SourceLine: 5})
	o.AddCreationFrame(rc.Frame{Routine: create, SourceLine: 20})
	b.AddReference(o, 1, true, rc.StackEntry{Routine: use, SourceLine: 6}, rc.StackEntry{Thread: t1}, rc.StackEntry{})
	b.AddReference(o, 2, false, rc.StackEntry{Thread: t0})
	top := o.AddTreeNode(nil, rc.TreeNodeInfo{Entry: rc.StackEntry{Thread: t1}})
	mid := o.AddTreeNode(top, rc.TreeNodeInfo{Entry: rc.StackEntry{Routine: use, SourceLine: 6}, HitCountOnEnter: 1, RefCountChange: 1})
	o.AddTreeNode(mid, rc.TreeNodeInfo{Entry: rc.StackEntry{Routine: create}, RefCountChange: -1})
	o2 := b.AddObject(rc.ObjectInfo{Number: 2})
	b.AddReference(o2, 1, true)

	var mem resultset.Memory
	if _, err := b.Export(context.Background(), &mem, "rc"); err != nil {
		t.Fatal(err)
	}
	set := mem.Sets[0]
	if len(set.Order) != 10 {
		t.Errorf("%d tables", len(set.Order))
	}
	check(t, set, rc.Threads, 1, map[string]any{"COL_NAME": "worker", "ID": 1, "REC_ID": 1, "PARENT_ID": -1, "COL_WIN32THREADID": ""})
	check(t, set, rc.Threads, 0, map[string]any{"COL_WIN32THREADID": "0x1F", "COL_SIZE": 10})
	check(t, set, rc.ClassesData, 0, map[string]any{"COL_CLASS_NAME": "TFoo", "COL_LIVE_COUNT": 2, "COL_TOTAL_CREATED": 2,
		"COL_PEAK_CREATED": 3, "COL_MODULE_NAME": "app.exe", "REC_ID": 0, "PARENT_ID": -1})
	check(t, set, rc.MetaRoutines, 0, map[string]any{"COL_ROUTINENAME": "Create", "COL_PROFILELINES": -1, "COL_HIT_COUNT": 2, "REC_ID": 0})
	// META_LINES REC_ID is zero-based within the result set.
	check(t, set, rc.MetaLines, 0, map[string]any{"COL_SOURCE_LINE": 20, "PARENT_ID": 0, "REC_ID": 0, "ID": 0})
	check(t, set, rc.MetaLines, 1, map[string]any{"COL_SOURCE_LINE": 5, "PARENT_ID": 1, "REC_ID": 1, "ID": 1})
	if n := len(set.Tables[rc.MetaLines].Rows); n != 2 {
		t.Errorf("META_LINES %d rows, want 2", n)
	}
	check(t, set, rc.Objects, 0, map[string]any{"COL__": 1, "COL_ADDRESS": 4096, "COL_CLASSRID": 0, "COL_THREADRID": 1,
		"COL_LIVE_REFERENCES": 1, "COL_PEAK_REFERENCES": 2, "COL_TOTAL_REFERENCES": 3, "REC_ID": 0})
	check(t, set, rc.Objects, 1, map[string]any{"COL_CLASSRID": nil, "REC_ID": 1, "ID": 1})
	check(t, set, rc.CreationCallStack, 1, map[string]any{"COL_ROUTINERID": 1, "COL_LINERID": 1, "PARENT_ID": 0, "REC_ID": 1})
	check(t, set, rc.CreationCallStack, 2, map[string]any{"COL_ROUTINERID": 0, "COL_LINERID": 0, "REC_ID": 2})
	check(t, set, rc.References, 0, map[string]any{"COL__": 1, "COL_ADDREF_RELEASE": 1, "PARENT_ID": 0, "REC_ID": 0, "ID": 0})
	check(t, set, rc.References, 1, map[string]any{"COL_ADDREF_RELEASE": 0, "REC_ID": 1})
	check(t, set, rc.References, 2, map[string]any{"PARENT_ID": 1, "REC_ID": 0, "ID": 2})
	check(t, set, rc.AddrefReleaseCallStack, 0, map[string]any{"COL_ROUTINE_NAME": 1, "COL_SOURCE_LINE": "6", "COL_CALL_NO": 0, "PARENT_ID": 0})
	check(t, set, rc.AddrefReleaseCallStack, 1, map[string]any{"COL_ROUTINE_NAME": -3, "COL_SOURCE_LINE": nil, "REC_ID": 1})
	check(t, set, rc.AddrefReleaseCallStack, 2, map[string]any{"COL_ROUTINE_NAME": -1, "REC_ID": 2})
	check(t, set, rc.AddrefReleaseCallStack, 3, map[string]any{"COL_ROUTINE_NAME": -2, "PARENT_ID": 1, "REC_ID": 0, "ID": 3})
	check(t, set, rc.RefcountTree, 0, map[string]any{"COL_PARENT_INDEX": -1, "COL_ROUTINE_NAME": -3, "REC_ID": 0, "PARENT_ID": 0})
	check(t, set, rc.RefcountTree, 1, map[string]any{"COL_PARENT_INDEX": 0, "COL_ROUTINE_NAME": 1, "COL_SOURCE_LINE": 6,
		"COL_ROUTINE_HITCOUNT_ON_ENTER": 1, "COL_RESULT_REFCOUNT": 1, "REC_ID": 1})
	check(t, set, rc.RefcountTree, 2, map[string]any{"COL_PARENT_INDEX": 1, "COL_ROUTINE_NAME": 0, "COL_RESULT_REFCOUNT": -1, "COL_SOURCE_LINE": nil})
}
