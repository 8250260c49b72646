package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/gate"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// checkSets are the INST_IDs of the result sets checkFixture exports.
type checkSets struct {
	covBase, covNow, timeBase, timeNow int64
}

// checkFixture exports two Light Coverage and two Function Trace result
// sets whose differences are known (see the comments) into dsn.
func checkFixture(t *testing.T, dsn string) checkSets {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	x := exporter.New(db, exporter.Options{})
	export := func(b interface {
		Export(context.Context, resultset.Target, string) (resultset.Result, error)
	}, caption string) int64 {
		res, err := b.Export(ctx, x, caption)
		if err != nil {
			t.Fatalf("export %s: %v", caption, err)
		}
		return res.InstID
	}
	type ln struct{ line, count int64 }
	cov := func(files map[string]map[string][]ln) *lightcoverage.Builder {
		b := lightcoverage.NewBuilder()
		for _, file := range sortedKeys(files) {
			for _, name := range sortedKeys(files[file]) {
				r := b.AddRoutine(lightcoverage.RoutineInfo{Name: name, Module: "m", SourceFile: file, LineLevel: true, Count: 1})
				for _, l := range files[file][name] {
					r.AddLine(l.line, l.count)
				}
			}
		}
		return b
	}
	var s checkSets
	// Baseline: calc.go 6 of 6 lines, util.go 1 of 2: 7 of 8 (87.5%).
	s.covBase = export(cov(map[string]map[string][]ln{
		"example.com/m/calc/calc.go": {"Add": {{10, 1}, {11, 1}, {12, 1}, {13, 1}}, "Sub": {{20, 1}, {21, 1}}},
		"example.com/m/util.go":      {"U": {{5, 1}, {6, 0}}},
	}), "base")
	// Now: calc.go 4 of 8 (+4 uncovered), util.go 2 of 2 (-1), new.go 0 of
	// 2 (+2): 6 of 12 (50%), 37.5 points less.
	s.covNow = export(cov(map[string]map[string][]ln{
		"example.com/m/calc/calc.go": {"Add": {{10, 1}, {11, 0}, {12, 0}, {13, 1}}, "Sub": {{20, 1}, {21, 1}, {22, 0}, {24, 0}}},
		"example.com/m/util.go":      {"U": {{5, 1}, {6, 1}}},
		"example.com/m/new.go":       {"N": {{3, 0}, {4, 0}}},
	}), "now")
	// Traces: main (own 10) calls slow and fast. Baseline slow 60, fast 30:
	// total 100; now slow 90, fast 20: total 120 (+20%).
	trace := func(slow, fast int64) *functiontrace.Builder {
		b := functiontrace.NewBuilder()
		b.SetCounter(&resultset.Counter{Name: "Elapsed Time"})
		mainR := b.AddRoutine(functiontrace.RoutineInfo{Name: "main", Module: "app"})
		slowR := b.AddRoutine(functiontrace.RoutineInfo{Name: "slow", Class: "Worker", Module: "app"})
		fastR := b.AddRoutine(functiontrace.RoutineInfo{Name: "fast", Module: "app"})
		th := b.AddThread(functiontrace.ThreadInfo{Win32ThreadID: 1})
		calls := []struct {
			r         *functiontrace.Routine
			own, with int64
		}{{slowR, slow, slow}, {fastR, fast, fast}}
		if _, err := th.Enter(functiontrace.CallInfo{Routine: mainR, Count: 1, Time: 10, TimeWithChildren: 10 + slow + fast}); err != nil {
			t.Fatal(err)
		}
		for _, c := range calls {
			if _, err := th.Enter(functiontrace.CallInfo{Routine: c.r, Count: 1, Time: c.own, TimeWithChildren: c.with}); err != nil {
				t.Fatal(err)
			}
			if err := th.Exit(); err != nil {
				t.Fatal(err)
			}
		}
		if err := th.Exit(); err != nil {
			t.Fatal(err)
		}
		return b
	}
	s.timeBase = export(trace(60, 30), "trace base")
	s.timeNow = export(trace(90, 20), "trace now")
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// checkDiff changes calc/calc.go (new lines 11-14 and 22-24), adds new.go,
// changes README.md, deletes old.go and changes a binary file.
const checkDiff = `diff --git a/calc/calc.go b/calc/calc.go
index 1111111..2222222 100644
--- a/calc/calc.go
+++ b/calc/calc.go
@@ -10,2 +10,5 @@ func Add(a, b int) int {
 	x := a
-	y := b
+	y := b + 0
+	z := y
+	x += z
+	// a comment no row knows
@@ -18,2 +21,5 @@ func Sub(a, b int) int {
 	d := a - b
+	if d < 0 {
+		// nothing
+		d = -d
 	return d
diff --git a/new.go b/new.go
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/new.go
@@ -0,0 +1,4 @@
+package m
+
+func N() {
+}
diff --git a/README.md b/README.md
index 7777777..8888888 100644
--- a/README.md
+++ b/README.md
@@ -1 +1,2 @@
 # m
+More text.
diff --git a/old.go b/old.go
deleted file mode 100644
index 4444444..0000000
--- a/old.go
+++ /dev/null
@@ -1,2 +0,0 @@
-package m
-// old
diff --git a/logo.png b/logo.png
index 5555555..6666666 100644
Binary files a/logo.png and b/logo.png differ
`

// runCheckJSON runs profdb check with --format json and returns its exit
// status and report.
func runCheckJSON(t *testing.T, args ...string) (int, gate.Report, string) {
	t.Helper()
	out, errOut, code := runCLI(t, append([]string{"check", "--format", "json"}, args...)...)
	var rep gate.Report
	if code != 2 {
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("profdb check %s: exit %d, output not JSON: %v\n%s\n%s", strings.Join(args, " "), code, err, out, errOut)
		}
	}
	return code, rep, errOut
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

func TestCheckRules(t *testing.T) {
	for _, dn := range dbtest.Dialects() {
		t.Run(dn, func(t *testing.T) {
			dsn := dbtest.Fresh(t, dn)
			s := checkFixture(t, dsn)
			diff := filepath.Join(t.TempDir(), "change.diff")
			if err := os.WriteFile(diff, []byte(checkDiff), 0o644); err != nil {
				t.Fatal(err)
			}
			now, base := itoa64(s.covNow), itoa64(s.covBase)
			rule := func(t *testing.T, wantCode int, args ...string) gate.Rule {
				t.Helper()
				code, rep, errOut := runCheckJSON(t, append([]string{"--db", dsn}, args...)...)
				if code != wantCode {
					t.Fatalf("check %s: exit %d, want %d\n%s", strings.Join(args, " "), code, wantCode, errOut)
				}
				if len(rep.Rules) != 1 || rep.Passed != (wantCode == 0) || rep.Rules[0].Passed != (wantCode == 0) {
					t.Fatalf("check %s: report %+v", strings.Join(args, " "), rep)
				}
				if wantCode == 1 && !strings.Contains(errOut, "1 of 1 rules failed: "+rep.Rules[0].Name) {
					t.Errorf("check %s: message %q does not name the failed rule", strings.Join(args, " "), errOut)
				}
				return rep.Rules[0]
			}
			names := func(fs []gate.FileDrop) []string {
				var out []string
				for _, f := range fs {
					out = append(out, f.Name)
				}
				return out
			}

			// min-coverage: 6 of 12 lines, exactly 50%.
			r := rule(t, 0, now, "--min-coverage", "50")
			if r.Coverage.Covered != 6 || r.Coverage.Total != 12 || r.Value != 50 {
				t.Errorf("min-coverage: %+v", r)
			}
			r = rule(t, 1, now, "--min-coverage", "50.01%")
			if got, want := names(r.Files), []string{"example.com/m/calc/calc.go", "example.com/m/new.go"}; !reflect.DeepEqual(got, want) {
				t.Errorf("min-coverage names %q, want %q", got, want)
			}

			// max-drop: 87.5% to 50%, 37.5 points.
			r = rule(t, 0, now, "--baseline", base, "--max-drop", "37.5")
			if r.Value != 37.5 || r.Before.Covered != 7 || r.Before.Total != 8 {
				t.Errorf("max-drop: %+v", r)
			}
			r = rule(t, 1, now, "--baseline", base, "--max-drop", "37")
			if got, want := names(r.Files), []string{"example.com/m/calc/calc.go", "example.com/m/new.go"}; !reflect.DeepEqual(got, want) {
				t.Errorf("max-drop names %q, want %q", got, want)
			}
			if r.Files[0].Missed != 4 || r.Files[1].Missed != 2 || r.Files[0].Before.Total != 6 || r.Files[0].After.Covered != 4 {
				t.Errorf("max-drop files %+v", r.Files)
			}
			r = rule(t, 1, now, "--baseline", base, "--max-drop", "37", "--top", "1")
			if len(r.Files) != 1 || r.Omitted != 1 {
				t.Errorf("max-drop --top 1: %+v", r)
			}

			// patch coverage: 1 of 7 coverable changed lines.
			r = rule(t, 0, now, "--diff", diff, "--min-patch-coverage", "14")
			if r.Coverage.Covered != 1 || r.Coverage.Total != 7 {
				t.Errorf("patch coverage %+v", r.Coverage)
			}
			r = rule(t, 1, now, "--diff", diff, "--min-patch-coverage", "15")
			var lines []string
			for _, l := range r.Lines {
				lines = append(lines, l.String())
			}
			if want := []string{"calc/calc.go:11-12", "calc/calc.go:22-24", "new.go:3-4"}; !reflect.DeepEqual(lines, want) {
				t.Errorf("uncovered changed lines %q, want %q", lines, want)
			}
			if want := []string{"README.md"}; !reflect.DeepEqual(r.Unknown, want) {
				t.Errorf("unmatched files %q, want %q", r.Unknown, want)
			}

			// max-time-increase: 100 to 120 ticks, +20%; slow grew 60 to 90.
			tn, tb := itoa64(s.timeNow), itoa64(s.timeBase)
			r = rule(t, 0, tn, "--baseline", tb, "--max-time-increase", "20")
			if r.Value != 20 {
				t.Errorf("time increase %v, want 20", r.Value)
			}
			r = rule(t, 1, tn, "--baseline", tb, "--max-time-increase", "19.9")
			if len(r.Routines) != 1 || r.Routines[0].FullName() != "Worker::slow" || r.Routines[0].Before != 60 || r.Routines[0].After != 90 ||
				r.Routines[0].Unit != "Elapsed Time" {
				t.Errorf("routines that slowed %+v", r.Routines)
			}

			// All at once: two rules fail, the exit is 1.
			code, rep, _ := runCheckJSON(t, "--db", dsn, now, "--min-coverage", "40", "--baseline", base, "--max-drop", "1", "--diff", diff, "--min-patch-coverage", "50")
			if code != 1 || len(rep.Rules) != 3 || len(rep.Failed()) != 2 {
				t.Errorf("three rules: exit %d, %+v", code, rep)
			}

			// Exit 2: usage, a missing result set, a profiler that does
			// not fit, a missing database.
			for _, args := range [][]string{
				{now},
				{now, "--max-drop", "3"},
				{now, "--baseline", base},
				{now, "--min-patch-coverage", "3"},
				{now, "--min-coverage", "x"},
				{now, "--min-coverage", "50", "--format", "xml"},
				{"999", "--min-coverage", "50"},
				{now, "--baseline", "999", "--max-drop", "1"},
				{tn, "--min-coverage", "50"},
				{now, "--baseline", tb, "--max-drop", "1"},
				{now, "--baseline", base, "--max-time-increase", "1"},
				{now, "--diff", filepath.Join(t.TempDir(), "missing.diff")},
			} {
				_, errOut, code := runCLI(t, append([]string{"check", "--db", dsn}, args...)...)
				if code != 2 || !strings.HasPrefix(errOut, "profdb: check: ") {
					t.Errorf("check %s: exit %d, want 2; %q", strings.Join(args, " "), code, errOut)
				}
			}
		})
	}
}

// Patch coverage of a diff over more files than check selects by name (it
// then reads every line of the result set once): each of 40 files has
// line 1 covered, line 2 not, line 3 in two routines, covered in the
// second only (so covered), and the diff adds lines 1-4 of each (line 4
// no row knows), and one file the result set does not name.
func TestCheckPatchCoverageManyFiles(t *testing.T) {
	const files = 40
	var diff strings.Builder
	for f := range files {
		p := "pkg/f" + strconv.Itoa(f) + ".go"
		diff.WriteString("diff --git a/" + p + " b/" + p + "\nnew file mode 100644\n--- /dev/null\n+++ b/" + p + "\n@@ -0,0 +1,4 @@\n+a\n+b\n+c\n+d\n")
	}
	diff.WriteString("diff --git a/doc.txt b/doc.txt\n--- a/doc.txt\n+++ b/doc.txt\n@@ -1,0 +2,1 @@\n+x\n")
	for _, dn := range dbtest.Dialects() {
		t.Run(dn, func(t *testing.T) {
			dsn := dbtest.Fresh(t, dn)
			ctx := context.Background()
			db, err := store.Open(ctx, dsn, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			b := lightcoverage.NewBuilder()
			defer b.Close()
			for f := range files {
				file := "example.com/m/pkg/f" + strconv.Itoa(f) + ".go"
				r := b.AddRoutine(lightcoverage.RoutineInfo{Name: "A", Module: "m", SourceFile: file, LineLevel: true, Count: 1})
				r.AddLine(1, 1)
				r.AddLine(2, 0)
				r.AddLine(3, 0)
				r = b.AddRoutine(lightcoverage.RoutineInfo{Name: "B", Module: "m", SourceFile: file, LineLevel: true, Count: 1})
				r.AddLine(3, 2)
			}
			res, err := b.Export(ctx, exporter.New(db, exporter.Options{}), "many files")
			db.Close()
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Join(t.TempDir(), "change.diff")
			if err := os.WriteFile(name, []byte(diff.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			code, rep, errOut := runCheckJSON(t, "--db", dsn, itoa64(res.InstID), "--diff", name, "--min-patch-coverage", "67")
			if code != 1 || len(rep.Rules) != 1 {
				t.Fatalf("check: exit %d, want 1; report %+v\n%s", code, rep, errOut)
			}
			r := rep.Rules[0]
			if r.Coverage == nil || r.Coverage.Covered != 2*files || r.Coverage.Total != 3*files {
				t.Errorf("patch coverage %+v, want %d of %d", r.Coverage, 2*files, 3*files)
			}
			var want []string
			for f := range files {
				want = append(want, "pkg/f"+strconv.Itoa(f)+".go:2")
			}
			var got []string
			for _, l := range r.Lines {
				got = append(got, l.String())
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("uncovered changed lines %v, want %v", got, want)
			}
			if !reflect.DeepEqual(r.Unknown, []string{"doc.txt"}) {
				t.Errorf("unmatched files %v, want [doc.txt]", r.Unknown)
			}
		})
	}
}
