package interchange

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
)

// examplesFiles returns the sample inputs in examples/; none fails the
// test, so that no check over them passes for want of inputs.
func examplesFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("../../examples/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no examples in ../../examples/*.json")
	}
	return files
}

func readExample(t *testing.T, file string) *resultset.Memory {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := &resultset.Memory{}
	res, err := Read(context.Background(), f, filepath.Base(file), m)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(m.Sets) || len(res) == 0 {
		t.Fatalf("%d results, %d sets", len(res), len(m.Sets))
	}
	return m
}

// TestExamples reads every examples/*.json and checks that each is
// consistent: every child row's PARENT_ID is the ID of a row of its parent
// table, every top-level row's PARENT_ID is -1, IDs are unique per table,
// and every profiler of profdb has an example.
func TestExamples(t *testing.T) {
	files := examplesFiles(t)
	want := map[string]string{
		"function-trace.json":  "function-trace",
		"light-coverage.json":  "light-coverage",
		"resource.json":        "resource",
		"reference-count.json": "reference-count",
	}
	seen := map[string]bool{}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			m := readExample(t, file)
			for _, set := range m.Sets {
				seen[filepath.Base(file)] = true
				if p, ok := want[filepath.Base(file)]; ok && p != set.Header.Profiler {
					t.Errorf("profiler %s, want %s", set.Header.Profiler, p)
				}
				for _, p := range parentLinkProblems(set) {
					t.Error(p)
				}
			}
		})
	}
	for f := range want {
		if !seen[f] {
			t.Errorf("examples/%s is missing", f)
		}
	}
}

