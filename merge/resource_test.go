package merge_test

import (
	"fmt"
	"testing"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/merge"
	"github.com/profdb/profdb/profilers/resource"
)

// rs describes a Resource result set for the builder.
type rs struct {
	threads  [][2]int64 // Win32 thread id (0: none), size
	classes  []rsClass
	routines []rsRoutine
	objects  []rsObject
	errors   []rsError
}

type rsClass struct {
	name, module string
	figs         [6]int64 // live count, live size, peak created, peak size, total created, total size
	known        resource.Figures
}

type rsRoutine struct {
	name, file  string
	line, hits  int64
	sourceLines []int64
}

type rsObject struct {
	class        string
	thread       int
	number, size int64
	frames       []rsFrame
}

type rsFrame struct {
	routine    string
	line, hits int64
}

type rsError struct {
	thread int
	number int64
	desc   string
	stack  []string
}

func (s rs) export(t *testing.T, x *exporter.Exporter, caption string) int64 {
	t.Helper()
	b := resource.NewBuilder()
	var ths []*resource.Thread
	for _, th := range s.threads {
		ths = append(ths, b.AddThread(resource.ThreadInfo{Win32ThreadID: th[0], Size: th[1]}))
	}
	cls := map[string]*resource.Class{}
	for _, c := range s.classes {
		bc := b.Class(c.name, c.module)
		f := c.figs
		bc.Add(resource.ClassStats{LiveCount: f[0], LiveSize: f[1], PeakCreated: f[2], PeakSize: f[3],
			TotalCreated: f[4], TotalSize: f[5], Known: c.known})
		cls[c.name] = bc
	}
	rts := map[string]*resource.Routine{}
	for _, r := range s.routines {
		br := b.AddRoutine(resource.RoutineInfo{Name: r.name, Module: "m", SourceFile: r.file, SourceLine: r.line,
			HitCount: r.hits, CodeType: "x64", Compiler: "gcc", LineLevel: true})
		for _, l := range r.sourceLines {
			br.AddLine(l)
		}
		rts[r.name] = br
	}
	for _, o := range s.objects {
		bo := b.AddObject(resource.ObjectInfo{Class: cls[o.class], Thread: ths[o.thread], Number: o.number,
			Get: 10 * o.number, Address: uint64(4096 * o.number), Size: o.size})
		for _, f := range o.frames {
			bo.AddCreationFrame(resource.Frame{Routine: rts[f.routine], SourceLine: f.line, HitCount: f.hits})
		}
	}
	for _, e := range s.errors {
		var stack []*resource.Routine
		for _, r := range e.stack {
			stack = append(stack, rts[r])
		}
		b.AddError(ths[e.thread], resource.ErrorInfo{Number: e.number, Description: e.desc, Code: 5, Kind: 1, Name: "free"}, stack...)
	}
	res, err := b.Export(t.Context(), x, caption)
	if err != nil {
		t.Fatal(err)
	}
	return res.InstID
}

// The inputs: B lists threads, classes and routines in another order,
// knows figures of Bar that A does not, adds a thread, a class, a routine,
// an object and an error; its first error's stack and an object's frame
// line differ from A's (the merge keeps A's).
var (
	rsA = rs{
		threads: [][2]int64{{10, 100}, {0, 5}},
		classes: []rsClass{
			{name: "Foo", module: "m", figs: [6]int64{2, 20, 3, 30, 5, 50}},
			{name: "Bar", module: "m", figs: [6]int64{1, 8}, known: resource.LiveCount | resource.LiveSize},
		},
		routines: []rsRoutine{
			{name: "alloc", file: "a.go", line: 1, hits: 4, sourceLines: []int64{2}},
			{name: "main", file: "m.go", line: 1, hits: 1, sourceLines: []int64{3}},
		},
		objects: []rsObject{
			{class: "Foo", thread: 0, number: 1, size: 10, frames: []rsFrame{{"alloc", 2, 1}, {"main", 3, 1}}},
			{class: "Foo", thread: 0, number: 2, size: 10, frames: []rsFrame{{"alloc", 2, 2}}},
			{class: "Bar", thread: 1, number: 1, size: 8, frames: []rsFrame{{"main", 0, 1}}},
		},
		errors: []rsError{{thread: 0, number: 1, desc: "leak", stack: []string{"alloc", "main"}}},
	}
	rsB = rs{
		threads: [][2]int64{{10, 300}, {0, 9}, {20, 1}},
		classes: []rsClass{
			{name: "Baz", module: "n", figs: [6]int64{1, 4, 1, 4, 1, 4}},
			{name: "Foo", module: "m", figs: [6]int64{4, 40, 4, 40, 6, 60}},
			{name: "Bar", module: "m", figs: [6]int64{3, 24, 3, 24, 3, 24}},
		},
		routines: []rsRoutine{
			{name: "main", file: "m.go", line: 1, hits: 2, sourceLines: []int64{4}},
			{name: "alloc", file: "a.go", line: 1, hits: 6, sourceLines: []int64{2}},
			{name: "free", file: "f.go", line: 9, hits: 1},
		},
		objects: []rsObject{
			{class: "Foo", thread: 0, number: 1, size: 30, frames: []rsFrame{{"alloc", 2, 3}, {"main", 4, 1}}},
			{class: "Bar", thread: 1, number: 1, size: 8, frames: []rsFrame{{"main", 0, 1}}},
			{class: "Baz", thread: 2, number: 1, size: 4, frames: []rsFrame{{"free", 0, 1}}},
		},
		errors: []rsError{
			{thread: 0, number: 1, desc: "leak", stack: []string{"main"}},
			{thread: 0, number: 2, desc: "double free", stack: []string{"free"}},
		},
	}
)

