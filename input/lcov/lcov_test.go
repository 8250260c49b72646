package lcov

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/internal/inputtest"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
)

// routine is one routine of a result set: what a tracefile gives of it.
type routine struct {
	File, Name, Module string
	Line, Count        int64
	Lines              map[int64]int64 // source line -> count
}

// routines returns the routines of set by "file:name"; all are at line
// level.
func routines(t *testing.T, set resultset.MemorySet) map[string]routine {
	t.Helper()
	out := map[string]routine{}
	for _, r := range inputtest.Routines(t, set) {
		if r.ProfileLines != -1 {
			t.Errorf("COL_PROFILELINES %d, want -1 (line level)", r.ProfileLines)
		}
		out[r.File+":"+r.Name] = routine{r.File, r.Name, r.Module, r.Line, r.Count, r.Lines}
	}
	return out
}

func read(t *testing.T, name string, data []byte) (inputtest.Result, error) {
	t.Helper()
	return inputtest.Read(t, Read, name, data, input.Options{})
}

func readTestdata(t *testing.T, file string) inputtest.Result {
	t.Helper()
	return inputtest.ReadFile(t, Read, filepath.Join("testdata", file), input.Options{})
}

// checkC asserts what the C program in testdata/c gives, as lcov 1.16 and
// gcc 12 record it (testdata/coverage.info; lcov22.info is the same in lcov
// 2.2's layout).
func checkC(t *testing.T, res inputtest.Result) {
	t.Helper()
	if len(res.Warnings) != 0 {
		t.Errorf("warnings: %q", res.Warnings)
	}
	got := routines(t, res.Set)
	want := map[string]routine{
		"c/util.c:square":       {"c/util.c", "square", "c", 3, 5, map[int64]int64{3: 5, 5: 5}},
		"c/util.c:clamp":        {"c/util.c", "clamp", "c", 8, 1, map[int64]int64{8: 1, 10: 1, 11: 0, 12: 1, 13: 1, 14: 0}},
		"c/util.c:never_called": {"c/util.c", "never_called", "c", 17, 0, map[int64]int64{17: 0, 19: 0, 20: 0}},
		// The loop: the for line runs 6 times (5 iterations and the exit
		// test), its body 5.
		"c/main.c:sum_squares": {"c/main.c", "sum_squares", "c", 4, 1, map[int64]int64{4: 1, 6: 1, 7: 6, 8: 5, 9: 1}},
		"c/main.c:main":        {"c/main.c", "main", "c", 12, 1, map[int64]int64{12: 1, 14: 1, 15: 1, 16: 1}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("routines\n got %+v\nwant %+v", got, want)
	}
	// util.c: 11 lines, 6 covered; main.c: 9 of 9; the folder c: 15 of 20.
	inputtest.CheckCovered(t, res.Set, lightcoverage.SourceFilesData, "COL_FILE_NAME", map[string]float64{"c/util.c": 600.0 / 11, "c/main.c": 100})
	inputtest.CheckCovered(t, res.Set, lightcoverage.ModulesData, "COL_MODULE_NAME", map[string]float64{"c": 75})
}

func TestLcov116(t *testing.T) {
	res := readTestdata(t, "coverage.info")
	if res.Set.Header.Caption != "lcov: coverage.info" || res.Set.Header.Profiler != lightcoverage.Name {
		t.Errorf("header %+v", res.Set.Header)
	}
	checkC(t, res)
}

// TestLcov22 reads the same coverage in lcov 2.2's layout: FNL/FNA with end
// lines, VER, branch records.
func TestLcov22(t *testing.T) {
	checkC(t, readTestdata(t, "lcov22.info"))
}

// TestRegenerate runs testdata/make.sh (gcc --coverage, a run, lcov
// --capture) into a temporary file and checks what does not depend on the
// gcc version; under CI=true missing tools fail the test.
func TestRegenerate(t *testing.T) {
	inputtest.NeedTools(t, "lcov", "gcc", "lcov", "sh")
	out := filepath.Join(t.TempDir(), "coverage.info")
	cmd := exec.Command("sh", filepath.Join("testdata", "make.sh"), out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make.sh: %v\n%s", err, b)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	res, err := read(t, "coverage.info", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings: %q", res.Warnings)
	}
	got := routines(t, res.Set)
	counts := map[string]int64{}
	for k, r := range got {
		counts[k] = r.Count
	}
	if want := map[string]int64{"c/util.c:square": 5, "c/util.c:clamp": 1, "c/util.c:never_called": 0,
		"c/main.c:sum_squares": 1, "c/main.c:main": 1}; !reflect.DeepEqual(counts, want) {
		t.Errorf("routine counts %v, want %v", counts, want)
	}
	never := got["c/util.c:never_called"]
	if len(never.Lines) == 0 {
		t.Error("never_called has no lines")
	}
	for l, c := range never.Lines {
		if c != 0 {
			t.Errorf("never_called line %d ran %d times", l, c)
		}
	}
	if c := got["c/main.c:sum_squares"].Lines[8]; c != 5 {
		t.Errorf("loop body (main.c:8) ran %d times, want 5", c)
	}
	// C has no code outside functions, so a file's %% covered is its DA
	// lines with a count ÷ its DA lines.
	want := map[string]float64{}
	var file string
	var lines, hit float64
	for _, ln := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(ln, "SF:"):
			file, lines, hit = ln[3:], 0, 0
		case strings.HasPrefix(ln, "DA:"):
			lines++
			if !strings.HasSuffix(ln, ",0") {
				hit++
			}
		case ln == "end_of_record":
			want[file] = hit / lines * 100
		}
	}
	inputtest.CheckCovered(t, res.Set, lightcoverage.SourceFilesData, "COL_FILE_NAME", want)
}

