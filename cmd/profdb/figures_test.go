package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/profdb/profdb/compare"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/pproftest"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/store"
)

// goFigures is what the Go tools say about two runs of testdata/figures:
// its coverage profiles and CPU profiles, cover -func per function, pprof
// -top per function and pprof -top -diff_base of the second CPU profile
// over the first.
type goFigures struct {
	src        string    // the module's folder
	cover, cpu [2]string // the files
	coverFunc  [2]map[string]string
	coverTotal [2]string
	top        [2]pprofTop
	diff       pprofTop
	dir        string
}

// pprofTop is flat and cum per function, as pprof -top prints them in ns.
type pprofTop map[string][2]int64

// total is the profile's total as pprof -top gives it ("of N total"):
// every sample counts flat in one function, its leaf.
func (p pprofTop) total() int64 {
	var n int64
	for _, v := range p {
		n += v[0]
	}
	return n
}

var goFiguresOnce = sync.OnceValues(makeGoFigures)

// makeGoFigures builds testdata/figures' test binary with coverage of
// its three packages and runs it twice (FIGURES_N 5 and 25: other branches of Grade's else-if
// chain; 1.2 s of recursion each) with a coverage and a CPU profile.
func makeGoFigures() (*goFigures, error) {
	src, err := filepath.Abs(filepath.Join("testdata", "figures"))
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "profdb-figures-")
	if err != nil {
		return nil, err
	}
	g := &goFigures{src: src, dir: dir}
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GOTOOLCHAIN=local")
	goTool := func(args ...string) ([]byte, error) {
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = src, env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, stderr.Bytes())
		}
		return out, nil
	}
	bin := filepath.Join(dir, "figures.test")
	if _, err := goTool("test", "-c", "-cover", "-coverpkg=./...", "-o", bin, "."); err != nil {
		return nil, err
	}
	for i, n := range []string{"5", "25"} {
		g.cover[i] = filepath.Join(dir, fmt.Sprintf("cover%d.out", i+1))
		g.cpu[i] = filepath.Join(dir, fmt.Sprintf("cpu%d.pprof", i+1))
		cmd := exec.Command(bin, "-test.run=^TestWork$", "-test.coverprofile="+g.cover[i], "-test.cpuprofile="+g.cpu[i])
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "FIGURES_N="+n, "FIGURES_MS=1200")
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("figures.test: %w\n%s", err, out)
		}
		out, err := goTool("tool", "cover", "-func="+g.cover[i])
		if err != nil {
			return nil, err
		}
		g.coverFunc[i] = map[string]string{}
		for _, ln := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(ln)
			if len(f) == 3 && f[0] == "total:" || len(f) == 4 && f[0] == "total:" {
				g.coverTotal[i] = f[len(f)-1]
				continue
			}
			if len(f) != 3 {
				return nil, fmt.Errorf("go tool cover -func: line %q", ln)
			}
			file, _, _ := strings.Cut(f[0], ":")
			g.coverFunc[i][file+" "+f[1]] = f[2]
		}
		if g.top[i], err = pprofFigures(goTool, g.cpu[i]); err != nil {
			return nil, err
		}
	}
	if g.diff, err = pprofFigures(goTool, "-diff_base="+g.cpu[0], g.cpu[1]); err != nil {
		return nil, err
	}
	return g, nil
}

// pprofFigures runs go tool pprof -top on every node in ns and returns
// flat and cum by function name (the rows it prints with a figure other
// than 0).
func pprofFigures(goTool func(...string) ([]byte, error), args ...string) (pprofTop, error) {
	out, err := goTool(append([]string{"tool", "pprof", "-top", "-nodecount=1000000", "-nodefraction=0",
		"-edgefraction=0", "-sample_index=cpu", "-unit=ns"}, args...)...)
	if err != nil {
		return nil, err
	}
	f, err := pproftest.Parse(out, "ns")
	return pprofTop(f), err
}