func rsMergedAB(op merge.Op) rs {
	p := func(w [4]int64) int64 { return w[op] }
	return rs{
		threads: [][2]int64{{10, p([4]int64{400, 200, 300, 100})}, {0, p([4]int64{14, 7, 9, 5})}, {20, 1}},
		classes: []rsClass{
			{name: "Foo", module: "m", figs: [6]int64{p([4]int64{6, 3, 4, 2}), p([4]int64{60, 30, 40, 20}),
				p([4]int64{7, 4, 4, 3}), p([4]int64{70, 35, 40, 30}), p([4]int64{11, 6, 6, 5}), p([4]int64{110, 55, 60, 50})}},
			// Figures A does not know combine over B alone.
			{name: "Bar", module: "m", figs: [6]int64{p([4]int64{4, 2, 3, 1}), p([4]int64{32, 16, 24, 8}), 3, 24, 3, 24}},
			{name: "Baz", module: "n", figs: [6]int64{1, 4, 1, 4, 1, 4}},
		},
		routines: []rsRoutine{
			{name: "alloc", file: "a.go", line: 1, hits: p([4]int64{10, 5, 6, 4}), sourceLines: []int64{2}},
			{name: "main", file: "m.go", line: 1, hits: p([4]int64{3, 2, 2, 1}), sourceLines: []int64{3, 4}},
			{name: "free", file: "f.go", line: 9, hits: 1},
		},
		objects: []rsObject{
			{class: "Foo", thread: 0, number: 1, size: p([4]int64{40, 20, 30, 10}),
				frames: []rsFrame{{"alloc", 2, p([4]int64{4, 2, 3, 1})}, {"main", 3, p([4]int64{2, 1, 1, 1})}}},
			{class: "Foo", thread: 0, number: 2, size: 10, frames: []rsFrame{{"alloc", 2, 2}}},
			{class: "Bar", thread: 1, number: 1, size: p([4]int64{16, 8, 8, 8}), frames: []rsFrame{{"main", 0, p([4]int64{2, 1, 1, 1})}}},
			{class: "Baz", thread: 2, number: 1, size: 4, frames: []rsFrame{{"free", 0, 1}}},
		},
		errors: []rsError{
			{thread: 0, number: 1, desc: "leak", stack: []string{"alloc", "main"}},
			{thread: 0, number: 2, desc: "double free", stack: []string{"free"}},
		},
	}
}

func TestMergeResource(t *testing.T) {
	for _, dn := range dialectNames {
		t.Run(dn, func(t *testing.T) {
			db, x := open(t, dn)
			a := rsA.export(t, x, "A")
			b := rsB.export(t, x, "B")
			for _, op := range []merge.Op{merge.Sum, merge.Avg, merge.Max, merge.Min} {
				res, err := merge.Merge(t.Context(), db, []int64{a, b}, op, "", x)
				if err != nil {
					t.Fatalf("%s: %v", op, err)
				}
				if want := fmt.Sprintf("merge (%s) of %d, %d", op, a, b); res.Caption != want || res.Profiler != resource.Name {
					t.Errorf("%s: result %+v, want caption %q", op, res, want)
				}
				verified(t, db, res.InstID)
				sameTables(t, op.String(), read(t, db, res.InstID), read(t, db, rsMergedAB(op).export(t, x, "want")))
			}
		})
	}
}

// rsDoubled is s with every count and size doubled.
func rsDoubled(s rs) rs {
	out := rs{routines: nil, errors: s.errors}
	for _, th := range s.threads {
		out.threads = append(out.threads, [2]int64{th[0], 2 * th[1]})
	}
	for _, c := range s.classes {
		for i := range c.figs {
			c.figs[i] *= 2
		}
		out.classes = append(out.classes, c)
	}
	for _, r := range s.routines {
		r.hits *= 2
		out.routines = append(out.routines, r)
	}
	for _, o := range s.objects {
		o.size *= 2
		var fs []rsFrame
		for _, f := range o.frames {
			f.hits *= 2
			fs = append(fs, f)
		}
		o.frames = fs
		out.objects = append(out.objects, o)
	}
	return out
}

func TestMergeResourceWithItself(t *testing.T) {
	for _, dn := range dialectNames {
		t.Run(dn, func(t *testing.T) {
			db, x := open(t, dn)
			a := rsA.export(t, x, "A")
			orig := read(t, db, a)
			sum, err := merge.Merge(t.Context(), db, []int64{a, a}, merge.Sum, "twice", x)
			if err != nil {
				t.Fatal(err)
			}
			verified(t, db, sum.InstID)
			sameTables(t, "sum", read(t, db, sum.InstID), read(t, db, rsDoubled(rsA).export(t, x, "doubled")))
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
