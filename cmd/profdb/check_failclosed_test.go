package main

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/gate"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/store"
)

// tempFile writes text to a new file in a temporary folder and returns
// its path.
func tempFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	writeFile(t, path, text)
	return path
}

// The gate fails closed on its diff: input in which no file header is
// found (git's error message, when its standard error went into the diff
// file; random bytes) is an error, exit 2, that names the file and says
// to use set -o pipefail. So is an empty input, all that a git diff that
// fails in a pipeline hands on, unless --allow-empty-diff says no change is
// expected: patch coverage then holds on it.
func TestCheckDiffNotADiff(t *testing.T) {
	dsn := sqliteDSN(t)
	now := itoa64(checkFixture(t, dsn).covNow)
	for _, text := range []string{
		"fatal: ambiguous argument 'origin/mian...HEAD': unknown revision or path not in the working tree.\n",
		"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
	} {
		name := tempFile(t, "change.diff", text)
		_, errOut, code := runCLI(t, "check", "--db", dsn, now, "--diff", name, "--min-patch-coverage", "80")
		if code != 2 || !strings.HasPrefix(errOut, "profdb: check: --diff "+name+": diff: ") ||
			!strings.Contains(errOut, "this is not a diff") || !strings.Contains(errOut, "set -o pipefail") {
			t.Errorf("%.30q: exit %d, want 2 and an error that it is no diff, pointing to set -o pipefail\n%s", text, code, errOut)
		}
		var out, stderr strings.Builder
		code = runWithStdin(t, strings.NewReader(text), &out, &stderr, "check", "--db", dsn, now, "--diff", "-")
		if code != 2 || !strings.Contains(stderr.String(), "profdb: check: --diff -: diff: ") || !strings.Contains(stderr.String(), "set -o pipefail") {
			t.Errorf("%.30q on standard input: exit %d, want 2\n%s", text, code, stderr.String())
		}
	}
	var out, stderr strings.Builder
	code := runWithStdin(t, strings.NewReader(""), &out, &stderr, "check", "--db", dsn, now, "--diff", "-", "--min-patch-coverage", "80")
	if code != 2 || !strings.Contains(stderr.String(), "profdb: check: --diff -: diff: the input is empty") ||
		!strings.Contains(stderr.String(), "--allow-empty-diff") || !strings.Contains(stderr.String(), "set -o pipefail") {
		t.Errorf("empty diff: exit %d, want 2 and an error pointing to --allow-empty-diff and set -o pipefail\n%s%s", code, out.String(), stderr.String())
	}
	empty := tempFile(t, "empty.diff", "")
	if _, errOut, code := runCLI(t, "check", "--db", dsn, now, "--diff", empty); code != 2 || !strings.Contains(errOut, "the input is empty") {
		t.Errorf("empty diff file: exit %d, want 2\n%s", code, errOut)
	}
	out.Reset()
	stderr.Reset()
	code = runWithStdin(t, strings.NewReader(""), &out, &stderr, "check", "--db", dsn, now, "--diff", "-", "--allow-empty-diff", "--min-patch-coverage", "80")
	if code != 0 || !strings.Contains(out.String(), "PASS  patch-coverage: no changed line is coverable (0 changed lines in 0 files)") {
		t.Errorf("empty diff: exit %d, want 0\n%s%s", code, out.String(), stderr.String())
	}
}

