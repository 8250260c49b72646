package compare_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/profdb/profdb/compare"
	_ "github.com/profdb/profdb/dialects/mysql"
	_ "github.com/profdb/profdb/dialects/postgres"
	_ "github.com/profdb/profdb/dialects/sqlite"
	_ "github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/profilers/referencecount"
	"github.com/profdb/profdb/profilers/resource"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

var dialectNames = dbtest.Dialects()

// builder exports itself into a target and returns the INST_ID.
type builder interface {
	Export(ctx context.Context, t resultset.Target, caption string) (resultset.Result, error)
}

// fixture exports the result sets of the comparisons into dsn: each
// profiler's A and B, and the traces of other counters.
type fixture struct {
	covA, covB, ftA, ftB, ftOtherCounter, ftOtherFreq, rsA, rsB, rcA, rcB int64
}

func export(t *testing.T, dsn string) fixture {
	t.Helper()
	ctx := context.Background()
	e, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	put := func(b builder, caption string) int64 {
		t.Helper()
		res, err := b.Export(ctx, e, caption)
		if err != nil {
			t.Fatalf("export %s: %v", caption, err)
		}
		return res.InstID
	}
	var f fixture
	f.covA = put(coverageA(), "coverage A")
	f.covB = put(coverageB(), "coverage B")
	time1k := &resultset.Counter{Name: "Time", Description: "Elapsed Time", Frequency: 1000}
	f.ftA = put(traceA(t, time1k), "trace A")
	f.ftB = put(traceB(t, time1k), "trace B")
	f.ftOtherCounter = put(traceB(t, &resultset.Counter{Name: "CPU Cycles", Frequency: 1000}), "trace, other counter")
	f.ftOtherFreq = put(traceB(t, &resultset.Counter{Name: "Time", Frequency: 2000}), "trace, other frequency")
	f.rsA = put(resourceSet(map[string]resource.ClassStats{
		"Foo": {LiveCount: 3, LiveSize: 30, PeakCreated: 5, PeakSize: 50},
		"Bar": {LiveCount: 1, LiveSize: 8, PeakCreated: 1, PeakSize: 8}}), "resource A")
	f.rsB = put(resourceSet(map[string]resource.ClassStats{
		"Foo": {LiveCount: 1, LiveSize: 10, PeakCreated: 5, PeakSize: 50},
		"Baz": {LiveCount: 4, LiveSize: 40, PeakCreated: 4, PeakSize: 40}}), "resource B")
	f.rcA = put(refcountSet(map[string]referencecount.ClassStats{
		"Foo": {LiveCount: 3, LiveSize: 30, PeakCreated: 5, PeakSize: 50},
		"Bar": {LiveCount: 1, LiveSize: 8, PeakCreated: 1, PeakSize: 8}}), "reference count A")
	f.rcB = put(refcountSet(map[string]referencecount.ClassStats{
		"Foo": {LiveCount: 1, LiveSize: 10, PeakCreated: 5, PeakSize: 50},
		"Baz": {LiveCount: 4, LiveSize: 40, PeakCreated: 4, PeakSize: 40}}), "reference count B")
	return f
}

type lines map[int64]int64 // source line -> count

func coverageSet(routines ...struct {
	name, file string
	lines      lines
	order      []int64
}) *lightcoverage.Builder {
	b := lightcoverage.NewBuilder()
	for _, r := range routines {
		rt := b.AddRoutine(lightcoverage.RoutineInfo{Name: r.name, Module: "m.exe", SourceFile: r.file, LineLevel: true})
		for _, l := range r.order {
			rt.AddLine(l, r.lines[l])
		}
	}
	return b
}

type routine = struct {
	name, file string
	lines      lines
	order      []int64
}

// coverageA and coverageB differ thus: a.go 2 of 5 lines covered in A, 3
// of 5 in B; b.go (routine h) only in A, c.go (routine k) only in B; line
// a.go:2 newly missed, a.go:3 and a.go:10 newly covered.
func coverageA() *lightcoverage.Builder {
	return coverageSet(
		routine{"f", "a.go", lines{1: 1, 2: 1, 3: 0}, []int64{1, 2, 3}},
		routine{"g", "a.go", lines{10: 0, 11: 0}, []int64{10, 11}},
		routine{"h", "b.go", lines{1: 5}, []int64{1}})
}

