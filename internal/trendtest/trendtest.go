package trendtest

import (
	"context"
	"crypto/sha1"
	"fmt"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/profilers/referencecount"
	"github.com/profdb/profdb/profilers/resource"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// HostileFile is the name of a source file of the coverage runs: markup,
// a terminal escape and a leading = that a spreadsheet reads as a formula.
const HostileFile = "=HYPERLINK(\"http://evil\")<script>alert(1)</script>\x1b[31m.go"

// hostileCaption is the caption of the first coverage run: a formula
// and a terminal escape.
const hostileCaption = "=cmd|' /C calc'!A0\x1b[2J"

// hostileURL is the build URL of the first coverage run: not http(s), so
// no page may link to it.
const hostileURL = "javascript:alert(1)"

// History is what Export wrote: the INST_IDs per profiler and branch,
// oldest first.
type History struct {
	Coverage        []int64 // branch main
	CoverageFeature []int64 // branch feature/x
	Trace           []int64 // branch main
	Resource        []int64 // branch main
	ReferenceCount  []int64 // branch main
}

// commit is the object name of run n: lower-case hexadecimal.
func commit(n int) string { return fmt.Sprintf("%x", sha1.Sum([]byte(fmt.Sprint(n)))) }

// Export writes the history into dsn: four coverage runs on main and two
// on feature/x, interleaved; three function traces, two resource and two
// reference count result sets on main. The caller imports the dialect.
func Export(ctx context.Context, dsn string) (History, error) {
	var h History
	x, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
	if err != nil {
		return h, err
	}
	defer x.Close()
	n := 0
	put := func(rs *resultset.ResultSet, branch string, labels map[string]string) (int64, error) {
		n++
		url := fmt.Sprintf("https://ci.example/build/%d?a=1&b=<2>", n)
		if n == 1 {
			url = hostileURL
		}
		rs.Run = &resultset.Run{Commit: commit(n), Branch: branch, CI: "github-actions", BuildID: fmt.Sprint(n), BuildURL: url, Labels: labels}
		res, err := resultset.Export(ctx, x, rs)
		if err != nil {
			return 0, fmt.Errorf("export %s: %w", rs.Caption, err)
		}
		return res.InstID, nil
	}
	unit := map[string]string{"suite": "unit"}
	for i := 0; i < 6; i++ {
		branch := "main"
		if i == 2 || i == 4 {
			branch = "feature/x"
		}
		caption := fmt.Sprintf("coverage %d", i)
		if i == 0 {
			caption = hostileCaption
		}
		id, err := put(Coverage(i).ResultSet(caption), branch, unit)
		if err != nil {
			return h, err
		}
		if branch == "main" {
			h.Coverage = append(h.Coverage, id)
		} else {
			h.CoverageFeature = append(h.CoverageFeature, id)
		}
	}
	for i := 0; i < 3; i++ {
		b, err := Trace(i)
		if err != nil {
			return h, err
		}
		id, err := put(b.ResultSet(fmt.Sprintf("trace %d", i)), "main", nil)
		b.Close()
		if err != nil {
			return h, err
		}
		h.Trace = append(h.Trace, id)
	}
	for i := 0; i < 2; i++ {
		id, err := put(Resource(i).ResultSet(fmt.Sprintf("resource %d", i)), "main", nil)
		if err != nil {
			return h, err
		}
		h.Resource = append(h.Resource, id)
		if id, err = put(ReferenceCount(i).ResultSet(fmt.Sprintf("reference count %d", i)), "main", nil); err != nil {
			return h, err
		}
		h.ReferenceCount = append(h.ReferenceCount, id)
	}
	return h, nil
}

// Coverage is coverage run i: a.go gains a covered line per run, the
// hostile file loses one, b.go stays.
func Coverage(i int) *lightcoverage.Builder {
	b := lightcoverage.NewBuilder()
	add := func(name, file string, first int64, lines int, covered int) {
		rt := b.AddRoutine(lightcoverage.RoutineInfo{Name: name, Module: "app.exe", SourceFile: file, LineLevel: true})
		for l := 0; l < lines; l++ {
			var count int64
			if l < covered {
				count = int64(l + 1)
			}
			rt.AddLine(first+int64(l), count)
		}
	}
	add("f", "a.go", 1, 10, min(1+i, 10))
	add("g", "a.go", 20, 4, 0)
	add("h", HostileFile, 1, 8, max(7-i, 0))
	add("k", "b.go", 1, 5, 3)
	if i%2 == 1 {
		add("odd", "c.go", 1, 2, 2)
	}
	return b
}

// Trace is function trace run i (counter Time at 1000 ticks a second):
// work slows down run by run.
func Trace(i int) (*functiontrace.Builder, error) {
	b := functiontrace.NewBuilder()
	b.SetCounter(&resultset.Counter{Name: "Time", Description: "Elapsed Time", Frequency: 1000})
	th := b.AddThread(functiontrace.ThreadInfo{Win32ThreadID: 7})
	main := b.AddRoutine(functiontrace.RoutineInfo{Name: "main", Namespace: "app", Module: "app.exe"})
	work := b.AddRoutine(functiontrace.RoutineInfo{Name: "work", Namespace: "app", Module: "app.exe"})
	idle := b.AddRoutine(functiontrace.RoutineInfo{Name: "idle", Namespace: "app", Module: "app.exe"})
	w, d := int64(20*(i+1)), int64(5)
	calls := 1 + i
	total := int64(10) + int64(calls)*w + d
	if _, err := th.Enter(functiontrace.CallInfo{Routine: main, Count: 1, Time: 10, TimeWithChildren: total}); err != nil {
		return nil, err
	}
	for c := 0; c < calls; c++ {
		if _, err := th.Enter(functiontrace.CallInfo{Routine: work, Count: 1, Time: w, TimeWithChildren: w}); err != nil {
			return nil, err
		}
		if err := th.Exit(); err != nil {
			return nil, err
		}
	}
	if _, err := th.Enter(functiontrace.CallInfo{Routine: idle, Count: 1, Time: d, TimeWithChildren: d}); err != nil {
		return nil, err
	}
	if err := th.Exit(); err != nil {
		return nil, err
	}
	if err := th.Exit(); err != nil {
		return nil, err
	}
	return b, nil
}

// Resource is resource run i: Foo's live objects grow.
func Resource(i int) *resource.Builder {
	b := resource.NewBuilder()
	b.Class("Foo", "m.dll").Add(resource.ClassStats{LiveCount: int64(3 + 4*i), LiveSize: int64(30 + 40*i), PeakCreated: 9, PeakSize: 90})
	b.Class("Bar", "m.dll").Add(resource.ClassStats{LiveCount: 1, LiveSize: 8, PeakCreated: 1, PeakSize: 8})
	return b
}

// ReferenceCount is reference count run i: objects, i+1 of them alive at
// the end.
func ReferenceCount(i int) *referencecount.Builder {
	b := referencecount.NewBuilder()
	foo := b.Class("Foo", "m.dll")
	foo.Add(referencecount.ClassStats{LiveCount: int64(1 + i), LiveSize: int64(10 * (1 + i)), PeakCreated: 4, PeakSize: 40})
	for o := 0; o < 4; o++ {
		live := int64(0)
		if o <= i {
			live = 1
		}
		b.AddObject(referencecount.ObjectInfo{Class: foo, Number: int64(o + 1), Size: 10, LiveReferences: live, PeakReferences: 2, TotalReferences: 3})
	}
	return b
}