// TestNode reads the tracefile of Node's lcov test reporter (Istanbul's
// layout, no end lines): a function's lines run up to the next function.
func TestNode(t *testing.T) {
	res := readTestdata(t, "node.info")
	got := routines(t, res.Set)
	want := map[string]routine{
		"calc.js:add": {"calc.js", "add", ".", 1, 4, map[int64]int64{1: 4, 2: 4, 3: 4, 4: 1}},
		// Node reports the blank line 9 as run; without end lines it falls
		// to never.
		"calc.js:never": {"calc.js", "never", ".", 5, 0, map[int64]int64{5: 0, 6: 0, 7: 0, 8: 0, 9: 1}},
		// The loop body (line 13) ran 4 times. Node counts sumTo 4 times.
		"calc.js:sumTo": {"calc.js", "sumTo", ".", 10, 4, map[int64]int64{10: 1, 11: 1, 12: 1, 13: 4, 14: 4}},
		// The nested arrow function, the last one, takes the rest of the
		// file.
		"calc.js:twice":            {"calc.js", "twice", ".", 15, 1, map[int64]int64{15: 1, 16: 1, 17: 1, 18: 1, 19: 1, 20: 1, 21: 1}},
		"calc.test.js:anonymous_0": {"calc.test.js", "anonymous_0", ".", 4, 1, map[int64]int64{4: 1}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("routines\n got %+v\nwant %+v", got, want)
	}
	inputtest.CheckCovered(t, res.Set, lightcoverage.SourceFilesData, "COL_FILE_NAME", map[string]float64{"calc.js": 1700.0 / 21, "calc.test.js": 100})
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "3 lines in 1 file (first SF:calc.test.js) lie outside every function") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// TestRegenerateNode runs testdata/make-node.sh when node is installed and
// checks what should not depend on the Node version.
func TestRegenerateNode(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	out := filepath.Join(t.TempDir(), "node.info")
	cmd := exec.Command("sh", filepath.Join("testdata", "make-node.sh"), out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("make-node.sh (needs Node 20 or later): %v\n%s", err, b)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	res, err := read(t, "node.info", data)
	if err != nil {
		t.Fatal(err)
	}
	got := routines(t, res.Set)
	if names := slices.Sorted(func(yield func(string) bool) {
		for k := range got {
			if !yield(k) {
				return
			}
		}
	}); !slices.Equal(names, []string{"calc.js:add", "calc.js:never", "calc.js:sumTo", "calc.js:twice", "calc.test.js:anonymous_0"}) {
		t.Errorf("routines %v", names)
	}
	never := got["calc.js:never"]
	if never.Count != 0 || never.Lines[6] != 0 || never.Lines[7] != 0 {
		t.Errorf("never: %+v", never)
	}
	if c := got["calc.js:sumTo"].Lines[13]; c != 4 {
		t.Errorf("loop body (calc.js:13) ran %d times, want 4", c)
	}
	if c := got["calc.js:add"].Count; c != 4 {
		t.Errorf("add ran %d times, want 4", c)
	}
}

func TestLLVM(t *testing.T) {
	res := readTestdata(t, "llvm.info")
	if len(res.Warnings) != 0 {
		t.Errorf("warnings %q", res.Warnings)
	}
	got := routines(t, res.Set)
	want := map[string]routine{
		"/src/shapes.cpp:_Z4areai":         {"/src/shapes.cpp", "_Z4areai", "/src", 3, 2, map[int64]int64{3: 2, 4: 2, 5: 2}},
		"/src/shapes.cpp:_ZN5Shape4drawEv": {"/src/shapes.cpp", "_ZN5Shape4drawEv", "/src", 8, 1, map[int64]int64{8: 1, 9: 1, 10: 0, 11: 1}},
		"/src/shapes.cpp:_Z6unusedv":       {"/src/shapes.cpp", "_Z6unusedv", "/src", 14, 0, map[int64]int64{14: 0, 15: 0, 16: 0}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("routines\n got %+v\nwant %+v", got, want)
	}
	inputtest.CheckCovered(t, res.Set, lightcoverage.SourceFilesData, "COL_FILE_NAME", map[string]float64{"/src/shapes.cpp": 60})
	if res.Set.Header.Caption != "lcov: llvm.info" {
		t.Errorf("caption %q", res.Set.Header.Caption)
	}
}

// TestCoveragePy: FN with end lines after the DA lines; a file without
// FN records; checksums on DA lines.
func TestCoveragePy(t *testing.T) {
	res := readTestdata(t, "coveragepy.info")
	got := routines(t, res.Set)
	want := map[string]routine{
		"pkg/mod.py:helper": {"pkg/mod.py", "helper", "pkg", 4, 0, map[int64]int64{4: 1, 5: 0}},
		"pkg/mod.py:loop":   {"pkg/mod.py", "loop", "pkg", 7, 1, map[int64]int64{7: 1, 8: 3}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("routines\n got %+v\nwant %+v", got, want)
	}
	// Lines 1 and 2 of mod.py and all of plain.py are outside functions.
	inputtest.CheckCovered(t, res.Set, lightcoverage.SourceFilesData, "COL_FILE_NAME", map[string]float64{"pkg/mod.py": 75})
	inputtest.CheckCovered(t, res.Set, lightcoverage.ModulesData, "COL_MODULE_NAME", map[string]float64{"pkg": 75})
	// The input's name as it was given: with the platform's separator.
	file := filepath.Join("testdata", "coveragepy.info")
	wantWarn := []string{
		file + ":19: SF:pkg/plain.py has no function records: its 2 lines are not counted",
		file + ": 2 lines in 1 file (first SF:pkg/mod.py) lie outside every function and are not counted",
	}
	if !slices.Equal(res.Warnings, wantWarn) {
		t.Errorf("warnings\n got %q\nwant %q", res.Warnings, wantWarn)
	}
}

func TestExtents(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       map[string]map[int64]int64
		warnings   int
	}{{
		name: "nested with end lines: the innermost wins",
		body: "FN:1,10,outer\nFN:3,5,inner\nDA:2,1\nDA:3,2\nDA:4,2\nDA:5,2\nDA:6,1\nDA:10,1\nDA:11,1\n",
		want: map[string]map[int64]int64{"outer": {2: 1, 6: 1, 10: 1}, "inner": {3: 2, 4: 2, 5: 2}},
		// line 11: outside
		warnings: 1,
	}, {
		name: "without end lines: up to the next function",
		body: "FN:5,b\nFN:1,a\nDA:1,1\nDA:4,1\nDA:5,0\nDA:100,0\n",
		want: map[string]map[int64]int64{"a": {1: 1, 4: 1}, "b": {5: 0, 100: 0}},
	}, {
		name: "same start line: the first defined takes the lines",
		body: "FN:2,_Z1fIiEvv\nFN:2,_Z1fIdEvv\nDA:2,1\nDA:3,1\n",
		want: map[string]map[int64]int64{"_Z1fIiEvv": {2: 1, 3: 1}, "_Z1fIdEvv": {}},
	}, {
		name: "mixed: an end line leaves a gap, the next function without one runs on",
		body: "FN:1,2,a\nFN:5,b\nDA:1,1\nDA:3,1\nDA:5,1\nDA:9,1\n",
		want: map[string]map[int64]int64{"a": {1: 1}, "b": {5: 1, 9: 1}},
		// line 3: outside
		warnings: 1,
	}, {
		name: "demangled names with commas",
		body: "FN:1,3,f(int, int)\nFN:5,g(a, b)\nFNDA:2,f(int, int)\nDA:1,2\nDA:5,0\n",
		want: map[string]map[int64]int64{"f(int, int)": {1: 2}, "g(a, b)": {5: 0}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := read(t, "x.info", []byte("SF:x.c\n"+tc.body+"end_of_record\n"))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]map[int64]int64{}
			for _, r := range routines(t, res.Set) {
				got[r.Name] = r.Lines
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("lines %v, want %v", got, tc.want)
			}
			if len(res.Warnings) != tc.warnings {
				t.Errorf("warnings %q", res.Warnings)
			}
		})
	}
}

// TestMerge: records of one file (two tests) add up; FNDA may come before
// FN; duplicate DA lines add up.
func TestMerge(t *testing.T) {
	trace := "TN:one\nSF:a.c\nFNDA:2,f\nFN:1,f\nDA:1,2\nDA:2,2\nDA:2,1\nend_of_record\n" +
		"TN:two\nSF:a.c\nFN:1,4,f\nFN:6,g\nFNDA:3,f\nDA:1,3\nDA:6,0\nend_of_record\n"
	res, err := read(t, "m.info", []byte(trace))
	if err != nil {
		t.Fatal(err)
	}
	got := routines(t, res.Set)
	want := map[string]routine{
		"a.c:f": {"a.c", "f", ".", 1, 5, map[int64]int64{1: 5, 2: 3}},
		"a.c:g": {"a.c", "g", ".", 6, 0, map[int64]int64{6: 0}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("routines\n got %+v\nwant %+v", got, want)
	}
	if res.Set.Header.Caption != "lcov: m.info" {
		t.Errorf("caption %q (two tests: none named)", res.Set.Header.Caption)
	}
	res, err = read(t, "dir/m.info", []byte("TN:unit\n"+trace[len("TN:one\n"):strings.Index(trace, "TN:two")]))
	if err != nil {
		t.Fatal(err)
	}
	if res.Set.Header.Caption != "lcov: m.info (unit)" {
		t.Errorf("caption %q", res.Set.Header.Caption)
	}
}

func TestWarnings(t *testing.T) {
	res, err := read(t, "w.info", []byte("SF:a.c\nFN:1,f\nFNDA:1,gone\nDA:1,-1\nDA:2,-5\nXYZ:1\nXYZ:2\nend_of_record\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"w.info:4: 2 negative counts taken as 0",
		"w.info: 2 XYZ: records of an unknown type ignored",
		"w.info:3: FNDA for gone, which no FN of SF:a.c defines: ignored",
	}
	if !slices.Equal(res.Warnings, want) {
		t.Errorf("warnings\n got %q\nwant %q", res.Warnings, want)
	}
	if r := routines(t, res.Set)["a.c:f"]; r.Count != 0 || !reflect.DeepEqual(r.Lines, map[int64]int64{1: 0, 2: 0}) {
		t.Errorf("f: %+v", r)
	}
}

func TestMalformed(t *testing.T) {
	inputtest.CheckRefused(t, Read, "bad.info", input.Options{}, []inputtest.Refused{
		{"SF:a.c\nDA:x,1\nend_of_record\n", "bad.info:2: DA line \"x\" is not a line number"},
		{"SF:a.c\nDA:0,1\nend_of_record\n", "bad.info:2: DA line \"0\" is not a line number"},
		{"SF:a.c\nDA:3\nend_of_record\n", "bad.info:2: malformed DA record"},
		{"SF:a.c\nDA:3,1.5\nend_of_record\n", "bad.info:2: DA count \"1.5\" is not an integer"},
		{"SF:a.c\nFN:a,f\nend_of_record\n", "bad.info:2: FN start line \"a\""},
		{"SF:a.c\nFN:3\nend_of_record\n", "bad.info:2: malformed FN record"},
		{"SF:a.c\nFN:3,\nend_of_record\n", "bad.info:2: function without a name"},
		{"SF:a.c\nFN:5,3,f\nend_of_record\n", "bad.info:2: function f ends (line 3) before it starts (line 5)"},
		{"SF:a.c\nFN:5,f\nFN:6,f\nend_of_record\n", "bad.info:3: function f starts on line 6 here but on line 5 at line 2"},
		{"SF:a.c\nFNDA:x,f\nend_of_record\n", "bad.info:2: FNDA count \"x\""},
		{"SF:a.c\nFNDA:1\nend_of_record\n", "bad.info:2: malformed FNDA record"},
		{"SF:a.c\nFNL:0,5,3\nend_of_record\n", "bad.info:2: function ends (line 3) before it starts (line 5)"},
		{"SF:a.c\nFNL:0\nend_of_record\n", "bad.info:2: malformed FNL record"},
		{"SF:a.c\nFNL:0,1\nFNL:0,2\nend_of_record\n", "bad.info:3: FNL index 0 given twice"},
		{"SF:a.c\nFNA:0,1\nend_of_record\n", "bad.info:2: malformed FNA record"},
		{"SF:a.c\nFNL:0,1\nFNA:1,1,f\nend_of_record\n", "bad.info:3: FNA for index 1, which no FNL of this record defines"},
		{"TN:\nDA:1,1\n", "bad.info:2: \"DA\" record outside an SF"},
		{"end_of_record\n", "bad.info:1: end_of_record without SF"},
		{"SF:a.c\nSF:b.c\n", "bad.info:2: SF:b.c before the end_of_record of SF:a.c (line 1)"},
		{"SF:\n", "bad.info:1: SF without a file name"},
		{"SF:a.c\nDA:1,1\nend_of_record\nSF:b.c\nDA:1,1\n", "bad.info:5: the file ends inside the record of SF:b.c (line 4)"},
		{"SF:a.c\nhello world\nend_of_record\n", "bad.info:2: malformed record \"hello world\""},
		{"SF:a.c\nda:1,1\nend_of_record\n", "bad.info:2: malformed record"},
		{"SF:a.c\nDA:1," + strings.Repeat("9", maxLine) + "\n", "bad.info:2: line longer than"},
	})
}

func TestRegistered(t *testing.T) {
	inputtest.CheckRegistered(t, "lcov", map[string]bool{
		"TN:\nSF:a.c\n": true, "SF:/x/a.c\n": true, "\n\n  TN:x\n": true, "\uFEFFTN:\n": true,
		"mode: set\n": false, "DA:1,1\n": false, "": false, "<xml>": false,
	}, filepath.Join("testdata", "llvm.info"), 0, input.Options{}, map[string]int64{lightcoverage.RoutinesData: 3, lightcoverage.Lines: 10})
}

// TestEmpty: a tracefile with no DA record (no SF record, or SF records
// with function records only) holds no result set, so that export refuses
// it unless --allow-empty; one DA record makes one.
func TestEmpty(t *testing.T) {
	inputtest.CheckEmpty(t, Read, "empty.info",
		"",
		"TN:unit\n",
		"TN:\nSF:a.c\nend_of_record\n",
		"TN:\nSF:a.c\nFN:1,f\nFNDA:3,f\nFNF:1\nFNH:1\nLF:0\nLH:0\nend_of_record\n",
	)
	inputtest.CheckRows(t, Read, "one.info", "SF:a.c\nFN:1,f\nDA:2,0\nend_of_record\n", lightcoverage.Lines, 1)
}
