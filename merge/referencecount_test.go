package merge_test

import (
	"fmt"
	"testing"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/merge"
	"github.com/profdb/profdb/profilers/referencecount"
)

// rc describes a Reference Count result set for the builder.
type rc struct {
	threads  []rcThread
	classes  []rcClass
	routines []rsRoutine
	objects  []rcObject
}

type rcThread struct {
	win  string // "" for none
	size int64
}

type rcClass struct {
	name string
	figs [6]int64
}

type rcObject struct {
	class             string
	thread            int
	number, size      int64
	live, peak, total int64
	frames            []rsFrame
	refs              []rcRef
	tree              []rcNode
}

// rcEntry names a stack entry: a routine's name, "T0"… a thread, "" <Root>.
type rcRef struct {
	number int64
	addRef bool
	stack  []string
}

type rcNode struct {
	parent      int // index in the object's tree, -1 at the top
	entry       string
	hits, delta int64
}

func (s rc) export(t *testing.T, x *exporter.Exporter, caption string) int64 {
	t.Helper()
	b := referencecount.NewBuilder()
	var ths []*referencecount.Thread
	for i, th := range s.threads {
		ths = append(ths, b.AddThread(referencecount.ThreadInfo{Name: fmt.Sprint("thread ", i), Win32ThreadID: th.win, Size: th.size}))
	}
	cls := map[string]*referencecount.Class{}
	for _, c := range s.classes {
		bc := b.Class(c.name, "m")
		f := c.figs
		bc.Add(referencecount.ClassStats{LiveCount: f[0], LiveSize: f[1], PeakCreated: f[2], PeakSize: f[3],
			TotalCreated: f[4], TotalSize: f[5]})
		cls[c.name] = bc
	}
	rts := map[string]*referencecount.Routine{}
	for _, r := range s.routines {
		br := b.AddRoutine(referencecount.RoutineInfo{Name: r.name, Module: "m", SourceFile: r.file, SourceLine: r.line,
			HitCount: r.hits, CodeType: "x64", LineLevel: true})
		for _, l := range r.sourceLines {
			br.AddLine(l)
		}
		rts[r.name] = br
	}
	entry := func(e string) referencecount.StackEntry {
		var th int
		if _, err := fmt.Sscanf(e, "T%d", &th); err == nil {
			return referencecount.StackEntry{Thread: ths[th]}
		}
		return referencecount.StackEntry{Routine: rts[e], SourceLine: int64(len(e))}
	}
	for _, o := range s.objects {
		bo := b.AddObject(referencecount.ObjectInfo{Class: cls[o.class], Thread: ths[o.thread], Number: o.number,
			Get: 10 * o.number, Address: uint64(4096 * o.number), Size: o.size, LiveReferences: o.live,
			PeakReferences: o.peak, TotalReferences: o.total})
		for _, f := range o.frames {
			bo.AddCreationFrame(referencecount.Frame{Routine: rts[f.routine], SourceLine: f.line, HitCount: f.hits})
		}
		for _, r := range o.refs {
			var stack []referencecount.StackEntry
			for _, e := range r.stack {
				stack = append(stack, entry(e))
			}
			b.AddReference(bo, r.number, r.addRef, stack...)
		}
		var nodes []*referencecount.TreeNode
		for _, n := range o.tree {
			var p *referencecount.TreeNode
			if n.parent >= 0 {
				p = nodes[n.parent]
			}
			nodes = append(nodes, bo.AddTreeNode(p, referencecount.TreeNodeInfo{Entry: entry(n.entry),
				HitCountOnEnter: n.hits, RefCountChange: n.delta}))
		}
	}
	res, err := b.Export(t.Context(), x, caption)
	if err != nil {
		t.Fatal(err)
	}
	return res.InstID
}