func coverageB() *lightcoverage.Builder {
	return coverageSet(
		routine{"f", "a.go", lines{1: 1, 2: 0, 3: 1}, []int64{1, 2, 3}},
		routine{"g", "a.go", lines{10: 2, 11: 0}, []int64{10, 11}},
		routine{"k", "c.go", lines{5: 0}, []int64{5}})
}

type call struct {
	routine    string
	own, total int64
	calls      []call
}

func traceSet(t *testing.T, c *resultset.Counter, top call) *functiontrace.Builder {
	t.Helper()
	b := functiontrace.NewBuilder()
	b.SetCounter(c)
	routines := map[string]*functiontrace.Routine{}
	th := b.AddThread(functiontrace.ThreadInfo{Win32ThreadID: 7})
	var run func(c call)
	run = func(c call) {
		r := routines[c.routine]
		if r == nil {
			r = b.AddRoutine(functiontrace.RoutineInfo{Name: c.routine, Module: "app.exe"})
			routines[c.routine] = r
		}
		if _, err := th.Enter(functiontrace.CallInfo{Routine: r, Count: 1, Time: c.own, TimeWithChildren: c.total}); err != nil {
			t.Fatal(err)
		}
		for _, sub := range c.calls {
			run(sub)
		}
		if err := th.Exit(); err != nil {
			t.Fatal(err)
		}
	}
	run(top)
	t.Cleanup(func() { b.Close() })
	return b
}

// traceA: main 1 call own 10 with 100; work 2 calls own 50; old 1 call 40.
func traceA(t *testing.T, c *resultset.Counter) *functiontrace.Builder {
	return traceSet(t, c, call{"main", 10, 100, []call{{"work", 20, 20, nil}, {"work", 30, 30, nil}, {"old", 40, 40, nil}}})
}

// traceB: main 1 call own 15 with 200; work 3 calls own 180; extra 1 call 5.
func traceB(t *testing.T, c *resultset.Counter) *functiontrace.Builder {
	return traceSet(t, c, call{"main", 15, 200, []call{{"work", 60, 60, nil}, {"extra", 5, 5, nil}, {"work", 60, 60, nil}, {"work", 60, 60, nil}}})
}

func resourceSet(classes map[string]resource.ClassStats) *resource.Builder {
	b := resource.NewBuilder()
	for _, name := range []string{"Foo", "Bar", "Baz"} {
		if s, ok := classes[name]; ok {
			b.Class(name, "m.dll").Add(s)
		}
	}
	return b
}

func refcountSet(classes map[string]referencecount.ClassStats) *referencecount.Builder {
	b := referencecount.NewBuilder()
	for _, name := range []string{"Foo", "Bar", "Baz"} {
		if s, ok := classes[name]; ok {
			b.Class(name, "m.dll").Add(s)
		}
	}
	return b
}

func fig(a, b float64, change ...float64) compare.Figure {
	f := compare.Figure{A: a, B: b}
	if len(change) > 0 {
		f.Change = &change[0]
	}
	return f
}

func TestCompare(t *testing.T) {
	for _, dn := range dialectNames {
		t.Run(dn, func(t *testing.T) {
			dsn := dbtest.Fresh(t, dn)
			f := export(t, dsn)
			ctx := context.Background()
			r, err := readback.Open(ctx, dsn, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			t.Run("Coverage", func(t *testing.T) { testCoverage(t, r, f) })
			t.Run("Trace", func(t *testing.T) { testTrace(t, r, f) })
			t.Run("Classes", func(t *testing.T) { testClasses(t, r, f) })
			t.Run("Refused", func(t *testing.T) { testRefused(t, r, f) })
		})
	}
}

func equal[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("%s:\n got %s\nwant %s", what, g, w)
	}
}

func cover(ca, ta, cb, tb int64, change ...float64) compare.Cover {
	pa, pb := 0.0, 0.0
	if ta > 0 {
		pa = float64(ca) * 100 / float64(ta)
	}
	if tb > 0 {
		pb = float64(cb) * 100 / float64(tb)
	}
	return compare.Cover{CoveredA: ca, TotalA: ta, CoveredB: cb, TotalB: tb, Percent: fig(pa, pb, change...)}
}

