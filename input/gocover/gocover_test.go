package gocover

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/internal/inputtest"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
)

// key names a routine as go tool cover -func does: file:line:name.
func key(r inputtest.Routine) string { return fmt.Sprintf("%s:%d:%s", r.File, r.Line, r.Name) }

// covered returns the covered and total lines of r.
func covered(r inputtest.Routine) (int, int) {
	n := 0
	for _, c := range r.Lines {
		if c > 0 {
			n++
		}
	}
	return n, len(r.Lines)
}

// routines returns the routines of set by key.
func routines(t *testing.T, set resultset.MemorySet) map[string]inputtest.Routine {
	t.Helper()
	out := map[string]inputtest.Routine{}
	for _, r := range inputtest.Routines(t, set) {
		if _, dup := out[key(r)]; dup {
			t.Errorf("routine %s twice", key(r))
		}
		out[key(r)] = r
	}
	return out
}

func readFile(t *testing.T, path string, o input.Options) (*resultset.Memory, []resultset.Result, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := &resultset.Memory{}
	res, err := Read(context.Background(), f, path, m, o)
	return m, res, err
}

func readString(t *testing.T, name, profile string, o input.Options) (*resultset.Memory, error) {
	t.Helper()
	m := &resultset.Memory{}
	_, err := Read(context.Background(), strings.NewReader(profile), name, m, o)
	if err != nil && len(m.Sets) != 0 {
		t.Errorf("error %v, yet %d result sets committed", err, len(m.Sets))
	}
	return m, err
}