// The inputs: B lists classes, routines and objects in another order, adds
// a thread, a class and an object (the threads without an id match by
// position); its references of the shared object and
// their stacks differ from A's (the merge keeps A's); its call tree of the
// shared object adds a node and changes reference counts by other amounts.
var (
	rcA = rc{
		threads: []rcThread{{"0x10", 100}, {"", 5}},
		classes: []rcClass{{"IFoo", [6]int64{1, 16, 2, 32, 3, 48}}},
		routines: []rsRoutine{
			{name: "make", file: "a.go", line: 1, hits: 4, sourceLines: []int64{2}},
			{name: "main", file: "m.go", line: 1, hits: 1},
		},
		objects: []rcObject{{class: "IFoo", thread: 0, number: 0, size: 16, live: 1, peak: 2, total: 3,
			frames: []rsFrame{{"make", 2, 1}, {"main", 0, 1}},
			refs:   []rcRef{{1, true, []string{"make", "main", "T0"}}, {2, false, []string{"main"}}},
			tree:   []rcNode{{-1, "T0", 1, 2}, {0, "main", 1, 2}, {1, "make", 3, -1}},
		}},
	}
	rcB = rc{
		threads: []rcThread{{"0x10", 300}, {"", 9}, {"0x20", 1}},
		classes: []rcClass{{"IBar", [6]int64{1, 8, 1, 8, 1, 8}}, {"IFoo", [6]int64{3, 48, 4, 64, 5, 80}}},
		routines: []rsRoutine{
			{name: "main", file: "m.go", line: 1, hits: 2, sourceLines: []int64{5}},
			{name: "make", file: "a.go", line: 1, hits: 6, sourceLines: []int64{2}},
		},
		objects: []rcObject{
			{class: "IBar", thread: 1, number: 0, size: 8, live: 1, peak: 1, total: 1,
				frames: []rsFrame{{"main", 5, 1}}, refs: []rcRef{{1, true, []string{"main"}}},
				tree: []rcNode{{-1, "T1", 1, 1}}},
			{class: "IFoo", thread: 0, number: 0, size: 16, live: 3, peak: 4, total: 7,
				frames: []rsFrame{{"make", 2, 3}, {"main", 0, 1}},
				refs:   []rcRef{{1, true, []string{"make"}}},
				tree:   []rcNode{{-1, "T0", 2, 1}, {0, "main", 2, 1}, {1, "make", 5, -3}, {1, "make", 1, 3}, {1, "make", 2, -1}}},
		},
	}
)

func rcMergedAB(op merge.Op) rc {
	p := func(w [4]int64) int64 { return w[op] }
	return rc{
		threads: []rcThread{{"0x10", p([4]int64{400, 200, 300, 100})}, {"", p([4]int64{14, 7, 9, 5})}, {"0x20", 1}},
		classes: []rcClass{
			{"IFoo", [6]int64{p([4]int64{4, 2, 3, 1}), p([4]int64{64, 32, 48, 16}), p([4]int64{6, 3, 4, 2}),
				p([4]int64{96, 48, 64, 32}), p([4]int64{8, 4, 5, 3}), p([4]int64{128, 64, 80, 48})}},
			{"IBar", [6]int64{1, 8, 1, 8, 1, 8}},
		},
		routines: []rsRoutine{
			{name: "make", file: "a.go", line: 1, hits: p([4]int64{10, 5, 6, 4}), sourceLines: []int64{2}},
			{name: "main", file: "m.go", line: 1, hits: p([4]int64{3, 2, 2, 1}), sourceLines: []int64{5}},
		},
		objects: []rcObject{
			{class: "IFoo", thread: 0, number: 0, size: p([4]int64{32, 16, 16, 16}), live: p([4]int64{4, 2, 3, 1}),
				peak: p([4]int64{6, 3, 4, 2}), total: p([4]int64{10, 5, 7, 3}),
				frames: []rsFrame{{"make", 2, p([4]int64{4, 2, 3, 1})}, {"main", 0, p([4]int64{2, 1, 1, 1})}},
				refs:   []rcRef{{1, true, []string{"make", "main", "T0"}}, {2, false, []string{"main"}}},
				// The reference-count change may be negative: avg rounds
				// half away from zero, min is the smallest.
				tree: []rcNode{{-1, "T0", p([4]int64{3, 2, 2, 1}), p([4]int64{3, 2, 2, 1})},
					{0, "main", p([4]int64{3, 2, 2, 1}), p([4]int64{3, 2, 2, 1})},
					{1, "make", p([4]int64{8, 4, 5, 3}), p([4]int64{-4, -2, -1, -3})},
					{1, "make", 1, 3},   // B only: the second call of make from main
					{1, "make", 2, -1}}, // and the third
			},
			{class: "IBar", thread: 1, number: 0, size: 8, live: 1, peak: 1, total: 1,
				frames: []rsFrame{{"main", 5, 1}}, refs: []rcRef{{1, true, []string{"main"}}},
				tree: []rcNode{{-1, "T1", 1, 1}}},
		},
	}
}