// parentLinkProblems lists what is inconsistent in set's parent links.
func parentLinkProblems(set resultset.MemorySet) []string {
	var out []string
	errorf := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	def, err := profilers.Lookup(set.Header.Profiler)
	if err != nil {
		return []string{err.Error()}
	}
	ids := map[string]map[int64]bool{}
	for name, tb := range set.Tables {
		ids[name] = map[int64]bool{}
		for i := range tb.Rows {
			id, ok := tb.Value(i, "ID").(int64)
			if !ok {
				errorf("table %s row %d: no ID", name, i+1)
				continue
			}
			if ids[name][id] {
				errorf("table %s: ID %d twice", name, id)
			}
			ids[name][id] = true
		}
	}
	for name, tb := range set.Tables {
		td, _ := def.Table(name)
		if td.Parent != "" && set.Tables[td.Parent] == nil {
			errorf("table %s without its parent table %s", name, td.Parent)
		}
		for i := range tb.Rows {
			pid, ok := tb.Value(i, "PARENT_ID").(int64)
			switch {
			case !ok:
				errorf("table %s row %d: no PARENT_ID", name, i+1)
			case td.Parent == "" && pid != -1:
				errorf("top-level table %s row %d: PARENT_ID %d, want -1", name, i+1, pid)
			case td.Parent != "" && !ids[td.Parent][pid]:
				errorf("table %s row %d: PARENT_ID %d is no ID of %s", name, i+1, pid, td.Parent)
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestParentLinkProblems proves that the check can fail.
func TestParentLinkProblems(t *testing.T) {
	set := readExample(t, "../../examples/resource.json").Sets[0]
	set.Tables["RESOURCE_PROFILER_CALL_STACK"].Rows[0][2] = int64(99) // PARENT_ID
	set.Tables["RESOURCE_PROFILER_THREADS"].Rows[1][3] = int64(0)     // PARENT_ID
	set.Tables["RESOURCE_PROFILER_META_LINES"].Rows[1][1] = int64(0)  // ID
	delete(set.Tables, "RESOURCE_PROFILER_OBJECTS")
	got := strings.Join(parentLinkProblems(set), "\n")
	for _, want := range []string{
		"table RESOURCE_PROFILER_CALL_STACK row 1: PARENT_ID 99 is no ID of RESOURCE_PROFILER_ERRORS",
		"top-level table RESOURCE_PROFILER_THREADS row 2: PARENT_ID 0, want -1",
		"table RESOURCE_PROFILER_META_LINES: ID 0 twice",
		"table RESOURCE_PROFILER_CREATION_CALL_STACK without its parent table RESOURCE_PROFILER_OBJECTS",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q; got\n%s", want, got)
		}
	}
}

func intCol(t *testing.T, tb *resultset.MemoryTable, i int, col string) int64 {
	t.Helper()
	v, ok := tb.Value(i, col).(int64)
	if !ok {
		t.Fatalf("row %d %s = %#v, want an integer", i+1, col, tb.Value(i, col))
	}
	return v
}

func decCol(t *testing.T, tb *resultset.MemoryTable, i int, col string) string {
	t.Helper()
	v, ok := tb.Value(i, col).(ddl.Dec)
	if !ok {
		t.Fatalf("row %d %s = %#v, want a decimal", i+1, col, tb.Value(i, col))
	}
	return string(v)
}

// TestExampleFunctionTrace checks what makes the function trace sample
// realistic: times with children add up along the call tree, hit counts
// match the calls, call routes and stacks match the tree.
func TestExampleFunctionTrace(t *testing.T) {
	set := readExample(t, "../../examples/function-trace.json").Sets[0]
	if c := set.Header.Counter; c == nil || c.Name != "Time" || c.Description != "Elapsed Time" || c.Frequency != json.Number("2400000000") {
		t.Errorf("counter %+v", c)
	}
	ct := set.Tables[functiontrace.CallTrace]
	if n := len(ct.Rows); n < 15 {
		t.Errorf("%d CALL_TRACE rows", n)
	}
	type key struct{ thread, rec int64 }
	byRec := map[key]int{}
	for i := range ct.Rows {
		byRec[key{intCol(t, ct, i, "PARENT_ID"), intCol(t, ct, i, "REC_ID")}] = i
	}
	children := map[int][]int{}
	calls := map[int64]int64{}
	for i := range ct.Rows {
		calls[intCol(t, ct, i, "COL_RECID")]++
		if intCol(t, ct, i, "COL_ROUTINE_NAME") != intCol(t, ct, i, "COL_RECID") {
			t.Errorf("CALL_TRACE row %d: COL_ROUTINE_NAME differs from COL_RECID", i+1)
		}
		pno := intCol(t, ct, i, "COL_PARENT_NO")
		if pno == -1 {
			continue
		}
		p, ok := byRec[key{intCol(t, ct, i, "PARENT_ID"), pno}]
		if !ok {
			t.Errorf("CALL_TRACE row %d: COL_PARENT_NO %d is no call of its thread", i+1, pno)
			continue
		}
		children[p] = append(children[p], i)
	}
	for i := range ct.Rows {
		sum := intCol(t, ct, i, "COL__S")
		for _, c := range children[i] {
			sum += intCol(t, ct, c, "COL__S_WITH_CHILDREN")
		}
		if got := intCol(t, ct, i, "COL__S_WITH_CHILDREN"); got != sum {
			t.Errorf("CALL_TRACE row %d: with children %d, want %d", i+1, got, sum)
		}
		if next := intCol(t, ct, i, "COL_NEXT"); next != -1 {
			n, ok := byRec[key{intCol(t, ct, i, "PARENT_ID"), next}]
			if !ok || intCol(t, ct, n, "COL_PARENT_NO") != intCol(t, ct, i, "COL_PARENT_NO") {
				t.Errorf("CALL_TRACE row %d: COL_NEXT %d is no sibling", i+1, next)
			}
		}
	}
	meta := set.Tables[functiontrace.MetaRoutines]
	metaRec := map[int64]bool{}
	for i := range meta.Rows {
		metaRec[intCol(t, meta, i, "REC_ID")] = true
	}
	rt := set.Tables[functiontrace.Routines]
	if len(rt.Rows) != len(meta.Rows) || len(rt.Rows) < 5 {
		t.Errorf("%d ROUTINES, %d META_ROUTINES", len(rt.Rows), len(meta.Rows))
	}
	routeHits := map[int64]int64{} // by ROUTINES ID
	routes := set.Tables[functiontrace.CallRoutes]
	stackLen := map[int64]int64{}
	stack := set.Tables[functiontrace.CallStack]
	for i := range stack.Rows {
		stackLen[intCol(t, stack, i, "PARENT_ID")]++
	}
	for i := range routes.Rows {
		routeHits[intCol(t, routes, i, "PARENT_ID")] += intCol(t, routes, i, "COL_HIT_COUNT")
		if stackLen[intCol(t, routes, i, "ID")] == 0 {
			t.Errorf("CALL_ROUTES row %d has no CALL_STACK", i+1)
		}
	}
	for i := range stack.Rows {
		if intCol(t, stack, i, "COL_CALL_NO") != intCol(t, stack, i, "REC_ID") || !metaRec[intCol(t, stack, i, "COL_RECID")] {
			t.Errorf("CALL_STACK row %d inconsistent", i+1)
		}
		decCol(t, stack, i, "COL_SOURCE_LINE")
	}
	for i := range rt.Rows {
		rec := intCol(t, rt, i, "REC_ID")
		if !metaRec[rec] {
			t.Errorf("ROUTINES row %d: REC_ID %d not in META_ROUTINES", i+1, rec)
		}
		hits := intCol(t, rt, i, "COL_HIT_COUNT")
		if hits != calls[rec] || hits != routeHits[intCol(t, rt, i, "ID")] {
			t.Errorf("ROUTINES row %d: hit count %d, %d calls, %d by route", i+1, hits, calls[rec], routeHits[intCol(t, rt, i, "ID")])
		}
	}
	threads := set.Tables[functiontrace.Threads]
	if len(threads.Rows) != 2 {
		t.Errorf("%d threads", len(threads.Rows))
	}
}

// TestExampleLightCoverage checks that % covered is covered lines ÷ lines ×
// 100 for every source file and module.
func TestExampleLightCoverage(t *testing.T) {
	set := readExample(t, "../../examples/light-coverage.json").Sets[0]
	rd := set.Tables[lightcoverage.RoutinesData]
	lines := set.Tables[lightcoverage.Lines]
	type count struct{ covered, total int }
	counts := map[string]count{}
	routine := map[int64]int{}
	for i := range rd.Rows {
		routine[intCol(t, rd, i, "ID")] = i
	}
	for i := range lines.Rows {
		r := routine[intCol(t, lines, i, "PARENT_ID")]
		mark := decCol(t, lines, i, "COL_MARK")
		for _, k := range []string{"file " + rd.Value(r, "COL_SOURCE_FILE").(string), "module " + rd.Value(r, "COL_MODULE_NAME").(string)} {
			c := counts[k]
			c.total++
			if mark != "0" {
				c.covered++
			}
			counts[k] = c
		}
	}
	check := func(tb *resultset.MemoryTable, nameCol, prefix string) {
		if len(tb.Rows) < 2 {
			t.Errorf("%s: %d rows", prefix, len(tb.Rows))
		}
		for i := range tb.Rows {
			name := tb.Value(i, nameCol).(string)
			c := counts[prefix+name]
			if c.total == 0 {
				t.Errorf("%s %s has no lines", prefix, name)
				continue
			}
			want := float64(c.covered) / float64(c.total) * 100
			if got := tb.Value(i, "COL____COVERED").(float64); math.Abs(got-want) > 1e-9 {
				t.Errorf("%s%s: %% covered %v, want %d / %d × 100 = %v", prefix, name, got, c.covered, c.total, want)
			}
			if intCol(t, tb, i, "COL_CALCULATED") != -1 || intCol(t, tb, i, "COL_SKIP_COUNT") != 0 {
				t.Errorf("%s%s: COL_CALCULATED / COL_SKIP_COUNT not as documented", prefix, name)
			}
		}
	}
	check(set.Tables[lightcoverage.SourceFilesData], "COL_FILE_NAME", "file ")
	check(set.Tables[lightcoverage.ModulesData], "COL_MODULE_NAME", "module ")
	if !strings.Contains(set.Header.Caption, "Sample.exe") {
		t.Errorf("caption %q", set.Header.Caption)
	}
}