func testdataRoot(t *testing.T) string {
	abs, err := filepath.Abs(filepath.Join("testdata", "cov"))
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// checkCovModule asserts what testdata/cov's profile must give (see
// testdata/cov/*.go and testdata/make.sh).
func checkCovModule(t *testing.T, set resultset.MemorySet) {
	t.Helper()
	rs := routines(t, set)
	const calc, shapes = "example.com/cov/calc.go", "example.com/cov/shapes/shapes.go"
	type want struct {
		class, moniker string
		count          int64
		lines          map[int64]int64
	}
	all := func(c int64, ls ...int64) map[int64]int64 {
		m := map[int64]int64{}
		for _, l := range ls {
			m[l] = c
		}
		return m
	}
	wants := map[string]want{
		// The lines are those where statements start, as cover counts
		// statements: no func line, no closing brace. The for statement
		// (line 8) is in the block before the loop (1); its body (9) ran 4
		// times.
		calc + ":6:Sum":    {"", "example.com/cov.Sum", 1, map[int64]int64{7: 1, 8: 1, 9: 4, 11: 1}},
		calc + ":15:Never": {"", "example.com/cov.Never", 0, all(0, 16, 17, 18)},
		calc + ":25:Add":   {"Acc", "example.com/cov.(*Acc).Add", 3, map[int64]int64{26: 3, 27: 1, 29: 2}},
		calc + ":33:Value": {"Acc", "example.com/cov.Acc.Value", 1, all(1, 33)},
		calc + ":39:Push":  {"Stack", "example.com/cov.(*Stack[...]).Push", 1, all(1, 39)},
		calc + ":48:Key":   {"Pair", "example.com/cov.Pair[...].Key", 1, all(1, 48)},
		// The closure's statements (54, 57) belong to Apply; each ran 3 times.
		calc + ":51:Apply": {"", "example.com/cov.Apply", 1, map[int64]int64{52: 1, 53: 1, 54: 3, 56: 1, 57: 3, 59: 1}},
		// An empty body: a block without statements, run once, no lines.
		calc + ":63:Empty":   {"", "example.com/cov.Empty", 1, map[int64]int64{}},
		shapes + ":5:Square": {"", "example.com/cov/shapes.Square", 1, all(1, 5)},
		shapes + ":8:Cube":   {"", "example.com/cov/shapes.Cube", 0, all(0, 9)},
		// The if of `} else if n > 80 {` (17) is a statement of a block of
		// its own, which did not run, as did neither of the branches after
		// the first.
		shapes + ":14:Size": {"", "example.com/cov/shapes.Size", 1, map[int64]int64{15: 1, 16: 1, 17: 0, 18: 0, 20: 0}},
	}
	for k, w := range wants {
		r, ok := rs[k]
		if !ok {
			t.Errorf("routine %s missing", k)
			continue
		}
		ns := "example.com/cov"
		if r.File == shapes {
			ns = "example.com/cov/shapes"
		}
		if r.Class != w.class || r.Moniker != w.moniker || r.Count != w.count || r.Namespace != ns ||
			r.Module != "example.com/cov" || r.CodeType != "Go" || r.ProfileLines != -1 {
			t.Errorf("%s: got class %q moniker %q count %d namespace %q module %q code type %q profile lines %d; want class %q moniker %q count %d namespace %q",
				k, r.Class, r.Moniker, r.Count, r.Namespace, r.Module, r.CodeType, r.ProfileLines, w.class, w.moniker, w.count, ns)
		}
		if !reflect.DeepEqual(r.Lines, w.lines) {
			t.Errorf("%s: lines %v, want %v", k, r.Lines, w.lines)
		}
	}
	for k := range rs {
		if _, ok := wants[k]; !ok {
			t.Errorf("unexpected routine %s (the package-level func literal belongs to no function)", k)
		}
	}
	// calc.go: 19 statement lines in routines (4+3+3+1+1+1+6+0), 16
	// covered (all but Never's 3); shapes.go: 7 (1+1+5), 3 covered. The
	// module: 19 of 26, the 73.1% that go tool cover -func gives as its
	// total.
	files := inputtest.Percentages(t, set, lightcoverage.SourceFilesData, "COL_FILE_NAME")
	wantFiles := map[string]float64{calc: 16.0 / 19 * 100, shapes: 3.0 / 7 * 100}
	if !inputtest.Approx(files, wantFiles) {
		t.Errorf("source files %% covered %v, want %v", files, wantFiles)
	}
	mods := inputtest.Percentages(t, set, lightcoverage.ModulesData, "COL_MODULE_NAME")
	if want := map[string]float64{"example.com/cov": 19.0 / 26 * 100}; !inputtest.Approx(mods, want) {
		t.Errorf("modules %% covered %v, want %v", mods, want)
	}
}

func TestCheckedInProfile(t *testing.T) {
	var warnings []string
	m, res, err := readFile(t, filepath.Join("testdata", "cov.out"), input.Options{
		SourceRoot: testdataRoot(t),
		Warnf:      func(f string, a ...any) { warnings = append(warnings, fmt.Sprintf(f, a...)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %q", warnings)
	}
	if len(res) != 1 || len(m.Sets) != 1 {
		t.Fatalf("%d results, %d sets; want 1", len(res), len(m.Sets))
	}
	set := m.Sets[0]
	if set.Header.Caption != "go coverage: cov.out" || set.Header.Profiler != lightcoverage.Name {
		t.Errorf("header %+v", set.Header)
	}
	checkCovModule(t, set)
}

// TestRegeneratedProfile makes the profile of testdata/cov again with the
// go tool (as testdata/make.sh does) and checks the same results.
func TestRegeneratedProfile(t *testing.T) {
	inputtest.NeedTools(t, "Go", "go")
	out := filepath.Join(t.TempDir(), "cov.out")
	cmd := exec.Command("go", "test", "-count=1", "-covermode=count", "-coverprofile="+out, "./...")
	cmd.Dir = testdataRoot(t)
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOWORK=off", "GOFLAGS=")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test in testdata/cov: %v\n%s", err, b)
	}
	m, _, err := readFile(t, out, input.Options{SourceRoot: testdataRoot(t)})
	if err != nil {
		t.Fatal(err)
	}
	checkCovModule(t, m.Sets[0])
}

// TestAgainstGoToolCover profiles real packages of this repository and
// compares with `go tool cover -func`: the same functions, the same set of
// functions with any coverage, and 0% / 100% where cover says so (cover
// counts statements, this reader lines, so other percentages differ).
// -coverpkg makes both test binaries report both packages: the profile then
// repeats blocks, which must be merged as cover merges them.
func TestAgainstGoToolCover(t *testing.T) {
	inputtest.NeedTools(t, "Go", "go")
	root := repoRoot(t)
	prof := filepath.Join(t.TempDir(), "repo.out")
	pkgs := []string{"./ddl/", "./dialects/", "./profilers/"}
	args := append([]string{"test", "-count=1", "-covermode=count", "-coverpkg=" + strings.Join(pkgs, ","), "-coverprofile=" + prof}, pkgs...)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		// Failing tests elsewhere still leave a profile; a build failure
		// does not.
		if fi, serr := os.Stat(prof); serr != nil || fi.Size() == 0 {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		t.Logf("go test failed, profile written anyway: %v\n%s", err, b)
	}
	cmd = exec.Command("go", "tool", "cover", "-func="+prof)
	cmd.Dir = root
	funcOut, err := cmd.Output()
	if err != nil {
		t.Fatalf("go tool cover -func: %v", err)
	}
	cover := map[string]float64{} // file:line:name -> percent
	coverTotal := ""
	for _, ln := range strings.Split(strings.TrimSpace(string(funcOut)), "\n") {
		f := strings.Fields(ln)
		if len(f) == 3 && f[0] == "total:" {
			coverTotal = f[2]
		}
		if len(f) != 3 || f[0] == "total:" {
			continue
		}
		pct, err := strconv.ParseFloat(strings.TrimSuffix(f[2], "%"), 64)
		if err != nil {
			t.Fatalf("cover -func line %q: %v", ln, err)
		}
		cover[f[0]+f[1]] = pct
	}
	if len(cover) < 10 {
		t.Fatalf("cover -func reports only %d functions:\n%s", len(cover), funcOut)
	}
	// Default source root: the module around the current folder.
	m, _, err := readFile(t, prof, input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rs := routines(t, m.Sets[0])
	mine := map[string]inputtest.Routine{}
	for _, r := range rs {
		mine[key(r)] = r
	}
	if got, want := slices.Sorted(mapKeys(mine)), slices.Sorted(mapKeys(cover)); !slices.Equal(got, want) {
		t.Fatalf("functions differ from cover -func:\n got %v\nwant %v", got, want)
	}
	var any0, checked int
	var allCov, allTotal int
	for k, pct := range cover {
		cov, total := covered(mine[k])
		allCov += cov
		allTotal += total
		// Lines where statements start, as cover counts statements: the
		// same % as cover -func prints.
		if total > 0 {
			if got := fmt.Sprintf("%.1f", float64(cov)/float64(total)*100); got != fmt.Sprintf("%.1f", pct) {
				t.Errorf("%s: cover -func %.1f%%, this reader %s%% (%d of %d lines)", k, pct, got, cov, total)
			}
		}
		if (pct > 0) != (cov > 0) {
			t.Errorf("%s: cover -func %.1f%%, this reader %d of %d lines covered", k, pct, cov, total)
		}
		if pct == 100 && cov != total {
			t.Errorf("%s: cover -func 100%%, this reader %d of %d lines", k, cov, total)
		}
		if pct > 0 {
			any0++
		}
		checked++
	}
	// The total: a line holding two statements (a one-line closure) counts
	// once here and twice for cover, which can move the total by a tenth.
	want, err := strconv.ParseFloat(strings.TrimSuffix(coverTotal, "%"), 64)
	if err != nil {
		t.Fatalf("cover -func total %q: %v", coverTotal, err)
	}
	if got := float64(allCov) / float64(allTotal) * 100; math.Abs(got-want) > 0.15 {
		t.Errorf("total: cover -func %s, this reader %.1f%% (%d of %d lines)", coverTotal, got, allCov, allTotal)
	}
	if any0 == 0 || any0 == checked {
		t.Errorf("%d of %d functions covered: the comparison proves little", any0, checked)
	}
	// The routine's count is its first block's count summed over the
	// profile's repeats of that block (each test binary reports it).
	raw := rawBlocks(t, prof)
	dups := 0
	for k, r := range mine {
		first := slices.IndexFunc(raw, func(b rawBlock) bool { return b.file == r.File && b.startLine >= int(r.Line) })
		if first < 0 {
			t.Errorf("%s: no block", k)
			continue
		}
		var sum int64
		n := 0
		for _, b := range raw {
			if b.file == raw[first].file && b.rng == raw[first].rng {
				sum += b.count
				n++
			}
		}
		if n > 1 && sum > 0 {
			dups++
		}
		if r.Count != sum {
			t.Errorf("%s: count %d, want %d (block %s repeated %d times)", k, r.Count, sum, raw[first].rng, n)
		}
	}
	if dups == 0 {
		t.Error("no function's first block is repeated with a count: -coverpkg did not repeat blocks")
	}
	t.Logf("%d functions, %d with coverage, agree with go tool cover -func", checked, any0)
}

type rawBlock struct {
	file, rng           string
	startLine, startCol int
	count               int64
}

// rawBlocks returns the blocks of a profile as written, sorted by file and
// start (stable: repeats keep their order).
func rawBlocks(t *testing.T, path string) []rawBlock {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []rawBlock
	for _, ln := range strings.Split(string(data), "\n") {
		if ln == "" || strings.HasPrefix(ln, "mode: ") {
			continue
		}
		var b rawBlock
		var nstmt int
		i := strings.LastIndexByte(ln, ':')
		b.file = ln[:i]
		if _, err := fmt.Sscanf(ln[i+1:], "%s %d %d", &b.rng, &nstmt, &b.count); err != nil {
			t.Fatalf("profile line %q: %v", ln, err)
		}
		if _, err := fmt.Sscanf(b.rng, "%d.%d,", &b.startLine, &b.startCol); err != nil {
			t.Fatalf("profile line %q: %v", ln, err)
		}
		out = append(out, b)
	}
	slices.SortStableFunc(out, func(x, y rawBlock) int {
		if c := strings.Compare(x.file, y.file); c != 0 {
			return c
		}
		if x.startLine != y.startLine {
			return x.startLine - y.startLine
		}
		return x.startCol - y.startCol
	})
	return out
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	s, err := findSources("")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	if s.modPath != "github.com/profdb/profdb" {
		t.Fatalf("module %s, want github.com/profdb/profdb", s.modPath)
	}
	return s.root
}

func TestDefaultSourceRoot(t *testing.T) {
	// From a subfolder of testdata/cov, the module is found above it.
	t.Chdir(filepath.Join("testdata", "cov", "shapes"))
	m, err := readString(t, "p.out", "mode: set\nexample.com/cov/shapes/shapes.go:5.24,5.40 1 1\n", input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rs := routines(t, m.Sets[0])
	if r, ok := rs["example.com/cov/shapes/shapes.go:5:Square"]; !ok || r.Count != 1 || r.Module != "example.com/cov" {
		t.Errorf("routines %+v", rs)
	}
	// Cube has no block in this profile: it is still a routine, never run,
	// without lines.
	if r, ok := rs["example.com/cov/shapes/shapes.go:8:Cube"]; !ok || r.Count != 0 || len(r.Lines) != 0 {
		t.Errorf("Cube: %+v", r)
	}
}

func TestMergeDuplicates(t *testing.T) {
	root := testdataRoot(t)
	body := "example.com/cov/calc.go:15.18,19.2 3 %d\n"
	for _, tc := range []struct {
		mode       string
		a, b, want int64
	}{
		{"set", 1, 0, 1},
		{"set", 0, 1, 1},
		{"set", 0, 0, 0},
		{"count", 2, 5, 7},
		{"atomic", 3, 4, 7},
	} {
		prof := "mode: " + tc.mode + "\n" + fmt.Sprintf(body, tc.a) + "mode: " + tc.mode + "\n" + fmt.Sprintf(body, tc.b)
		m, err := readString(t, "dup.out", prof, input.Options{SourceRoot: root})
		if err != nil {
			t.Fatalf("%s: %v", tc.mode, err)
		}
		r := routines(t, m.Sets[0])["example.com/cov/calc.go:15:Never"]
		if r.Count != tc.want || r.Lines[16] != tc.want || len(r.Lines) != 3 {
			t.Errorf("%s %d+%d: count %d, lines %v; want %d", tc.mode, tc.a, tc.b, r.Count, r.Lines, tc.want)
		}
	}
}

func TestMalformed(t *testing.T) {
	root := testdataRoot(t)
	ok := "example.com/cov/calc.go:6.24,8.23 2 1\n"
	inputtest.CheckRefused(t, Read, "bad.out", input.Options{SourceRoot: root}, []inputtest.Refused{
		{"", "bad.out:1: not a Go coverage profile"},
		{"hello\n", "bad.out:1: not a Go coverage profile"},
		{"mode: sometimes\n", "bad.out:1: unknown coverage mode"},
		{"mode: set\n" + ok + "mode: count\n", "bad.out:3: mode changes"},
		{"mode: set\n" + ok + "example.com/cov/calc.go:6.24,8.23 2\n", "bad.out:3: malformed"},
		{"mode: set\n" + ok + "example.com/cov/calc.go:6.24,8.23 2 x\n", "bad.out:3: count \"x\""},
		{"mode: set\n" + ok + "example.com/cov/calc.go:6.24,8.23 -2 1\n", "bad.out:3: statement count \"-2\""},
		{"mode: set\n" + ok + "example.com/cov/calc.go:6.24 2 1\n", "bad.out:3: malformed range"},
		{"mode: set\n" + ok + "example.com/cov/calc.go:6,8.23 2 1\n", "bad.out:3: malformed position"},
		{"mode: set\n" + ok + "example.com/cov/calc.go:0.1,8.23 2 1\n", "bad.out:3: position 0.1"},
		{"mode: set\n" + ok + "example.com/cov/calc.go:9.1,8.23 2 1\n", "bad.out:3: range 9.1,8.23 ends before it starts"},
		{"mode: set\n" + ok + ":6.24,8.23 2 1\n", "bad.out:3: malformed block"},
		{"mode: count\n" + ok + "example.com/cov/calc.go:6.24,8.23 2 99999999999999999999\n", "bad.out:3: count \"99999999999999999999\" out of range"},
		{"mode: count\n" + ok + "\n" + "example.com/cov/calc.go:6.24,8.23 3 1\n", "bad.out:4: block 6.24,8.23 has 3 statements here but 2 on line 2"},
		{"mode: count\nexample.com/cov/calc.go:6.24,8.23 2 9223372036854775807\n" + ok, "bad.out:3: count of block 6.24,8.23 overflows"},
		{"mode: set\nexample.com/cov/calc.go:6.24,8.23 2 1 " + strings.Repeat("x", maxLine) + "\n", "bad.out:2: line longer than"},
	})
}

func TestMissingSource(t *testing.T) {
	root := testdataRoot(t)
	prof := "mode: set\n" +
		"example.com/cov/shapes/shapes.go:5.24,5.40 1 1\n" +
		"example.com/cov/gone.go:3.1,4.2 1 1\n" +
		"other.org/x/y.go:3.1,4.2 1 1\n"
	_, err := readString(t, "p.out", prof, input.Options{SourceRoot: root})
	if err == nil || !strings.Contains(err.Error(), "p.out:3: source file example.com/cov/gone.go not found") ||
		!strings.Contains(err.Error(), filepath.Join(root, "gone.go")) {
		t.Errorf("error %v", err)
	}
	var warnings []string
	m, err := readString(t, "p.out", prof, input.Options{SourceRoot: root, SkipMissing: true,
		Warnf: func(f string, a ...any) { warnings = append(warnings, fmt.Sprintf(f, a...)) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 2 || !strings.Contains(warnings[0], "example.com/cov/gone.go not found") ||
		!strings.Contains(warnings[1], "other.org/x/y.go not found") || !strings.HasSuffix(warnings[1], "skipped") {
		t.Errorf("warnings %q", warnings)
	}
	rs := routines(t, m.Sets[0])
	if len(rs) != 3 { // Square, Cube and Size
		t.Errorf("routines %v", slices.Sorted(mapKeys(rs)))
	}
}

func TestBadSources(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// No go.mod anywhere above a temp dir (normally).
	if _, err := findSources(dir); err == nil || !strings.Contains(err.Error(), "no go.mod") {
		t.Skipf("a go.mod above %s? %v", dir, err)
	}
	write("go.mod", "// comment\nmodule \"ex.org/m\" // trailing\n\ngo 1.22\n")
	write("broken.go", "package m\nfunc (brokenToken\n")
	write("sub/ok.go", "package sub\n\nfunc F() {\n\tprintln()\n}\n")
	// A syntax error names the file, line and column, and no text of it.
	_, err := readString(t, "p.out", "mode: set\nex.org/m/broken.go:2.1,2.3 1 1\n", input.Options{SourceRoot: dir})
	if want := "p.out:2: source of ex.org/m/broken.go: " + filepath.Join(dir, "broken.go") + ":2:18: not Go source (a syntax error)"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	_, err = readString(t, "p.out", "mode: set\nex.org/m/sub:1.1,1.2 1 1\n", input.Options{SourceRoot: dir})
	if err == nil || !strings.Contains(err.Error(), "p.out:2: source file ex.org/m/sub refused: not a regular file (a folder)") {
		t.Errorf("error %v", err)
	}
	_, err = readString(t, "p.out", "mode: set\nex.org/m/sub/ok.go/x.go:1.1,1.2 1 1\n", input.Options{SourceRoot: dir})
	if err == nil || !strings.Contains(err.Error(), "p.out:2: source file ex.org/m/sub/ok.go/x.go not found") {
		t.Errorf("error %v", err)
	}
	// An absolute file name is used as it is; a stale source gives a
	// warning.
	abs := filepath.Join(dir, "sub", "ok.go")
	var warnings []string
	m, err := readString(t, "p.out", "mode: count\n"+abs+":3.10,5.2 1 7\n"+abs+":9.1,9.5 1 7\n",
		input.Options{SourceRoot: filepath.Join(dir, "sub"), Warnf: func(f string, a ...any) { warnings = append(warnings, fmt.Sprintf(f, a...)) }})
	if err != nil {
		t.Fatal(err)
	}
	rs := routines(t, m.Sets[0])
	r, ok := rs[abs+":3:F"]
	if !ok || r.Count != 7 || !reflect.DeepEqual(r.Lines, map[int64]int64{4: 7}) || r.Module != "ex.org/m" {
		t.Errorf("routines %+v", rs)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "has 5 lines but the profile has blocks up to line 9") {
		t.Errorf("warnings %q", warnings)
	}
}

func TestRegistered(t *testing.T) {
	inputtest.CheckRegistered(t, "gocover", map[string]bool{
		"mode: set\nx": true, "mode: atomic\n": true, "TN:\nSF:x": false, " mode: set": false,
	}, filepath.Join("testdata", "cov.out"), 0, input.Options{SourceRoot: testdataRoot(t)}, map[string]int64{lightcoverage.RoutinesData: 11})
	d, err := input.Detect([]byte("mode: atomic\n"))
	if err != nil || d.Name != "gocover" {
		t.Errorf("Detect: %v %v", d.Name, err)
	}
}