func TestMergeReferenceCount(t *testing.T) {
	for _, dn := range dialectNames {
		t.Run(dn, func(t *testing.T) {
			db, x := open(t, dn)
			a := rcA.export(t, x, "A")
			b := rcB.export(t, x, "B")
			for _, op := range []merge.Op{merge.Sum, merge.Avg, merge.Max, merge.Min} {
				res, err := merge.Merge(t.Context(), db, []int64{a, b}, op, "", x)
				if err != nil {
					t.Fatalf("%s: %v", op, err)
				}
				if res.Profiler != referencecount.Name {
					t.Errorf("%s: result %+v", op, res)
				}
				verified(t, db, res.InstID)
				sameTables(t, op.String(), read(t, db, res.InstID), read(t, db, rcMergedAB(op).export(t, x, "want")))
			}
		})
	}
}

func TestMergeReferenceCountWithItself(t *testing.T) {
	for _, dn := range dialectNames {
		t.Run(dn, func(t *testing.T) {
			db, x := open(t, dn)
			a := rcB.export(t, x, "B")
			orig := read(t, db, a)
			sum, err := merge.Merge(t.Context(), db, []int64{a, a}, merge.Sum, "twice", x)
			if err != nil {
				t.Fatal(err)
			}
			verified(t, db, sum.InstID)
			d := rc{routines: nil}
			for _, th := range rcB.threads {
				d.threads = append(d.threads, rcThread{th.win, 2 * th.size})
			}
			for _, c := range rcB.classes {
				for i := range c.figs {
					c.figs[i] *= 2
				}
				d.classes = append(d.classes, c)
			}
			for _, r := range rcB.routines {
				r.hits *= 2
				d.routines = append(d.routines, r)
			}
			for _, o := range rcB.objects {
				o.size, o.live, o.peak, o.total = 2*o.size, 2*o.live, 2*o.peak, 2*o.total
				var fs []rsFrame
				for _, f := range o.frames {
					fs = append(fs, rsFrame{f.routine, f.line, 2 * f.hits})
				}
				var ns []rcNode
				for _, n := range o.tree {
					ns = append(ns, rcNode{n.parent, n.entry, 2 * n.hits, 2 * n.delta})
				}
				o.frames, o.tree = fs, ns
				d.objects = append(d.objects, o)
			}
			sameTables(t, "sum", read(t, db, sum.InstID), read(t, db, d.export(t, x, "doubled")))
			for _, op := range []merge.Op{merge.Max, merge.Min, merge.Avg} {
				res, err := merge.Merge(t.Context(), db, []int64{a, a}, op, "same", x)
				if err != nil {
					t.Fatal(err)
				}
				verified(t, db, res.InstID)
				sameTables(t, op.String(), read(t, db, res.InstID), orig)
			}
		})
	}
}
