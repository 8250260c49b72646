package cobertura

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/internal/inputtest"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
)

// routine is one routine of a result set: what gcovr, coverage.py and
// coverlet give of it.
type routine struct {
	File, Class, Module string
	Line, Count         int64
	Lines               map[int64]int64
}

// routines returns the routines of set by "file:name".
func routines(t *testing.T, set resultset.MemorySet) map[string]routine {
	t.Helper()
	out := map[string]routine{}
	for _, r := range inputtest.Routines(t, set) {
		out[r.File+":"+r.Name] = routine{r.File, r.Class, r.Module, r.Line, r.Count, r.Lines}
	}
	return out
}

// TestGcovr reads gcovr's report of the C program of input/lcov's tests:
// gcovr writes no methods, so each file's lines are one routine named
// after its class.
func TestGcovr(t *testing.T) {
	res := inputtest.ReadFile(t, Read, filepath.Join("testdata", "gcovr.xml"), input.Options{})
	if h := res.Set.Header; h.Caption != "cobertura: gcovr.xml" || h.Profiler != lightcoverage.Name {
		t.Errorf("header %+v", h)
	}
	want := map[string]routine{
		"main.c:main_c": {"main.c", "main_c", ".", 4, 1, map[int64]int64{4: 1, 6: 1, 7: 6, 8: 5, 9: 1, 12: 1, 14: 1, 15: 1, 16: 1}},
		"util.c:util_c": {"util.c", "util_c", ".", 3, 5, map[int64]int64{3: 5, 5: 5, 8: 1, 10: 1, 11: 0, 12: 1, 13: 1, 14: 0, 17: 0, 19: 0, 20: 0}},
	}
	if got := routines(t, res.Set); !reflect.DeepEqual(got, want) {
		t.Errorf("routines\n got %+v\nwant %+v", got, want)
	}
	inputtest.CheckCovered(t, res.Set, lightcoverage.SourceFilesData, "COL_FILE_NAME", map[string]float64{"util.c": 600.0 / 11, "main.c": 100})
	if want := []string{filepath.Join("testdata", "gcovr.xml") + ": lines: 75.0% (15 of 20 lines)"}; !reflect.DeepEqual(res.Notes, want) {
		t.Errorf("notes %q, want %q", res.Notes, want)
	}
}