// Percentages outside 0 to 100 (a coverage, a drop in points), and any
// that is no number, are usage errors, exit 2, naming the flag;
// --max-time-increase may exceed 100.
func TestCheckPercentLimits(t *testing.T) {
	dsn := sqliteDSN(t)
	s := checkFixture(t, dsn)
	now, base, diff := itoa64(s.covNow), itoa64(s.covBase), tempFile(t, "change.diff", checkDiff)
	for _, flag := range []string{"--min-coverage", "--min-patch-coverage", "--max-drop", "--max-time-increase"} {
		args := []string{"check", "--db", dsn, now}
		switch flag {
		case "--min-patch-coverage":
			args = append(args, "--diff", diff)
		case "--max-drop":
			args = append(args, "--baseline", base)
		case "--max-time-increase":
			args = []string{"check", "--db", dsn, itoa64(s.timeNow), "--baseline", itoa64(s.timeBase)}
		}
		bad := []string{"-1", "-0.5", "NaN", "nan", "Inf", "+Inf", "-Inf", "1e400", "x", ""}
		if flag != "--max-time-increase" {
			bad = append(bad, "100.01", "150", "150%", "1e3")
		}
		for _, v := range bad {
			_, errOut, code := runCLI(t, append(args, flag, v)...)
			if code != 2 || !strings.Contains(errOut, `for "`+flag+`" flag`) || !strings.Contains(errOut, "is not a percentage") {
				t.Errorf("%s %q: exit %d, want 2 and an error naming the flag\n%s", flag, v, code, errOut)
			}
		}
		good := []string{"0", "100", "100%", "99.5"}
		if flag == "--max-time-increase" {
			good = append(good, "150", "1e3")
		}
		for _, v := range good {
			if _, errOut, code := runCLI(t, append(args, flag, v)...); code == 2 {
				t.Errorf("%s %q: exit 2\n%s", flag, v, errOut)
			}
		}
	}
	if _, errOut, code := runCLI(t, "check", "--db", dsn, now, "--diff", diff, "--max-ranges", "0"); code != 2 || !strings.Contains(errOut, "--max-ranges must be at least 1, not 0") {
		t.Errorf("--max-ranges 0: exit %d\n%s", code, errOut)
	}
}