// TestFiguresAgreeWithGoTools profiles a small Go module with recursion
// (direct and through two functions), an else-if chain and two functions
// of one short name in two packages (a/hash.New, b/hash.New), twice, and
// checks, function by function, what profdb show and compare print
// against go tool cover -func, go tool pprof -top (flat and cum) and go
// tool pprof -top -diff_base: coverage %, own time, time with children and
// their changes all equal, every function named by its full name.
func TestFiguresAgreeWithGoTools(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a Go program")
	}
	if _, err := exec.LookPath("go"); err != nil {
		if dbtest.InCI() {
			t.Fatalf("go is not on PATH (CI=true: the comparison with the go tools must run): %v", err)
		}
		t.Skip("go is not on PATH")
	}
	g, err := goFiguresOnce()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(g.dir) })
	for _, dn := range dbtest.Dialects("sqlserver") {
		t.Run(dn, func(t *testing.T) {
			db := dbtest.Fresh(t, dn)
			for _, f := range []string{g.cover[0], g.cover[1], g.cpu[0], g.cpu[1]} {
				mustRun(t, "export", "--db", db, "--source-root", g.src, f)
			}
			checkCoverFigures(t, db, g)
			checkPprofFigures(t, db, g)
		})
	}
}

// checkCoverFigures compares show 1 and compare 1 2 with cover -func.
func checkCoverFigures(t *testing.T, db string, g *goFigures) {
	pct := func(covered, total int64) string {
		return strconv.FormatFloat(float64(covered)/float64(total)*100, 'f', 1, 64) + "%"
	}
	var s readback.Summary
	if err := json.Unmarshal([]byte(mustRun(t, "show", "--db", db, "--json", "--top", "1000", "1")), &s); err != nil {
		t.Fatal(err)
	}
	if got := pct(s.Coverage.Lines.Covered, s.Coverage.Lines.Total); got != g.coverTotal[0] {
		t.Errorf("show 1: %s of lines covered; go tool cover -func: %s", got, g.coverTotal[0])
	}
	shown := map[string]string{}
	for _, x := range s.Coverage.Least.Items {
		shown[x.File+" "+x.Name] = pct(x.Covered, x.Total)
	}
	sameCover(t, "show 1", shown, g.coverFunc[0])

	var c compare.Result
	if err := json.Unmarshal([]byte(mustRun(t, "compare", "--db", db, "--json", "--top", "1000", "1", "2")), &c); err != nil {
		t.Fatal(err)
	}
	var a, b map[string]string = map[string]string{}, map[string]string{}
	for _, x := range c.Coverage.RoutineList.Items {
		a[x.File+" "+x.Name] = pct(x.CoveredA, x.TotalA)
		b[x.File+" "+x.Name] = pct(x.CoveredB, x.TotalB)
	}
	if n := len(c.Coverage.RoutinesOnlyA.Items) + len(c.Coverage.RoutinesOnlyB.Items); n != 0 {
		t.Errorf("compare 1 2: %d routines in one result set only", n)
	}
	sameCover(t, "compare 1 2, A", a, g.coverFunc[0])
	sameCover(t, "compare 1 2, B", b, g.coverFunc[1])
	for i, cv := range []readback.Ratio{{Covered: c.Coverage.Lines.CoveredA, Total: c.Coverage.Lines.TotalA},
		{Covered: c.Coverage.Lines.CoveredB, Total: c.Coverage.Lines.TotalB}} {
		if got := pct(cv.Covered, cv.Total); got != g.coverTotal[i] {
			t.Errorf("compare 1 2: %s of lines covered in %c; go tool cover -func: %s", got, 'A'+i, g.coverTotal[i])
		}
	}
	// Grade's else-if chain: the runs took other branches, so its lines
	// differ; the else-if lines are among them.
	if g.coverFunc[0]["example.com/figures/figures.go Grade"] == g.coverFunc[1]["example.com/figures/figures.go Grade"] {
		t.Errorf("Grade: %s in both runs: the runs should take other branches", g.coverFunc[0]["example.com/figures/figures.go Grade"])
	}
}

func sameCover(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d functions; go tool cover -func: %d (%v)", what, len(got), len(want), want)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %s: %q covered; go tool cover -func: %s", what, k, got[k], w)
		}
	}
}