func testCoverage(t *testing.T, r *readback.Reader, f fixture) {
	ctx := context.Background()
	d, err := compare.Coverage(ctx, r, f.covA, f.covB, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "lines", d.Lines, cover(3, 6, 3, 6, 0))
	equal(t, "routines", d.Routines, cover(2, 3, 2, 3, 0))
	equal(t, "files", d.Files, compare.List[compare.GroupDiff]{Total: 1, Items: []compare.GroupDiff{
		{File: "a.go", In: compare.Both, Cover: cover(2, 5, 3, 5, 20)}}})
	equal(t, "files only in A", d.FilesOnlyA, compare.List[compare.GroupDiff]{Total: 1, Items: []compare.GroupDiff{
		{File: "b.go", In: compare.OnlyA, Cover: cover(1, 1, 0, 0, -100)}}})
	equal(t, "files only in B", d.FilesOnlyB, compare.List[compare.GroupDiff]{Total: 1, Items: []compare.GroupDiff{
		{File: "c.go", In: compare.OnlyB, Cover: cover(0, 0, 0, 1, 0)}}})
	equal(t, "routines", d.RoutineList, compare.List[compare.GroupDiff]{Total: 2, Items: []compare.GroupDiff{
		{Module: "m.exe", File: "a.go", Name: "g", In: compare.Both, Cover: cover(0, 2, 1, 2, 50)},
		{Module: "m.exe", File: "a.go", Name: "f", In: compare.Both, Cover: cover(2, 3, 2, 3, 0)}}})
	equal(t, "routines only in A", d.RoutinesOnlyA, compare.List[compare.GroupDiff]{Total: 1, Items: []compare.GroupDiff{
		{Module: "m.exe", File: "b.go", Name: "h", In: compare.OnlyA, Cover: cover(1, 1, 0, 0, -100)}}})
	equal(t, "routines only in B", d.RoutinesOnlyB, compare.List[compare.GroupDiff]{Total: 1, Items: []compare.GroupDiff{
		{Module: "m.exe", File: "c.go", Name: "k", In: compare.OnlyB, Cover: cover(0, 0, 0, 1, 0)}}})
	equal(t, "new misses", d.NewMisses, compare.List[compare.LineDiff]{Total: 1, Items: []compare.LineDiff{
		{File: "a.go", Line: 2, A: compare.Covered, B: compare.Uncovered}}})
	equal(t, "new hits", d.NewHits, compare.List[compare.LineDiff]{Total: 2, Items: []compare.LineDiff{
		{File: "a.go", Line: 3, A: compare.Uncovered, B: compare.Covered},
		{File: "a.go", Line: 10, A: compare.Uncovered, B: compare.Covered}}})
	if d.LinesOnlyA != 1 || d.LinesOnlyB != 1 {
		t.Errorf("lines only in A, B: %d, %d; want 1, 1", d.LinesOnlyA, d.LinesOnlyB)
	}

	// Swapped, B to A: the misses become hits.
	back, err := compare.Coverage(ctx, r, f.covB, f.covA, compare.Options{Top: 1})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "B to A: new misses", back.NewMisses, compare.List[compare.LineDiff]{Total: 2, Items: []compare.LineDiff{
		{File: "a.go", Line: 3, A: compare.Covered, B: compare.Uncovered}}})
	equal(t, "B to A: routines", back.RoutineList, compare.List[compare.GroupDiff]{Total: 2, Items: []compare.GroupDiff{
		{Module: "m.exe", File: "a.go", Name: "g", In: compare.Both, Cover: cover(1, 2, 0, 2, -50)}}})

	// Ranked by decrease: what lost most coverage first.
	down, err := compare.Coverage(ctx, r, f.covA, f.covB, compare.Options{Rank: compare.Decrease})
	if err != nil {
		t.Fatal(err)
	}
	if l := down.RoutineList.Items; len(l) != 2 || l[0].Name != "f" || l[1].Name != "g" {
		t.Errorf("routines ranked by decrease: %+v, want f, g", l)
	}

	// Ratio and percent of a.go's % covered: 60 / 40.
	for _, c := range []struct {
		style compare.Style
		want  float64
	}{{compare.Ratio, 1.5}, {compare.Percent, 50}} {
		d, err := compare.Coverage(ctx, r, f.covA, f.covB, compare.Options{Style: c.style})
		if err != nil {
			t.Fatal(err)
		}
		equal(t, string(c.style)+": a.go", d.Files.Items[0].Percent, fig(40, 60, c.want))
		// c.go has no % in A: no ratio, no percent.
		equal(t, string(c.style)+": c.go", d.FilesOnlyB.Items[0].Percent, fig(0, 0))
	}

	// Lines streams every changed line, ordered.
	var got []compare.LineDiff
	err = compare.Lines(ctx, r, f.covA, f.covB, func(l compare.LineDiff) error { got = append(got, l); return nil })
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "lines", got, []compare.LineDiff{
		{File: "a.go", Line: 2, A: compare.Covered, B: compare.Uncovered},
		{File: "a.go", Line: 3, A: compare.Uncovered, B: compare.Covered},
		{File: "a.go", Line: 10, A: compare.Uncovered, B: compare.Covered},
		{File: "b.go", Line: 1, A: compare.Covered, B: compare.Absent},
		{File: "c.go", Line: 5, A: compare.Absent, B: compare.Uncovered}})

	// A set compared with itself: no change anywhere.
	same, err := compare.Coverage(ctx, r, f.covA, f.covA, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if same.NewMisses.Total+same.NewHits.Total+same.FilesOnlyA.Total+same.FilesOnlyB.Total+same.LinesOnlyA+same.LinesOnlyB != 0 ||
		same.Files.Total != 2 || *same.Lines.Percent.Change != 0 {
		t.Errorf("A against A: %+v", same)
	}
}

