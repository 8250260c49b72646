package readback_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// A shaped trace: calls made in one or two threads by a recursive plan,
// and what the unbounded merged call tree of them is, computed here from
// the plan (not from the database), with the depth cap applied.

// call is one call of a plan: its routine, own time and callees.
type call struct {
	routine int
	own     int64
	callees []*call
}

func (c *call) total() int64 {
	t := c.own
	for _, k := range c.callees {
		t += k.total()
	}
	return t
}

// shapes are small call trees of the three shapes the benchmark uses at
// ten million calls (report/bench_test.go): flat (every call at the top of
// its thread), a deep chain (each call makes the next, recursion through
// a few routines) and a wide fan-out (each call makes several, each
// route a routine of its own).
func shapes() map[string][][]*call {
	flat := func(n, routines int) []*call {
		var top []*call
		for i := range n {
			top = append(top, &call{routine: i % routines, own: int64(1 + i%7)})
		}
		return top
	}
	chain := func(n, routines int) []*call {
		root := &call{routine: 0, own: 3}
		c := root
		for i := 1; i < n; i++ {
			k := &call{routine: i % routines, own: int64(1 + i%5)}
			c.callees = []*call{k}
			c = k
		}
		return []*call{root}
	}
	var fan func(routine, depth, width int) *call
	fan = func(routine, depth, width int) *call {
		c := &call{routine: routine % 500, own: int64(1 + routine%11)}
		if depth > 0 {
			for k := range width {
				c.callees = append(c.callees, fan(routine*width+k+1, depth-1, width))
			}
		}
		return c
	}
	return map[string][][]*call{
		"flat":    {flat(300, 40), flat(50, 7)},
		"chain":   {chain(300, 3)},
		"fan-out": {{fan(0, 4, 4), fan(1, 3, 5)}, {fan(2, 2, 3)}},
	}
}

// figures are a node's figures, keyed by its route.
type figures struct{ calls, own, total, folded int64 }

// expected is the merged call tree of a plan: figures by route, routes
// written as "thread N/routine/routine...", the calls deeper than maxDepth
// summed under ".../(deeper calls)". It also returns the number of folded
// calls.
func expected(threads [][]*call, maxDepth int) (map[string]figures, int64) {
	m := map[string]figures{}
	var folded int64
	var walk func(c *call, route string, depth int, under string)
	walk = func(c *call, route string, depth int, under string) {
		if depth > maxDepth {
			f := m[under]
			f.calls++
			f.folded++
			f.own += c.own
			if depth == maxDepth+1 {
				f.total += c.total()
			}
			m[under] = f
			folded++
			for _, k := range c.callees {
				walk(k, "", depth+1, under)
			}
			return
		}
		route += "/" + routineName(c.routine)
		f := m[route]
		f.calls++
		f.own += c.own
		f.total += c.total()
		m[route] = f
		for _, k := range c.callees {
			walk(k, route, depth+1, route+"/"+readback.FoldedName)
		}
	}
	for i, top := range threads {
		th := fmt.Sprintf("thread %d", i)
		var f figures
		for _, c := range top {
			f.total += c.total()
			walk(c, th, 1, th+"/"+readback.FoldedName)
		}
		m[th] = f
	}
	return m, folded
}

func routineName(i int) string { return fmt.Sprintf("R%03d", i) }

// exportPlan exports a plan as a Function Trace result set into dsn and
// returns its INST_ID.
func exportPlan(t *testing.T, dsn string, threads [][]*call) int64 {
	t.Helper()
	ctx := context.Background()
	ft := functiontrace.NewBuilder()
	defer ft.Close()
	routines := map[int]*functiontrace.Routine{}
	var enter func(th *functiontrace.Thread, c *call)
	enter = func(th *functiontrace.Thread, c *call) {
		r := routines[c.routine]
		if r == nil {
			r = ft.AddRoutine(functiontrace.RoutineInfo{Name: routineName(c.routine), Module: "m.exe"})
			routines[c.routine] = r
		}
		if _, err := th.Enter(functiontrace.CallInfo{Routine: r, Count: 1, Time: c.own, TimeWithChildren: c.total()}); err != nil {
			t.Fatal(err)
		}
		for _, k := range c.callees {
			enter(th, k)
		}
		if err := th.Exit(); err != nil {
			t.Fatal(err)
		}
	}
	for i, top := range threads {
		th := ft.AddThread(functiontrace.ThreadInfo{Win32ThreadID: int64(100 + i)})
		for _, c := range top {
			enter(th, c)
		}
	}
	db, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := resultset.Export(ctx, db, ft.ResultSet("shape"))
	if err != nil {
		t.Fatal(err)
	}
	return res.InstID
}

// routes flattens a call tree into figures by route; Rest nodes are keyed
// by their parent's route and "(other calls)".
func routes(root *readback.Node) map[string]figures {
	m := map[string]figures{}
	var walk func(n *readback.Node, route string)
	walk = func(n *readback.Node, route string) {
		if route == "" {
			route = n.Routine
		} else {
			route += "/" + n.Routine
		}
		f := m[route]
		f.calls += n.Calls
		f.own += n.Own
		f.total += n.WithChild
		f.folded += n.Folded
		m[route] = f
		for _, c := range n.Children {
			walk(c, route)
		}
	}
	for _, th := range root.Children {
		walk(th, "")
	}
	return m
}