// checkPprofFigures compares show 3, show 4 and compare 3 4 with pprof
// -top and -top -diff_base, function by function.
func checkPprofFigures(t *testing.T, db string, g *goFigures) {
	ctx := context.Background()
	// pprof's names are COL_SYMBOL_MONIKER; profdb names a routine by
	// its identity (readback.RoutineID), read here from the same rows.
	r, err := readback.Open(ctx, db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	full := map[string]string{} // profdb's full name -> pprof's
	err = r.Query(ctx, `SELECT COALESCE({m.FUNCTION_TRACE_PROFILER_META_ROUTINES.COL_SYMBOL_MONIKER}, ''),
		`+r.RoutineIDColumns("m", "FUNCTION_TRACE_PROFILER_META_ROUTINES")+`
		FROM {m:FUNCTION_TRACE_PROFILER_META_ROUTINES} WHERE {m.FUNCTION_TRACE_PROFILER_META_ROUTINES.INST_ID} IN (3, 4)`, nil,
		func(rows *sql.Rows) error {
			var moniker string
			var id readback.RoutineID
			if err := rows.Scan(&moniker, &id.Module, &id.Namespace, &id.Class, &id.Name); err != nil {
				return err
			}
			if p, ok := full[id.FullName()]; ok && p != moniker {
				return fmt.Errorf("%s and %s are both routine %s", p, moniker, id.FullName())
			}
			full[id.FullName()] = moniker
			return nil
		})
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	name := func(fullName string) string {
		if p, ok := full[fullName]; ok {
			return p
		}
		t.Errorf("routine %s has no symbol", fullName)
		return fullName
	}
	for i, inst := range []string{"3", "4"} {
		var s readback.Summary
		if err := json.Unmarshal([]byte(mustRun(t, "show", "--db", db, "--json", "--top", "100000", inst)), &s); err != nil {
			t.Fatal(err)
		}
		got := pprofTop{}
		for _, x := range s.Trace.ByTotal.Items {
			n := name(x.FullName())
			v := got[n]
			got[n] = [2]int64{v[0] + x.Own, v[1] + x.WithChild}
		}
		samePprof(t, "show "+inst, got, g.top[i])
		if want := g.top[i].total(); s.Trace.TotalTime != want {
			t.Errorf("show %s: total time %d ns; go tool pprof: %d ns total", inst, s.Trace.TotalTime, want)
		}
	}
	// Fib recurses directly, ping through pong; the two hash.New are
	// two routines of one short name.
	for _, f := range []string{"example.com/figures.Fib", "example.com/figures.ping",
		"example.com/figures/a/hash.New", "example.com/figures/b/hash.New"} {
		if _, ok := g.top[0][f]; !ok {
			t.Errorf("go tool pprof -top does not list %s: the profile proves little", f)
		}
	}

	var c compare.Result
	if err := json.Unmarshal([]byte(mustRun(t, "compare", "--db", db, "--json", "--top", "100000", "3", "4")), &c); err != nil {
		t.Fatal(err)
	}
	var a, b, d pprofTop = pprofTop{}, pprofTop{}, pprofTop{}
	for _, x := range c.Trace.Routines.Items {
		n := name(x.FullName())
		if _, dup := d[n]; dup {
			t.Errorf("compare 3 4: %s in two rows", n)
		}
		a[n] = [2]int64{int64(x.Own.A), int64(x.WithChild.A)}
		b[n] = [2]int64{int64(x.Own.B), int64(x.WithChild.B)}
		d[n] = [2]int64{int64(x.Own.B - x.Own.A), int64(x.WithChild.B - x.WithChild.A)}
	}
	if ta, tb := g.top[0].total(), g.top[1].total(); int64(c.Trace.Time.A) != ta || int64(c.Trace.Time.B) != tb {
		t.Errorf("compare 3 4: total time %v -> %v ns; go tool pprof: %d -> %d ns total", c.Trace.Time.A, c.Trace.Time.B, ta, tb)
	}
	samePprof(t, "compare 3 4, A", a, g.top[0])
	samePprof(t, "compare 3 4, B", b, g.top[1])
	samePprof(t, "compare 3 4, B - A", d, g.diff)
}

// samePprof compares flat and cum per function with pprof's, the
// functions whose figures are both 0 left out.
func samePprof(t *testing.T, what string, got, want pprofTop) {
	t.Helper()
	for k, v := range got {
		if v == [2]int64{} {
			delete(got, k)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d functions; go tool pprof: %d", what, len(got), len(want))
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %s: flat, cum %v ns; go tool pprof -top: %v", what, k, got[k], w)
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s: flat, cum %v ns; go tool pprof -top does not list it", what, k, v)
		}
	}
}