// A result set with no line shows nothing about the code: every coverage
// rule fails on it, whatever its limit (min-coverage at 0 too), and
// max-drop fails when either side has none. A result set with lines still
// holds patch coverage on a diff no row knows a line of.
func TestCheckEmptyResultSet(t *testing.T) {
	dsn := sqliteDSN(t)
	s := checkFixture(t, dsn)
	ctx := context.Background()
	db, err := store.Open(ctx, dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := exporter.New(db, exporter.Options{})
	var empty []string
	// No routine at all; routines without lines (a JaCoCo report of
	// classes compiled without debug information).
	for i, routines := range []int{0, 3} {
		b := lightcoverage.NewBuilder()
		for r := range routines {
			b.AddRoutine(lightcoverage.RoutineInfo{Name: "R" + strconv.Itoa(r), Module: "m", SourceFile: "calc/calc.go", Count: 1})
		}
		res, err := b.Export(ctx, x, "empty "+strconv.Itoa(i))
		if err != nil {
			t.Fatal(err)
		}
		empty = append(empty, itoa64(res.InstID))
	}
	db.Close()
	diff := tempFile(t, "change.diff", checkDiff)
	now, base := itoa64(s.covNow), itoa64(s.covBase)
	for _, e := range empty {
		for _, args := range [][]string{
			{e, "--min-coverage", "0"},
			{e, "--min-coverage", "80"},
			{e, "--diff", diff},
			{e, "--diff", diff, "--min-patch-coverage", "0"},
			{e, "--diff", diff, "--min-patch-coverage", "80"},
			{e, "--baseline", base, "--max-drop", "100"},
			{now, "--baseline", e, "--max-drop", "100"},
		} {
			code, rep, errOut := runCheckJSON(t, append([]string{"--db", dsn}, args...)...)
			if code != 1 || len(rep.Rules) != 1 || rep.Rules[0].Passed || !strings.Contains(rep.Rules[0].Summary, "has no coverable line (0 lines)") {
				t.Errorf("check %s: exit %d, want 1 and a rule failed for want of lines; %+v\n%s", strings.Join(args, " "), code, rep.Rules, errOut)
			}
		}
	}
	stdout, _, code := runCLI(t, "check", "--db", dsn, empty[0], "--min-coverage", "0")
	if code != 1 || !strings.Contains(stdout, "FAIL  min-coverage: result set "+empty[0]+" has no coverable line (0 lines): it has no line coverage to hold to 0%") {
		t.Errorf("text: exit %d\n%s", code, stdout)
	}
	// A diff of lines no row knows (README.md) holds on a set with lines.
	readme := tempFile(t, "readme.diff", "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1,2 @@\n # m\n+More text.\n")
	if code, rep, errOut := runCheckJSON(t, "--db", dsn, now, "--diff", readme, "--min-patch-coverage", "80"); code != 0 || !rep.Passed {
		t.Errorf("a diff with no coverable line: exit %d, want 0; %+v\n%s", code, rep, errOut)
	}
}

// The lists that grow with the diff are capped: the changed files the
// result set does not name at --top, with "... and N more", the uncovered
// ranges at --max-ranges, in every format.
func TestCheckDiffListsCapped(t *testing.T) {
	const files, unknown = 40, 15
	var diff strings.Builder
	for f := range files + unknown {
		p := "pkg/f" + strconv.Itoa(f) + ".go"
		if f >= files {
			p = "docs/d" + strconv.Itoa(f-files) + ".md"
		}
		diff.WriteString("diff --git a/" + p + " b/" + p + "\nnew file mode 100644\n--- /dev/null\n+++ b/" + p + "\n@@ -0,0 +1,2 @@\n+a\n+b\n")
	}
	dsn := sqliteDSN(t)
	ctx := context.Background()
	db, err := store.Open(ctx, dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := lightcoverage.NewBuilder()
	for f := range files {
		r := b.AddRoutine(lightcoverage.RoutineInfo{Name: "A", Module: "m", SourceFile: "pkg/f" + strconv.Itoa(f) + ".go", LineLevel: true, Count: 1})
		r.AddLine(1, 1)
		r.AddLine(2, 0)
	}
	res, err := b.Export(ctx, exporter.New(db, exporter.Options{}), "many files")
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	inst, name := itoa64(res.InstID), tempFile(t, "change.diff", diff.String())
	args := []string{"--db", dsn, inst, "--diff", name, "--min-patch-coverage", "80", "--top", "3", "--max-ranges", "5"}
	code, rep, errOut := runCheckJSON(t, args...)
	if code != 1 || len(rep.Rules) != 1 {
		t.Fatalf("exit %d, want 1; %+v\n%s", code, rep, errOut)
	}
	r := rep.Rules[0]
	if r.Coverage.Covered != files || r.Coverage.Total != 2*files || len(r.Lines) != 5 || r.Omitted != files-5 ||
		len(r.Unknown) != 3 || r.UnknownOmitted != unknown-3 || r.Lines[4].String() != "pkg/f4.go:2" || r.Unknown[2] != "docs/d2.md" {
		t.Errorf("rule %+v: want 5 ranges and %d omitted, 3 unmatched files and %d omitted", r, files-5, unknown-3)
	}
	stdout, _, _ := runCLI(t, append([]string{"check"}, args...)...)
	for _, want := range []string{
		"        pkg/f4.go:2\n        ... and 35 more\n",
		"      changed files the result set does not name (not counted): docs/d0.md, docs/d1.md, docs/d2.md ... and 12 more\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("text report lacks %q:\n%s", want, stdout)
		}
	}
	stdout, _, _ = runCLI(t, append([]string{"check", "--format", "github"}, args...)...)
	if n := strings.Count(stdout, "::error file="); n != 5 || !strings.HasSuffix(stdout, "::error title=profdb check%3A patch-coverage::... and 35 more uncovered changed line ranges, not annotated (--max-ranges)\n") {
		t.Errorf("github: %d annotations of lines, want 5 and a last one of the rest:\n%s", n, stdout)
	}
}

// Check refuses limits out of their range from Go callers too.
func TestCheckOptionsLimits(t *testing.T) {
	for _, o := range []gate.Options{
		{MinCoverage: ptr(100.5)},
		{MinPatchCoverage: ptr(-1.0), Diff: &gate.Patch{}},
		{MaxDrop: ptr(101.0), Baseline: 1},
		{MaxTimeIncrease: ptr(-0.1), Baseline: 1},
	} {
		if _, err := gate.Check(context.Background(), nil, 1, o); err == nil || !strings.Contains(err.Error(), "is not a percentage") {
			t.Errorf("%+v: %v, want a usage error", o, err)
		}
	}
}

func ptr[T any](v T) *T { return &v }