func openTree(t *testing.T, dsn string, inst int64, l readback.TreeLimits) *readback.Node {
	t.Helper()
	ctx := context.Background()
	r, err := readback.Open(ctx, dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, err := r.Summarize(ctx, inst, readback.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tree, err := r.CallTreeLimited(ctx, s.Instance, s.Trace, l)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// TestCallTreeShapes: when the tree fits the caps, CallTree gives every
// route's exact figures; with a depth cap, the calls below it are summed
// exactly in "(deeper calls)" nodes.
func TestCallTreeShapes(t *testing.T) {
	dsn := dbtest.Fresh(t, "sqlite")
	for name, plan := range shapes() {
		inst := exportPlan(t, dsn, plan)
		for _, depth := range []int{readback.DefaultMaxDepth, 1000, 3} {
			t.Run(fmt.Sprintf("%s/depth-%d", name, depth), func(t *testing.T) {
				want, folded := expected(plan, depth)
				tree := openTree(t, dsn, inst, readback.TreeLimits{MaxNodes: 1 << 20, MaxDepth: depth})
				got := routes(tree)
				for route, w := range want {
					if got[route] != w {
						t.Errorf("%s: got %+v, want %+v", route, got[route], w)
					}
				}
				for route := range got {
					if _, ok := want[route]; !ok {
						t.Errorf("%s: in the tree, not in the plan", route)
					}
				}
				if tree.Folded != folded {
					t.Errorf("root: %d folded calls, want %d", tree.Folded, folded)
				}
				var total int64
				for _, th := range plan {
					for _, c := range th {
						total += c.total()
					}
				}
				if tree.WithChild != total {
					t.Errorf("root: time %d, want %d", tree.WithChild, total)
				}
			})
		}
	}
}

// TestCallTreeBounded: with fewer nodes allowed while reading than the
// tree has, the nodes kept never exceed the caps, no time is lost at the
// top of a thread (children and Rest nodes add up to the thread's exact
// figures), no kept route has more than its exact figures, and a deep
// chain still comes out exact (the route being read is never cut).
func TestCallTreeBounded(t *testing.T) {
	dsn := dbtest.Fresh(t, "sqlite")
	for name, plan := range shapes() {
		inst := exportPlan(t, dsn, plan)
		for _, maxNodes := range []int{5, 40} {
			t.Run(fmt.Sprintf("%s/max-%d", name, maxNodes), func(t *testing.T) {
				const depth = 50
				want, folded := expected(plan, depth)
				const work = 16
				var peak int
				tree := openTree(t, dsn, inst, readback.WithPeak(readback.WithWork(readback.TreeLimits{MaxNodes: maxNodes, MaxDepth: depth}, work), &peak))
				// The route being read (up to depth calls and a folded
				// node) is kept beyond the working size.
				if peak > work+depth+1 || (name != "chain" && peak > work) {
					t.Errorf("held %d nodes while reading, want at most %d", peak, work)
				}
				var nodes int
				var walk func(n *readback.Node)
				walk = func(n *readback.Node) {
					if n.Rest == 0 {
						nodes++
					}
					for _, c := range n.Children {
						walk(c)
					}
				}
				walk(tree)
				if nodes > maxNodes {
					t.Errorf("%d nodes, want at most %d", nodes, maxNodes)
				}
				if tree.Folded != folded {
					t.Errorf("root: %d folded calls, want %d", tree.Folded, folded)
				}
				var total int64
				for i, th := range plan {
					var w figures
					for _, c := range th {
						w.calls++
						w.own += c.own
						w.total += c.total()
					}
					total += w.total
					if i >= len(tree.Children) {
						if len(tree.Children) == 0 || tree.Children[len(tree.Children)-1].Rest == 0 {
							t.Errorf("thread %d: neither in the tree nor in a Rest node", i)
						}
						continue
					}
					th := tree.Children[i]
					if th.Rest > 0 || th.Routine != fmt.Sprintf("thread %d", i) {
						continue // cut: its time is in the root's Rest node
					}
					var g figures
					for _, c := range th.Children {
						g.calls += c.Calls
						g.own += c.Own
						g.total += c.WithChild
					}
					if th.WithChild != w.total || g != w {
						t.Errorf("thread %d: time %d, its top-level calls and Rest %+v; want %d, %+v", i, th.WithChild, g, w.total, w)
					}
				}
				if tree.WithChild != total {
					t.Errorf("root: time %d, want %d", tree.WithChild, total)
				}
				for route, g := range routes(tree) {
					if strings.HasSuffix(route, "/"+readback.RestName) || !strings.Contains(route, "/") {
						continue
					}
					w, ok := want[route]
					if !ok || g.calls > w.calls || g.own > w.own || g.total > w.total || g.calls == 0 {
						t.Errorf("%s: got %+v, more than the plan's %+v", route, g, w)
					}
				}
				if name == "chain" {
					// 50 routes deep, more than the 16 nodes kept while
					// reading: the route being read is never cut.
					tree := openTree(t, dsn, inst, readback.WithWork(readback.TreeLimits{MaxNodes: 1000, MaxDepth: depth}, 16))
					got := routes(tree)
					for route, w := range want {
						if got[route] != w {
							t.Errorf("chain: %s: got %+v, want %+v", route, got[route], w)
						}
					}
				}
			})
		}
	}
}
