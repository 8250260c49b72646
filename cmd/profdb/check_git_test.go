package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/profdb/profdb/gate"
)

// The module of TestCheckPatchCoverageOfGitDiff: a package whose test runs
// Abs with a positive number only, then a change that adds Sign, which
// the test runs with a positive number only.
const (
	calcBefore = `package calc

// Abs returns |x|.
func Abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
`
	calcAfter = calcBefore + `
// Sign returns -1, 0 or 1.
func Sign(x int) int {
	if x < 0 {
		return -1
	}
	if x == 0 {
		return 0
	}
	return 1
}
`
	calcTestBefore = `package calc

import "testing"

func TestAbs(t *testing.T) {
	if Abs(3) != 3 {
		t.Fatal("Abs(3)")
	}
}
`
	calcTestAfter = calcTestBefore + `
func TestSign(t *testing.T) {
	if Sign(5) != 1 {
		t.Fatal("Sign(5)")
	}
}
`
)

// TestCheckPatchCoverageOfGitDiff makes a small Go module, commits it with
// git, changes it, profiles its tests with go test -coverprofile, exports
// the profile and gates the change on patch coverage, from the real
// git diff (read from standard input as CI pipes it).
func TestCheckPatchCoverageOfGitDiff(t *testing.T) {
	for _, tool := range []string{"go", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not on PATH (CI=true: the patch coverage of a real diff must be tested): %v", tool, err)
			}
			t.Skipf("%s is not on PATH", tool)
		}
	}
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmdIn := func(name string, args ...string) string {
		t.Helper()
		c := exec.Command(name, args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOWORK=off", "GOFLAGS=", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		out, err := c.Output()
		if err != nil {
			msg := ""
			if ee, ok := err.(*exec.ExitError); ok {
				msg = string(ee.Stderr)
			}
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, msg)
		}
		return string(out)
	}
	write("go.mod", "module example.com/calc\n\ngo 1.21\n")
	write("calc.go", calcBefore)
	write("calc_test.go", calcTestBefore)
	cmdIn("git", "init", "-q")
	cmdIn("git", "add", ".")
	cmdIn("git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "calc")
	write("calc.go", calcAfter)
	write("calc_test.go", calcTestAfter)
	prof := filepath.Join(dir, "cover.out")
	cmdIn("go", "test", "-count=1", "-covermode=count", "-coverprofile="+prof, "./...")
	diff := cmdIn("git", "diff")

	db := "sqlite:" + filepath.Join(t.TempDir(), "cov.db")
	mustRun(t, "export", "--db", db, "--format", "gocover", "--source-root", dir, prof)

	// Sign's changed lines that the profile knows, by the gocover
	// reader's rule (the lines where statements start): 13, 16 and 19
	// (the ifs and return 1) ran, 14 (return -1) and 17 (return 0) did
	// not. Comments, blank lines, the signature and braces count for
	// nothing; calc_test.go is not in the profile.
	var out, errOut strings.Builder
	in := strings.NewReader(diff)
	code := runWithStdin(t, in, &out, &errOut, "check", "--db", db, "1", "--diff", "-", "--min-patch-coverage", "61", "--format", "json")
	if code != 1 {
		t.Fatalf("check: exit %d, want 1\n%s\n%s\ndiff:\n%s", code, out.String(), errOut.String(), diff)
	}
	var rep gate.Report
	decodeJSON(t, out.String(), &rep)
	r := rep.Rules[0]
	if r.Coverage.Covered != 3 || r.Coverage.Total != 5 || r.Value != 60 {
		t.Errorf("patch coverage %d of %d (%v%%), want 3 of 5 (60%%)\n%s", r.Coverage.Covered, r.Coverage.Total, r.Value, out.String())
	}
	var lines []string
	for _, l := range r.Lines {
		lines = append(lines, l.String())
	}
	if want := []string{"calc.go:14", "calc.go:17"}; !reflect.DeepEqual(lines, want) {
		t.Errorf("uncovered changed lines %q, want %q", lines, want)
	}
	if want := []string{"calc_test.go"}; !reflect.DeepEqual(r.Unknown, want) {
		t.Errorf("unmatched %q, want %q", r.Unknown, want)
	}

	// The same as GitHub annotations, and the rule holding at 60%.
	out.Reset()
	code = runWithStdin(t, strings.NewReader(diff), &out, &errOut, "check", "--db", db, "1", "--diff", "-", "--min-patch-coverage", "61", "--format", "github")
	wantGH := "::error file=calc.go,line=14,endLine=14,title=profdb check%3A patch-coverage::Line 14 is not covered by tests (patch coverage 60.0%25 (3 of 5 changed lines covered), at least 61%25 required)\n" +
		"::error file=calc.go,line=17,endLine=17,title=profdb check%3A patch-coverage::Line 17 is not covered by tests (patch coverage 60.0%25 (3 of 5 changed lines covered), at least 61%25 required)\n"
	if code != 1 || out.String() != wantGH {
		t.Errorf("github: exit %d\n%s\nwant\n%s", code, out.String(), wantGH)
	}
	out.Reset()
	code = runWithStdin(t, strings.NewReader(diff), &out, &errOut, "check", "--db", db, "1", "--diff", "-", "--min-patch-coverage", "60")
	if code != 0 || !strings.Contains(out.String(), "PASS  patch-coverage: patch coverage 60.0% (3 of 5 changed lines covered)") ||
		!strings.Contains(out.String(), "calc.go:17") {
		t.Errorf("text: exit %d\n%s", code, out.String())
	}
}

// runWithStdin runs profdb with in as its standard input (a file, as a
// pipe from git diff would be) and returns the exit status.
func runWithStdin(t *testing.T, in io.Reader, stdout, stderr io.Writer, args ...string) int {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.Copy(f, in); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	old := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = old }()
	return run(args, stdout, stderr)
}

func decodeJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
}