func testTrace(t *testing.T, r *readback.Reader, f fixture) {
	ctx := context.Background()
	res, err := compare.Compare(ctx, r, f.ftA, f.ftB, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Trace
	if d == nil || res.Coverage != nil || res.Classes != nil || res.A.InstID != f.ftA || res.B.InstID != f.ftB {
		t.Fatalf("Compare of two traces: %+v", res)
	}
	if d.Counter != "Time" || d.Frequency != 1000 || d.OnlyA != 1 || d.OnlyB != 1 {
		t.Errorf("counter %q, frequency %v, only in A %d, only in B %d; want Time, 1000, 1, 1", d.Counter, d.Frequency, d.OnlyA, d.OnlyB)
	}
	equal(t, "calls", d.Calls, fig(4, 5, 1))
	equal(t, "time", d.Time, fig(100, 200, 100))
	rt := func(name string, in compare.Presence, calls, own, with compare.Figure) compare.RoutineTimeDiff {
		return compare.RoutineTimeDiff{Module: "app.exe", Name: name, In: in, Calls: calls, Own: own, WithChild: with}
	}
	equal(t, "routines", d.Routines, compare.List[compare.RoutineTimeDiff]{Total: 4, Items: []compare.RoutineTimeDiff{
		rt("work", compare.Both, fig(2, 3, 1), fig(50, 180, 130), fig(50, 180, 130)),
		rt("old", compare.OnlyA, fig(1, 0, -1), fig(40, 0, -40), fig(40, 0, -40)),
		rt("main", compare.Both, fig(1, 1, 0), fig(10, 15, 5), fig(100, 200, 100)),
		rt("extra", compare.OnlyB, fig(0, 1, 1), fig(0, 5, 5), fig(0, 5, 5)),
	}})
	// Ranked by increase: what slowed most first, what got faster last.
	up, err := compare.Trace(ctx, r, f.ftA, f.ftB, compare.Options{Rank: compare.Increase})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, x := range up.Routines.Items {
		names = append(names, x.Name)
	}
	equal(t, "ranked by increase", names, []string{"work", "main", "extra", "old"})
	for _, c := range []struct {
		style             compare.Style
		calls, own, extra *float64
	}{{compare.Ratio, ptr(1.5), ptr(3.6), nil}, {compare.Percent, ptr(50), ptr(260), nil}} {
		d, err := compare.Trace(ctx, r, f.ftA, f.ftB, compare.Options{Style: c.style, Top: 1})
		if err != nil {
			t.Fatal(err)
		}
		w := d.Routines.Items[0]
		if d.Routines.Total != 4 || len(d.Routines.Items) != 1 || w.Name != "work" {
			t.Fatalf("%s, top 1: %+v", c.style, d.Routines)
		}
		equal(t, string(c.style)+": work calls", w.Calls, compare.Figure{A: 2, B: 3, Change: c.calls})
		equal(t, string(c.style)+": work own", w.Own, compare.Figure{A: 50, B: 180, Change: c.own})
	}
}

func ptr(f float64) *float64 { return &f }

func testClasses(t *testing.T, r *readback.Reader, f fixture) {
	ctx := context.Background()
	for _, p := range []struct {
		name string
		a, b int64
	}{{"resource", f.rsA, f.rsB}, {"reference-count", f.rcA, f.rcB}} {
		d, err := compare.Classes(ctx, r, p.a, p.b, compare.Options{})
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		equal(t, p.name+": live count", d.LiveCount, fig(4, 5, 1))
		equal(t, p.name+": live size", d.LiveSize, fig(38, 50, 12))
		if d.OnlyA != 1 || d.OnlyB != 1 {
			t.Errorf("%s: only in A %d, only in B %d; want 1, 1", p.name, d.OnlyA, d.OnlyB)
		}
		equal(t, p.name+": classes", d.Classes, compare.List[compare.ClassFigDiff]{Total: 3, Items: []compare.ClassFigDiff{
			{Module: "m.dll", Name: "Baz", In: compare.OnlyB, LiveCount: fig(0, 4, 4), LiveSize: fig(0, 40, 40), PeakCreated: fig(0, 4, 4), PeakSize: fig(0, 40, 40)},
			{Module: "m.dll", Name: "Foo", In: compare.Both, LiveCount: fig(3, 1, -2), LiveSize: fig(30, 10, -20), PeakCreated: fig(5, 5, 0), PeakSize: fig(50, 50, 0)},
			{Module: "m.dll", Name: "Bar", In: compare.OnlyA, LiveCount: fig(1, 0, -1), LiveSize: fig(8, 0, -8), PeakCreated: fig(1, 0, -1), PeakSize: fig(8, 0, -8)},
		}})
	}
}

func testRefused(t *testing.T, r *readback.Reader, f fixture) {
	ctx := context.Background()
	for _, c := range []struct {
		what string
		a, b int64
		want string
	}{
		{"profilers", f.covA, f.ftA, "compare: the result sets cannot be compared: result set 1 is light-coverage, result set 3 is function-trace"},
		{"resource and reference count", f.rsA, f.rcA, "compare: the result sets cannot be compared: result set 7 is resource, result set 9 is reference-count"},
		{"counter names", f.ftA, f.ftOtherCounter, `compare: the result sets cannot be compared: they were measured with different counters: "Time" (result set 3) and "CPU Cycles" (result set 5)`},
		{"counter frequencies", f.ftA, f.ftOtherFreq, `compare: the result sets cannot be compared: their counter "Time" has different frequencies: 1000 (result set 3) and 2000 (result set 6)`},
	} {
		_, err := compare.Compare(ctx, r, c.a, c.b, compare.Options{})
		if !errors.Is(err, compare.ErrIncomparable) || err.Error() != c.want {
			t.Errorf("%s: %v;\nwant %s", c.what, err, c.want)
		}
	}
	if _, err := compare.Trace(ctx, r, f.covA, f.covB, compare.Options{}); !errors.Is(err, compare.ErrIncomparable) {
		t.Errorf("Trace of two coverage sets: %v, want ErrIncomparable", err)
	}
	_, err := compare.Compare(ctx, r, f.covA, 99, compare.Options{})
	var missing *store.NoResultSetError
	if !errors.As(err, &missing) || missing.InstID != 99 || err.Error() != "compare: read: no result set 99 in INSTANCES" {
		t.Errorf("missing result set: %v", err)
	}
}
