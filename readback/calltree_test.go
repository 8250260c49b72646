package readback_test

import (
	"context"
	"testing"

	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/store"
)

func TestCallTree(t *testing.T) {
	dsn := dbtest.Fresh(t, "sqlite")
	ids := exportExamples(t, dsn)
	ft := loadExample(t, "function-trace")
	calls := ft["FUNCTION_TRACE_PROFILER_CALL_TRACE"]
	var top float64
	for _, c := range calls {
		if string(c["COL_PARENT_NO"]) == "-1" {
			f, err := c["COL__S_WITH_CHILDREN"].Float64()
			if err != nil {
				t.Fatalf("example CALL_TRACE COL__S_WITH_CHILDREN: %v", err)
			}
			top += f
		}
	}
	if top == 0 {
		t.Fatalf("the example's %d CALL_TRACE rows have no top-level time to compare with", len(calls))
	}
	ctx := context.Background()
	r, err := readback.Open(ctx, dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, err := r.Summarize(ctx, ids["function-trace"], readback.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := s.Instance
	count := func(n *readback.Node) (nodes, calls int64) {
		var walk func(n *readback.Node)
		walk = func(n *readback.Node) {
			nodes++
			calls += n.Calls
			var sum int64
			for _, c := range n.Children {
				sum += c.WithChild
				walk(c)
			}
			if len(n.Children) > 0 && n.Calls > 0 && sum > n.WithChild {
				t.Errorf("%s: children take %d, more than its %d", n.Routine, sum, n.WithChild)
			}
		}
		walk(n)
		return nodes, calls
	}
	full, err := r.CallTree(ctx, in, s.Trace, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if float64(full.WithChild) != top || full.WithChild != s.Trace.TotalTime {
		t.Errorf("tree time %d, want %v (and total time %d)", full.WithChild, top, s.Trace.TotalTime)
	}
	nodes, n := count(full)
	if n != int64(len(calls)) {
		t.Errorf("tree holds %d calls, want %d", n, len(calls))
	}
	// Cut to 4 nodes: the time of the cut subtrees is in "(other calls)"
	// nodes, so the total stays; their callees' calls are not counted there.
	cut, err := r.CallTree(ctx, in, s.Trace, 4)
	if err != nil {
		t.Fatal(err)
	}
	cutNodes, cutCalls := count(cut)
	if cutCalls > n || cutCalls == 0 || cut.WithChild != full.WithChild || cutNodes > 4+2*2 || cutNodes >= nodes || !hasRest(cut) {
		t.Errorf("cut tree: %d nodes, %d calls, time %d; full: %d nodes, %d calls, time %d",
			cutNodes, cutCalls, cut.WithChild, nodes, n, full.WithChild)
	}
}

func hasRest(n *readback.Node) bool {
	if n.Rest > 0 {
		return n.Routine == "(other calls)"
	}
	for _, c := range n.Children {
		if hasRest(c) {
			return true
		}
	}
	return false
}
