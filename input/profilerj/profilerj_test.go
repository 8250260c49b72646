package profilerj_test

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/input/profilerj"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/profilers/resource"
	"github.com/profdb/profdb/resultset"
)

const example = "../../examples/profilerj/snapshot.xml"

func readFile(t *testing.T, path string) (*resultset.Memory, []resultset.Result) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var mem resultset.Memory
	res, err := profilerj.Read(context.Background(), f, path, &mem, input.Options{Warnf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	return &mem, res
}

func readString(t *testing.T, doc string) (*resultset.Memory, []string) {
	t.Helper()
	var mem resultset.Memory
	var warnings []string
	_, err := profilerj.Read(context.Background(), strings.NewReader(doc), "in.xml", &mem,
		input.Options{Warnf: func(f string, a ...any) { warnings = append(warnings, sprintf(f, a...)) }})
	if err != nil {
		t.Fatal(err)
	}
	return &mem, warnings
}

// norm turns a canonical value into something comparable with literals.
func norm(v any) any {
	switch x := v.(type) {
	case ddl.Dec:
		return string(x)
	case int:
		return int64(x)
	}
	return v
}

func check(t *testing.T, set resultset.MemorySet, table string, row int, want map[string]any) {
	t.Helper()
	tb := set.Tables[table]
	if tb == nil || row < 0 || row >= len(tb.Rows) {
		t.Fatalf("%s: no row %d", table, row)
	}
	for col, w := range want {
		if got := norm(tb.Value(row, col)); got != norm(w) {
			t.Errorf("%s row %d %s = %#v, want %#v", table, row, col, got, norm(w))
		}
	}
}

// find returns the index of the row whose columns have the values given.
func find(t *testing.T, set resultset.MemorySet, table string, match map[string]any) int {
	t.Helper()
	tb := set.Tables[table]
	found := -1
rows:
	for i := range tb.Rows {
		for col, w := range match {
			if norm(tb.Value(i, col)) != norm(w) {
				continue rows
			}
		}
		if found >= 0 {
			t.Fatalf("%s: two rows match %v", table, match)
		}
		found = i
	}
	if found < 0 {
		t.Fatalf("%s: no row matches %v", table, match)
	}
	return found
}

func id(t *testing.T, set resultset.MemorySet, table string, match map[string]any) int64 {
	t.Helper()
	return set.Tables[table].Value(find(t, set, table, match), "ID").(int64)
}

func TestExampleSections(t *testing.T) {
	mem, res := readFile(t, example)
	if len(mem.Sets) != 4 || len(res) != 4 {
		t.Fatalf("%d result sets, %d results; want 4", len(mem.Sets), len(res))
	}
	want := []struct{ profiler, caption string }{
		{functiontrace.Name, "snapshot.xml: profile"},
		{functiontrace.Name, "snapshot.xml: sampler"},
		{resource.Name, "snapshot.xml: memory"},
		{lightcoverage.Name, "snapshot.xml: coverage"},
	}
	for i, w := range want {
		h := mem.Sets[i].Header
		if h.Profiler != w.profiler || h.Caption != w.caption {
			t.Errorf("result set %d: %s %q, want %s %q", i, h.Profiler, h.Caption, w.profiler, w.caption)
		}
	}
	c := mem.Sets[0].Header.Counter
	if c == nil || c.Name != "Time" || c.Description != "Elapsed Time" || norm(c.Frequency) != int64(1000000) {
		t.Errorf("profile counter %+v", c)
	}
	if c := mem.Sets[1].Header.Counter; c == nil || c.Name != "Time" || c.Frequency != nil {
		t.Errorf("sampler counter %+v", c)
	}
}

func TestProfileSection(t *testing.T) {
	mem, _ := readFile(t, example)
	set := mem.Sets[0]
	if n := len(set.Tables[functiontrace.Threads].Rows); n != 2 {
		t.Fatalf("%d threads", n)
	}
	routine := func(name string) int64 {
		i := find(t, set, functiontrace.MetaRoutines, map[string]any{"COL_ROUTINE_NAME": name})
		return set.Tables[functiontrace.MetaRoutines].Value(i, "REC_ID").(int64)
	}
	mainR := routine("main(java.lang.String[])")
	ctorR := routine("Example01(java.lang.String)")
	objR := routine("Object()")
	loopR := routine("runLoop(int)")
	compR := routine("compute(int)")
	sqrtR := routine("sqrt(double)")
	paintR := routine("PaintEvent(java.awt.Component,int,java.awt.Rectangle)")

	// Routine names split into class, namespace and module; constructors
	// recognised; sources taken from the coverage section.
	check(t, set, functiontrace.MetaRoutines, int(ctorR), map[string]any{"COL_CLASS_NAME": "Example01",
		"COL_NAMESPACE": "com.terrasoft.profilerj.tutorial", "COL_MODULE_NAME": "com.terrasoft.profilerj.tutorial",
		"COL_CODE_TYPE": "Byte-code", "COL_SOURCE_FILE": "Example01.java", "COL_SOURCE_LINE": 11,
		"COL_SYMBOL_MONIKER": "com.terrasoft.profilerj.tutorial.Example01.<init>(Ljava/lang/String;)V", "PARENT_ID": -1})
	check(t, set, functiontrace.MetaRoutines, int(loopR), map[string]any{"COL_SOURCE_FILE": "Example01.java", "COL_SOURCE_LINE": 26})
	check(t, set, functiontrace.MetaRoutines, int(sqrtR), map[string]any{"COL_CLASS_NAME": "Math", "COL_NAMESPACE": "java.lang",
		"COL_SOURCE_FILE": "", "COL_SOURCE_LINE": 0})
	check(t, set, functiontrace.MetaRoutines, int(paintR), map[string]any{"COL_CLASS_NAME": "PaintEvent", "COL_NAMESPACE": "java.awt.event"})

	// Hit counts: a routine's is the sum of its nodes' counts.
	check(t, set, functiontrace.Routines, int(objR), map[string]any{"COL_HIT_COUNT": 89, "REC_ID": objR, "ID": objR})
	check(t, set, functiontrace.Routines, int(paintR), map[string]any{"COL_HIT_COUNT": 100})
	check(t, set, functiontrace.Routines, int(compR), map[string]any{"COL_HIT_COUNT": 605000})

	// The call tree of thread 0 (main), by REC_ID.
	th0 := int64(0)
	call := func(rec int64) int {
		return find(t, set, functiontrace.CallTrace, map[string]any{"PARENT_ID": th0, "REC_ID": rec})
	}
	type node struct {
		rec, parentNo, next, routine, s, sc int64
	}
	for _, n := range []node{
		{0, -1, -1, mainR, 1000, 2411000},
		{1, 0, 3, ctorR, 1000, 2000},
		{2, 1, -1, objR, 1000, 1000},
		{3, 0, -1, loopR, 402000, 2408000},
		{4, 3, -1, compR, 1706000, 2006000},
		{5, 4, -1, sqrtR, 300000, 300000},
	} {
		check(t, set, functiontrace.CallTrace, call(n.rec), map[string]any{"COL_PARENT_NO": n.parentNo, "COL_NEXT": n.next,
			"COL_RECID": n.routine, "COL_ROUTINE_NAME": n.routine, "COL__S": n.s, "COL__S_WITH_CHILDREN": n.sc,
			"COL_CALL_NO": n.rec, "ID": n.rec})
	}
	// Thread 1 (AWT-Windows): the documented tree, with no methodElapsed:
	// COL__S falls back to method (CPU time), with children is cumulatedElapsed.
	th0 = 1
	check(t, set, functiontrace.CallTrace, call(0), map[string]any{"COL_RECID": paintR, "COL__S": 0,
		"COL__S_WITH_CHILDREN": 16000, "COL_PARENT_NO": -1, "COL_NEXT": 4, "ID": 6})
	check(t, set, functiontrace.CallTrace, call(3), map[string]any{"COL_RECID": objR, "COL_PARENT_NO": 2})
	check(t, set, functiontrace.CallTrace, call(4), map[string]any{"COL_RECID": paintR, "COL_PARENT_NO": -1, "COL_NEXT": -1})
	if n := len(set.Tables[functiontrace.CallTrace].Rows); n != 11 {
		t.Errorf("CALL_TRACE %d rows, want 11", n)
	}

	// Routes: the two PaintEvent nodes at the top of AWT-Windows share one
	// route (88 + 12); Object() is reached on two different paths.
	paintRoute := find(t, set, functiontrace.CallRoutes, map[string]any{"PARENT_ID": paintR})
	check(t, set, functiontrace.CallRoutes, paintRoute, map[string]any{"COL_HIT_COUNT": 100, "COL_RECID": paintR, "REC_ID": 0, "COL_ROUTE_NO": 0})
	objRoute1 := find(t, set, functiontrace.CallRoutes, map[string]any{"PARENT_ID": objR, "REC_ID": 0})
	objRoute2 := find(t, set, functiontrace.CallRoutes, map[string]any{"PARENT_ID": objR, "REC_ID": 1})
	check(t, set, functiontrace.CallRoutes, objRoute1, map[string]any{"COL_HIT_COUNT": 1})
	check(t, set, functiontrace.CallRoutes, objRoute2, map[string]any{"COL_HIT_COUNT": 88})
	if n := len(set.Tables[functiontrace.CallRoutes].Rows); n != 10 {
		t.Errorf("CALL_ROUTES %d rows, want 10", n)
	}
	// The call stack of the route to sqrt: sqrt, compute, runLoop, main.
	sqrtRoute := id(t, set, functiontrace.CallRoutes, map[string]any{"PARENT_ID": sqrtR})
	for callNo, rt := range []int64{sqrtR, compR, loopR, mainR} {
		check(t, set, functiontrace.CallStack, find(t, set, functiontrace.CallStack,
			map[string]any{"PARENT_ID": sqrtRoute, "COL_CALL_NO": callNo}), map[string]any{"COL_RECID": rt,
			"COL_ROUTINE_NAME": rt, "REC_ID": callNo})
	}
	check(t, set, functiontrace.CallStack, find(t, set, functiontrace.CallStack,
		map[string]any{"PARENT_ID": sqrtRoute, "COL_CALL_NO": 2}), map[string]any{"COL_SOURCE_FILE": "Example01.java",
		"COL_SOURCE_LINE": "26", "COL_MODULE_NAME": "com.terrasoft.profilerj.tutorial"})
}

func TestSamplerSection(t *testing.T) {
	mem, _ := readFile(t, example)
	set := mem.Sets[1]
	routine := func(name string) int64 {
		i := find(t, set, functiontrace.MetaRoutines, map[string]any{"COL_ROUTINE_NAME": name})
		return set.Tables[functiontrace.MetaRoutines].Value(i, "REC_ID").(int64)
	}
	// Two classes have dispatchEvent(java.awt.AWTEvent): told apart by class.
	find(t, set, functiontrace.MetaRoutines, map[string]any{"COL_ROUTINE_NAME": "dispatchEvent(java.awt.AWTEvent)", "COL_CLASS_NAME": "EventQueue"})
	comp := find(t, set, functiontrace.MetaRoutines, map[string]any{"COL_ROUTINE_NAME": "dispatchEvent(java.awt.AWTEvent)", "COL_CLASS_NAME": "Component"})
	// hits 6, elapsed 26: COL__S is elapsed; with children cumulatedElapsed.
	ct := find(t, set, functiontrace.CallTrace, map[string]any{"COL_RECID": comp})
	check(t, set, functiontrace.CallTrace, ct, map[string]any{"COL__S": 26, "COL__S_WITH_CHILDREN": 26})
	// No elapsed: COL__S falls back to hits.
	wait := routine("wait(native)")
	check(t, set, functiontrace.CallTrace, find(t, set, functiontrace.CallTrace, map[string]any{"COL_RECID": wait}),
		map[string]any{"COL__S": 323, "COL__S_WITH_CHILDREN": 323, "COL_PARENT_NO": 6, "REC_ID": 7})
	check(t, set, functiontrace.Routines, int(wait), map[string]any{"COL_HIT_COUNT": 323})
	// Distinct parameter lists are distinct routines.
	routine("pumpEvents(java.awt.Conditional)")
	routine("pumpEvents(int,java.awt.Conditional)")
	// No signature in the sampler: sources linked by class and method name.
	loop := routine("runLoop()")
	check(t, set, functiontrace.MetaRoutines, int(loop), map[string]any{"COL_SOURCE_FILE": "Example01.java", "COL_SOURCE_LINE": 26})
}

func TestMemorySection(t *testing.T) {
	mem, _ := readFile(t, example)
	set := mem.Sets[2]
	if n := len(set.Tables[resource.Threads].Rows); n != 2 {
		t.Errorf("%d threads", n)
	}
	rect := find(t, set, resource.ClassesData, map[string]any{"COL_CLASS_NAME": "Rectangle"})
	// In both threads: live count 61 + 45, peak created 1446 + 88.
	check(t, set, resource.ClassesData, rect, map[string]any{"COL_MODULE_NAME": "java.awt", "COL_LIVE_COUNT": "106",
		"COL_PEAK_CREATED": "1534", "COL_LIVE_SIZE": nil, "COL_TOTAL_CREATED": nil, "PARENT_ID": -1})
	check(t, set, resource.MetaClassesData, rect, map[string]any{"COL_CLASS_NAME": "Rectangle",
		"COL_SYMBOL_MONIKER": "java.awt.Rectangle", "ID": rect, "REC_ID": rect})
	if n := len(set.Tables[resource.ClassesData].Rows); n != 6 {
		t.Errorf("%d classes, want 6", n)
	}
}

func TestCoverageSection(t *testing.T) {
	mem, _ := readFile(t, example)
	set := mem.Sets[3]
	loop := id(t, set, lightcoverage.MetaRoutines, map[string]any{"COL_ROUTINE_NAME": "runLoop"})
	check(t, set, lightcoverage.MetaRoutines, int(loop), map[string]any{"COL_CLASS_NAME": "Example01",
		"COL_NAMESPACE": "com.terrasoft.profilerj.tutorial", "COL_MODULE_NAME": "com.terrasoft.profilerj.tutorial",
		"COL_SOURCE_FILE": "Example01.java", "COL_SOURCE_LINE": 26, "COL_CODE_TYPE": "Byte-code",
		"COL_PROFILELINES": -1, "COL_SYMBOL_MONIKER": "com.terrasoft.profilerj.tutorial.Example01.runLoop(I)V"})
	check(t, set, lightcoverage.RoutinesData, int(loop), map[string]any{"COL_MARK": "605", "ID": loop})
	// Footprints 605 605605 -1 605000 605000 -1 605 from line 26.
	for rec, l := range []struct {
		src  int64
		mark string
	}{{26, "605"}, {27, "605605"}, {29, "605000"}, {30, "605000"}, {32, "605"}} {
		i := find(t, set, lightcoverage.Lines, map[string]any{"PARENT_ID": loop, "REC_ID": rec})
		check(t, set, lightcoverage.Lines, i, map[string]any{"COL_SOURCE_LINE": l.src, "COL_MARK": l.mark})
		check(t, set, lightcoverage.MetaLines, i, map[string]any{"COL_SOURCE_LINE": l.src, "PARENT_ID": loop, "REC_ID": rec})
	}
	if n := len(set.Tables[lightcoverage.Lines].Rows); n != 18 {
		t.Errorf("%d lines, want 18", n)
	}
	// The class given with the `class` attribute.
	util := find(t, set, lightcoverage.MetaRoutines, map[string]any{"COL_ROUTINE_NAME": "format"})
	check(t, set, lightcoverage.MetaRoutines, util, map[string]any{"COL_CLASS_NAME": "Util", "COL_SOURCE_FILE": "Util.java"})
	// 13 of 18 lines covered in the module; 13 of 15 in Example01.java.
	check(t, set, lightcoverage.ModulesData, 0, map[string]any{"COL_MODULE_NAME": "com.terrasoft.profilerj.tutorial", "COL_MARK": "1"})
	approx(t, set.Tables[lightcoverage.ModulesData].Value(0, "COL____COVERED"), 13.0/18*100)
	f := find(t, set, lightcoverage.SourceFilesData, map[string]any{"COL_FILE_NAME": "Example01.java"})
	approx(t, set.Tables[lightcoverage.SourceFilesData].Value(f, "COL____COVERED"), 13.0/15*100)
	check(t, set, lightcoverage.SourceFilesData, f, map[string]any{"COL_HIT_COUNT": "13"})
	f = find(t, set, lightcoverage.SourceFilesData, map[string]any{"COL_FILE_NAME": "Util.java"})
	check(t, set, lightcoverage.SourceFilesData, f, map[string]any{"COL____COVERED": 0.0, "COL_HIT_COUNT": "0"})
}

func approx(t *testing.T, got any, want float64) {
	t.Helper()
	g, ok := got.(float64)
	if !ok || math.Abs(g-want) > 1e-9 {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestCoverageOnly: a Latin-1 file, `class` attributes, a class in the
// default package.
func TestCoverageOnly(t *testing.T) {
	mem, res := readFile(t, "../../examples/profilerj/coverage-only.xml")
	if len(res) != 1 || mem.Sets[0].Header.Caption != "coverage-only.xml: coverage" {
		t.Fatalf("results %+v", res)
	}
	set := mem.Sets[0]
	m := find(t, set, lightcoverage.MetaRoutines, map[string]any{"COL_ROUTINE_NAME": "main"})
	check(t, set, lightcoverage.MetaRoutines, m, map[string]any{"COL_CLASS_NAME": "Main", "COL_NAMESPACE": "",
		"COL_MODULE_NAME": "(default package)"})
	find(t, set, lightcoverage.ModulesData, map[string]any{"COL_MODULE_NAME": "org.example.shop"})
	find(t, set, lightcoverage.ModulesData, map[string]any{"COL_MODULE_NAME": "(default package)", "COL____COVERED": 100.0})
}

func TestAttributeVariants(t *testing.T) {
	doc := `<?xml version="1.0"?>
<doc>
 <profile>
  <thread>
   <profile name="p.A.a()" methodElapsed="5" method="1" cumulated="9"/>
   <profile/>
  </thread>
 </profile>
 <sampler><thread><profile name="p.A.a()" hits="4" cumulated="6"/></thread></sampler>
 <memory><thread><memory class="p.C" count="3"/><memory class="p.D" max="8"/><memory/></thread></memory>
 <coverage>
  <class name="p.Named" source="N.java"><method name="m" firstline="3" count="2"><footprints>1</footprints></method></class>
  <class class="p.Classed"><method name="m"><footprints> 0
  4 </footprints></method></class>
  <class><method/></class>
 </coverage>
</doc>`
	mem, warnings := readString(t, doc)
	if len(mem.Sets) != 4 {
		t.Fatalf("%d result sets", len(mem.Sets))
	}
	prof := mem.Sets[0]
	check(t, prof, functiontrace.CallTrace, find(t, prof, functiontrace.CallTrace, map[string]any{"REC_ID": 0}),
		map[string]any{"COL__S": 5, "COL__S_WITH_CHILDREN": 9, "COL_NEXT": 1})
	// A node without attributes: a routine without a name, zero figures.
	empty := find(t, prof, functiontrace.MetaRoutines, map[string]any{"COL_ROUTINE_NAME": ""})
	check(t, prof, functiontrace.Routines, empty, map[string]any{"COL_HIT_COUNT": 0})
	check(t, prof, functiontrace.CallTrace, find(t, prof, functiontrace.CallTrace, map[string]any{"REC_ID": 1}),
		map[string]any{"COL__S": 0, "COL__S_WITH_CHILDREN": 0, "COL_RECID": empty})

	samp := mem.Sets[1]
	check(t, samp, functiontrace.CallTrace, 0, map[string]any{"COL__S": 4, "COL__S_WITH_CHILDREN": 6})
	check(t, samp, functiontrace.Routines, 0, map[string]any{"COL_HIT_COUNT": 4})

	res := mem.Sets[2]
	check(t, res, resource.ClassesData, find(t, res, resource.ClassesData, map[string]any{"COL_CLASS_NAME": "C"}),
		map[string]any{"COL_LIVE_COUNT": "3", "COL_PEAK_CREATED": nil})
	check(t, res, resource.ClassesData, find(t, res, resource.ClassesData, map[string]any{"COL_CLASS_NAME": "D"}),
		map[string]any{"COL_LIVE_COUNT": nil, "COL_PEAK_CREATED": "8"})
	// <memory/> without class: a nameless class in the default package, no figures.
	check(t, res, resource.ClassesData, find(t, res, resource.ClassesData, map[string]any{"COL_CLASS_NAME": ""}),
		map[string]any{"COL_LIVE_COUNT": nil, "COL_MODULE_NAME": "(default package)"})

	cov := mem.Sets[3]
	check(t, cov, lightcoverage.MetaRoutines, 0, map[string]any{"COL_CLASS_NAME": "Named", "COL_SOURCE_LINE": 3})
	check(t, cov, lightcoverage.MetaRoutines, 1, map[string]any{"COL_CLASS_NAME": "Classed", "COL_SOURCE_FILE": "", "COL_SOURCE_LINE": 0})
	check(t, cov, lightcoverage.MetaRoutines, 2, map[string]any{"COL_CLASS_NAME": "", "COL_ROUTINE_NAME": ""})
	check(t, cov, lightcoverage.RoutinesData, 2, map[string]any{"COL_MARK": "0"})
	// No firstline: lines count from 0, with a warning naming the line.
	check(t, cov, lightcoverage.Lines, 1, map[string]any{"PARENT_ID": 1, "COL_SOURCE_LINE": 0, "COL_MARK": "0"})
	check(t, cov, lightcoverage.Lines, 2, map[string]any{"PARENT_ID": 1, "COL_SOURCE_LINE": 1, "COL_MARK": "4"})
	if len(warnings) != 1 || !strings.Contains(warnings[0], "in.xml:13:") || !strings.Contains(warnings[0], "firstline") {
		t.Errorf("warnings %q", warnings)
	}
}

func TestUnknownElementsSkipped(t *testing.T) {
	doc := `<doc><meta><x>1</x></meta><coverage><class name="a.B"><annotation/><method name="m" firstline="1">` +
		`<footprints>2</footprints><extra>text</extra></method></class></coverage></doc>`
	mem, warnings := readString(t, doc)
	if len(mem.Sets) != 1 || len(mem.Sets[0].Tables[lightcoverage.Lines].Rows) != 1 {
		t.Fatalf("sets %d", len(mem.Sets))
	}
	if len(warnings) != 3 {
		t.Errorf("warnings %q, want 3", warnings)
	}
}

func TestSniffAndRegistry(t *testing.T) {
	for head, want := range map[string]bool{
		"<doc>": true,
		"\xEF\xBB\xBF<?xml version=\"1.0\"?>\n<doc>\n":                true,
		"<?xml version='1.0'?><!-- c --><!DOCTYPE doc><doc><profile>": true,
		// An internal subset, with '>' inside, longer than the head.
		"<?xml version='1.0'?>\n<!DOCTYPE doc [\n<!ENTITY a \"x\">\n<!ENTITY b \"&a;&a;\">\n" + strings.Repeat("<!-- pad -->", 400): true,
		"<!DOCTYPE doc[<!ENTITY a 'x'>]><doc>":                true,
		"<!DOCTYPE document [<!ENTITY a 'x'>]><document>":     false,
		"<!DOCTYPE coverage SYSTEM 'coverage.dtd'><coverage>": false,
		"<!DOCTYPEdoc><doc>":                                  false,
		"  \n<doc/>":                                          true,
		"<document>":                                          false,
		"<?xml version=\"1.0\"?><coverage>":                   false,
		"<?xml version=\"1.0":                                 false,
		"{\"doc\": 1}":                                        false,
		"":                                                    false,
	} {
		if got := profilerj.Sniff([]byte(head)); got != want {
			t.Errorf("Sniff(%q) = %v, want %v", head, got, want)
		}
	}
	f, err := input.Lookup("profilerj")
	if err != nil || f.Name != "profilerj" {
		t.Fatalf("Lookup: %v", err)
	}
	head, _ := os.ReadFile(example)
	d, err := input.Detect(head[:min(len(head), 4096)])
	if err != nil || d.Name != "profilerj" {
		t.Errorf("Detect: %v %v", d.Name, err)
	}
}

// TestEncodings: single-byte encodings are converted to UTF-8.
func TestEncodings(t *testing.T) {
	for enc, want := range map[string]string{"ISO-8859-1": "Café", "windows-1252": "Café€"} {
		doc := `<?xml version="1.0" encoding="` + enc + `"?><doc><memory><thread><memory class="p.Caf` + "\xe9\x80" + `"/></thread></memory></doc>`
		if enc == "ISO-8859-1" {
			doc = strings.Replace(doc, "\x80", "", 1)
		}
		mem, _ := readString(t, doc)
		check(t, mem.Sets[0], resource.ClassesData, 0, map[string]any{"COL_CLASS_NAME": want})
	}
}
