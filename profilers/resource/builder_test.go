package resource_test

import (
	"context"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers/resource"
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
	b := resource.NewBuilder()
	t0 := b.AddThread(resource.ThreadInfo{Win32ThreadID: 77, Size: 4096})
	t1 := b.AddThread(resource.ThreadInfo{})
	rect := b.Class("Rectangle", "java.awt")
	rect.SetSymbolMoniker("java.awt.Rectangle")
	rect.Add(resource.ClassStats{LiveCount: 61, PeakCreated: 1446, Known: resource.LiveCount | resource.PeakCreated})
	if b.Class("Rectangle", "java.awt") != rect {
		t.Fatal("Class did not return the existing class")
	}
	rect.Add(resource.ClassStats{LiveCount: 45, PeakCreated: 88, Known: resource.LiveCount | resource.PeakCreated})
	obj := b.Class("Object", "java.lang")
	obj.Add(resource.ClassStats{LiveCount: 1, LiveSize: 16, PeakCreated: 2, PeakSize: 32, TotalCreated: 3, TotalSize: 48})

	alloc := b.AddRoutine(resource.RoutineInfo{Name: "alloc", Module: "m", HitCount: 5, LineLevel: true, Compiler: "MSVC"})
	main := b.AddRoutine(resource.RoutineInfo{Name: "main", Module: "m", SourceLine: 1})
	o := b.AddObject(resource.ObjectInfo{Class: rect, Thread: t1, Number: 1, Get: 2, Address: 0xffff, Size: 32})
	o.AddCreationFrame(resource.Frame{Routine: alloc, SourceLine: 12, HitCount: 1})
	o.AddCreationFrame(resource.Frame{Routine: main, SourceLine: 3, HitCount: 1})
	o2 := b.AddObject(resource.ObjectInfo{Number: 2})
	o2.AddCreationFrame(resource.Frame{Routine: alloc, SourceLine: 14})
	o2.AddCreationFrame(resource.Frame{Routine: alloc, SourceLine: 12})
	b.AddError(t0, resource.ErrorInfo{Number: 1, Description: "bad handle", Code: 6, Kind: 2, Name: "CloseHandle"})
	b.AddError(t1, resource.ErrorInfo{Number: 2, Name: "free"}, alloc, main)
	b.AddError(t1, resource.ErrorInfo{Number: 3, Name: "free"}, main)

	var mem resultset.Memory
	if _, err := b.Export(context.Background(), &mem, "mem"); err != nil {
		t.Fatal(err)
	}
	set := mem.Sets[0]
	if len(set.Order) != 9 {
		t.Errorf("%d tables", len(set.Order))
	}
	check(t, set, resource.Threads, 0, map[string]any{"COL_WIN32THREADID": 77, "COL_SIZE": 4096, "ID": 0, "PARENT_ID": -1, "REC_ID": 0})
	check(t, set, resource.Threads, 1, map[string]any{"COL_WIN32THREADID": nil, "ID": 1})
	check(t, set, resource.MetaClassesData, 0, map[string]any{"COL_CLASS_NAME": "Rectangle", "COL_MODULE_NAME": "java.awt",
		"COL_SYMBOL_MONIKER": "java.awt.Rectangle", "ID": 0, "REC_ID": 0, "PARENT_ID": -1})
	check(t, set, resource.ClassesData, 0, map[string]any{"COL_CLASS_NAME": "Rectangle", "COL_LIVE_COUNT": "106",
		"COL_PEAK_CREATED": "1534", "COL_LIVE_SIZE": nil, "COL_TOTAL_CREATED": nil, "ID": 0, "REC_ID": 0, "PARENT_ID": -1})
	check(t, set, resource.ClassesData, 1, map[string]any{"COL_LIVE_SIZE": "16", "COL_TOTAL_SIZE": "48", "ID": 1, "REC_ID": 1})
	check(t, set, resource.MetaRoutines, 0, map[string]any{"COL_HIT_COUNT": 5, "COL_PROFILELINES": -1, "COL_COMPILER": "MSVC",
		"COL_ROUTINE_NAME": "alloc", "ID": 0, "REC_ID": 0, "PARENT_ID": -1})
	check(t, set, resource.MetaRoutines, 1, map[string]any{"COL_PROFILELINES": 0})
	// alloc: lines 12 (REC_ID 0), 14 (REC_ID 1); main: line 3.
	check(t, set, resource.MetaLines, 0, map[string]any{"COL_SOURCE_LINE": 12, "PARENT_ID": 0, "REC_ID": 0, "ID": 0})
	check(t, set, resource.MetaLines, 1, map[string]any{"COL_SOURCE_LINE": 14, "PARENT_ID": 0, "REC_ID": 1, "ID": 2})
	check(t, set, resource.MetaLines, 2, map[string]any{"COL_SOURCE_LINE": 3, "PARENT_ID": 1, "REC_ID": 0, "ID": 1})
	check(t, set, resource.Objects, 0, map[string]any{"COL__": "1", "COL_CLASSRID": 0, "COL_THREADID": 1, "COL_GET_": 2,
		"COL_ADDRESS": "65535", "COL_SIZE": "32", "ID": 0, "PARENT_ID": -1})
	check(t, set, resource.Objects, 1, map[string]any{"COL_CLASSRID": nil, "COL_THREADID": nil, "ID": 1})
	check(t, set, resource.CreationCallStack, 0, map[string]any{"COL_ROUTINERID": 0, "COL_LINERID": 0, "PARENT_ID": 0, "REC_ID": 0, "ID": 0})
	check(t, set, resource.CreationCallStack, 1, map[string]any{"COL_ROUTINERID": 1, "COL_LINERID": 0, "PARENT_ID": 0, "REC_ID": 1})
	check(t, set, resource.CreationCallStack, 2, map[string]any{"COL_ROUTINERID": 0, "COL_LINERID": 1, "PARENT_ID": 1, "REC_ID": 0, "ID": 2})
	check(t, set, resource.CreationCallStack, 3, map[string]any{"COL_LINERID": 0, "PARENT_ID": 1, "REC_ID": 1})
	check(t, set, resource.Errors, 0, map[string]any{"COL__": 1, "COL_DESCRIPTION": "bad handle", "COL_ERROR_CODE": 6,
		"COL_KIND": 2, "COL_NAME": "CloseHandle", "PARENT_ID": 0, "REC_ID": 0, "ID": 0})
	check(t, set, resource.Errors, 2, map[string]any{"PARENT_ID": 1, "REC_ID": 1, "ID": 2})
	check(t, set, resource.CallStack, 0, map[string]any{"COL_ROUTINERID": 0, "PARENT_ID": 1, "REC_ID": 0, "ID": 0})
	check(t, set, resource.CallStack, 1, map[string]any{"COL_ROUTINERID": 1, "PARENT_ID": 1, "REC_ID": 1, "ID": 1})
	check(t, set, resource.CallStack, 2, map[string]any{"COL_ROUTINERID": 1, "PARENT_ID": 2, "REC_ID": 0, "ID": 2})
	if n := len(set.Tables[resource.CallStack].Rows); n != 3 {
		t.Errorf("CALL_STACK rows %d", n)
	}
}