// gcovCounts reads the per-line counts of a .gcov file: lines with "-" have
// no code; "#####" (and "=====") ran 0 times.
func gcovCounts(t *testing.T, file string) map[int64]int64 {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[int64]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) < 3 {
			continue
		}
		c, l := strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1])
		n, err := strconv.ParseInt(l, 10, 64)
		if err != nil || n == 0 || c == "-" {
			continue
		}
		switch c {
		case "#####", "=====":
			out[n] = 0
		default:
			k, err := strconv.ParseInt(strings.TrimSuffix(c, "*"), 10, 64)
			if err != nil {
				t.Fatalf("%s: count %q", file, c)
			}
			out[n] = k
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRegenerate runs testdata/make.sh (gcc --coverage, a run, gcovr
// --xml, gcov) and checks that each file's lines and counts are gcov's and
// the totals gcovr's own summary; under CI=true missing tools fail the
// test.
func TestRegenerate(t *testing.T) {
	inputtest.NeedTools(t, "gcovr", "gcc", "gcov", "gcovr", "sh")
	dir := t.TempDir()
	if b, err := exec.Command("sh", filepath.Join("testdata", "make.sh"), dir).CombinedOutput(); err != nil {
		t.Fatalf("make.sh: %v\n%s", err, b)
	}
	res := inputtest.ReadFile(t, Read, filepath.Join(dir, "gcovr.xml"), input.Options{})
	got := map[string]map[int64]int64{}
	for _, r := range routines(t, res.Set) {
		if got[r.File] == nil {
			got[r.File] = map[int64]int64{}
		}
		for l, c := range r.Lines {
			got[r.File][l] = c
		}
	}
	for _, f := range []string{"main.c", "util.c"} {
		if want := gcovCounts(t, filepath.Join(dir, f+".gcov")); !reflect.DeepEqual(got[f], want) {
			t.Errorf("%s: lines\n got %v\nwant %v (gcov)", f, got[f], want)
		}
	}
	summary, err := os.ReadFile(filepath.Join(dir, "summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`lines: ([0-9.]+)% \((\d+) out of (\d+)\)`).FindSubmatch(summary)
	if m == nil {
		t.Fatalf("no lines total in gcovr's summary:\n%s", summary)
	}
	want := fmt.Sprintf("lines: %s%% (%s of %s lines)", m[1], m[2], m[3])
	if len(res.Notes) != 1 || !strings.HasSuffix(res.Notes[0], want) {
		t.Errorf("notes %q, want %q (gcovr --print-summary)", res.Notes, want)
	}
}

// TestCoveragePy reads coverage.py 6.5's report: relative file names are
// joined to <source>, or to --source-root when given.
func TestCoveragePy(t *testing.T) {
	file := filepath.Join("testdata", "coveragepy.xml")
	for root, prefix := range map[string]string{"": "/home/dev/calc/", "src": "src/", `C:\work\`: `C:\work\`} {
		res := inputtest.ReadFile(t, Read, file, input.Options{SourceRoot: root})
		want := map[string]routine{
			prefix + "main.py:main.py": {prefix + "main.py", "main.py", ".", 1, 1, map[int64]int64{1: 1, 3: 1, 4: 1}},
			prefix + "pkg/calc.py:calc.py": {prefix + "pkg/calc.py", "calc.py", "pkg", 1, 1,
				map[int64]int64{1: 1, 2: 1, 5: 1, 6: 1, 7: 0, 8: 1, 9: 1, 10: 0, 13: 1, 14: 0, 15: 0}},
		}
		if got := routines(t, res.Set); !reflect.DeepEqual(got, want) {
			t.Errorf("root %q: routines\n got %+v\nwant %+v", root, got, want)
		}
		inputtest.CheckCovered(t, res.Set, lightcoverage.ModulesData, "COL_MODULE_NAME", map[string]float64{".": 100, "pkg": 700.0 / 11})
	}
}

// TestCoverlet reads a coverlet report: methods are routines, the class
// lines they list are not repeated, branches are left out, and a Windows
// <source> keeps its separator.
func TestCoverlet(t *testing.T) {
	res := inputtest.ReadFile(t, Read, filepath.Join("testdata", "coverlet.xml"), input.Options{})
	f := `C:\src\Calc\MathUtil.cs`
	want := map[string]routine{
		f + ":Square":      {f, "Calc.MathUtil", "Calc", 6, 5, map[int64]int64{6: 5, 7: 5, 8: 5}},
		f + ":Clamp":       {f, "Calc.MathUtil", "Calc", 11, 1, map[int64]int64{11: 1, 12: 1, 13: 0, 14: 1, 15: 1, 16: 1}},
		f + ":NeverCalled": {f, "Calc.MathUtil", "Calc", 19, 0, map[int64]int64{19: 0, 20: 0}},
	}
	if got := routines(t, res.Set); !reflect.DeepEqual(got, want) {
		t.Errorf("routines\n got %+v\nwant %+v", got, want)
	}
	inputtest.CheckCovered(t, res.Set, lightcoverage.SourceFilesData, "COL_FILE_NAME", map[string]float64{f: 800.0 / 11})
}

// TestRefused: entity declarations, undefined entities, other
// declarations and malformed reports are errors naming the file and line;
// nothing is written.
func TestRefused(t *testing.T) {
	const cls = `<packages><package name="p"><classes><class name="c" filename="f.c"><lines>`
	inputtest.CheckRefused(t, Read, "bad.xml", input.Options{}, []inputtest.Refused{
		{"<?xml version='1.0'?>\n<!DOCTYPE coverage [\n<!ENTITY a 'x'>\n]>\n<coverage/>", "bad.xml:4: a DOCTYPE with an internal subset"},
		{"<!DOCTYPE coverage SYSTEM 'file:///etc/passwd' [<!ENTITY x SYSTEM 'file:///etc/passwd'>]><coverage>&x;</coverage>", "bad.xml:1: a DOCTYPE with an internal subset"},
		{"<coverage>\n<sources><source>&x;</source></sources></coverage>", "bad.xml:2: invalid character entity &x;"},
		{"<coverage>\n" + cls + "\n<line number='0' hits='1'/></lines></class></classes></package></packages></coverage>", `bad.xml:3: <line> number="0" is not an integer of at least 1`},
		{"<coverage>\n" + cls + "\n<line number='3' hits='-1'/></lines></class></classes></package></packages></coverage>", `bad.xml:3: <line> hits="-1"`},
		{"<coverage>\n" + cls + "\n<line hits='1'/></lines></class></classes></package></packages></coverage>", `bad.xml:3: <line> without a number attribute`},
		{"<coverage><packages><package><classes>\n<class name='c'/></classes></package></packages></coverage>", `bad.xml:2: <class> "c" without a filename`},
		{"<coverage>\n" + cls + "\n<line number='3' hits='1'/>", "bad.xml:3: the file ends inside <lines>"},
		{"<coverage>\n<sources>x</sources></coverage>", `bad.xml:2: text "x" in <sources>`},
		{"\n<report/>", "bad.xml:2: element <report> where the root <coverage> was expected"},
		{"", "bad.xml:1: no <coverage> element"},
		{"<coverage></coverage>\n<coverage/>", "bad.xml:2: element <coverage> where the root"},
		{"<?xml version='1.0' encoding='ISO-8859-1'?><coverage/>", "bad.xml:1:"},
	})
}

func TestRegistered(t *testing.T) {
	inputtest.CheckRegistered(t, FormatName, map[string]bool{
		"<?xml version='1.0'?>\n<!-- x -->\n<coverage>":     true,
		"<coverage generated='1' clover='4.4.1'>":           false,
		"<!DOCTYPE report PUBLIC 'x' 'report.dtd'><report>": false,
		"TN:\nSF:a.c\n": false, "": false,
	}, filepath.Join("testdata", "gcovr.xml"), 200, input.Options{}, map[string]int64{lightcoverage.Lines: 20})
}

// TestEmpty: a report with no line holds no result set, so that export
// refuses it unless --allow-empty; one line makes one.
func TestEmpty(t *testing.T) {
	const cls = `<coverage><packages><package name="p"><classes><class name="c" filename="f.c"><methods><method name="m"><lines>`
	inputtest.CheckEmpty(t, Read, "empty.xml",
		`<coverage/>`,
		`<coverage line-rate="1"><sources><source>/src</source></sources><packages/></coverage>`,
		cls+`</lines></method></methods><lines/></class></classes></package></packages></coverage>`,
	)
	inputtest.CheckRows(t, Read, "one.xml", cls+`<line number="3" hits="0"/></lines></method></methods></class></classes></package></packages></coverage>`, lightcoverage.Lines, 1)
}

// TestDeep: elements nested deeper than xmlscan.MaxDepth are refused with
// an error naming the line, without recursion (3 million of them once
// overflowed the stack).
func TestDeep(t *testing.T) {
	inputtest.CheckDeep(t, Read,
		"<coverage>\n"+strings.Repeat("<x>", 3_000_000),
		"<coverage>\n"+strings.Repeat("<x>", 300)+strings.Repeat("</x>", 300)+"</coverage>",
		"<coverage><packages>\n"+strings.Repeat("<package>", 300),
	)
}
