//go:build linux

// The peak RSS of a child process is Linux's ru_maxrss (internal/launchtest).

package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/launchtest"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/store"
)

var (
	checkDiffMB     = flag.Int("diffmb", 50, "TestCheckDiffMemory: the size of the diff in MB")
	checkDiffBefore = flag.String("diffbefore", "", "TestCheckDiffMemory: another profdb binary measured on the same diff, for a before/after comparison (not held to the bound)")
)

// checkDiffRSS is the peak RSS profdb check may take on a diff of any size.
const checkDiffRSS = 200 << 20

// TestCheckDiffMemory runs profdb check --diff on 50 MB git diffs (-diffmb
// sets another size: 500 is the other figure) as a process of its
// own and holds its peak RSS under 200 MiB: the diff is read as a stream
// and its changed lines kept as runs. One diff is of a large refactoring:
// files of 50 hunks, each of 3 lines of context, 2 deleted and 4 added
// lines and 3 of context again, lines of about 40 bytes; the other adds
// files of 10,000 short lines (generated code). The result set knows 10
// of their files.
func TestCheckDiffMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 50 MB diffs")
	}
	dir := t.TempDir()
	dsn := "sqlite:" + filepath.Join(dir, "cov.db")
	ctx := context.Background()
	db, err := store.Open(ctx, dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := lightcoverage.NewBuilder()
	for f := range 10 {
		r := b.AddRoutine(lightcoverage.RoutineInfo{Name: "F", Module: "m", SourceFile: "example.com/m/" + bigDiffFile(f), LineLevel: true, Count: 1})
		for l := int64(1); l <= 2000; l++ {
			r.AddLine(l, max(0, 1-l%3)) // a third of the lines ran
		}
	}
	res, err := b.Export(ctx, exporter.New(db, exporter.Options{}), "ten files")
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, newFiles := range []bool{false, true} {
		diff := filepath.Join(dir, "big.diff")
		files, lines := writeBigDiff(t, diff, int64(*checkDiffMB)<<20, newFiles)
		args := []string{"check", "--db", dsn, itoa64(res.InstID), "--diff", diff, "--min-patch-coverage", "50"}
		r := launchtest.Measure(t, []string{asProfdb + "=1"}, append([]string{self}, args...)...)
		t.Logf("profdb check --diff of %d MB (%d files, %d changed lines): %.1f s, peak RSS %d MiB",
			*checkDiffMB, files, lines, r.Elapsed.Seconds(), r.MaxRSS>>20)
		if r.Err != "exit status 1" || !strings.Contains(r.Stdout, "FAIL  patch-coverage: patch coverage ") ||
			!strings.Contains(r.Stdout, fmt.Sprintf("... and %d more", files-10-10)) {
			t.Errorf("check: %s\n%s%.2000s", r.Err, r.Stderr, r.Stdout)
		}
		if r.MaxRSS >= checkDiffRSS {
			t.Errorf("peak RSS %d MiB, want under %d MiB", r.MaxRSS>>20, checkDiffRSS>>20)
		}
		if *checkDiffBefore != "" {
			rb := launchtest.Measure(t, nil, append([]string{*checkDiffBefore}, args...)...)
			t.Logf("%s: %.1f s, peak RSS %d MiB (%s)", *checkDiffBefore, rb.Elapsed.Seconds(), rb.MaxRSS>>20, rb.Err)
		}
	}
}

// bigDiffFile is the path of the i-th file of writeBigDiff's diff.
func bigDiffFile(i int) string {
	return "src/pkg" + strconv.Itoa(i/100) + "/file" + strconv.Itoa(i) + ".go"
}

// writeBigDiff writes a git diff of about size bytes to path, of modified
// files or of new ones, and returns its files and changed lines.
func writeBigDiff(t *testing.T, path string, size int64, newFiles bool) (files, lines int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var written int64
	put := func(format string, args ...any) {
		n, _ := fmt.Fprintf(w, format, args...)
		written += int64(n)
	}
	// repeat writes k lines of a format taking the line's index.
	repeat := func(k int, format string) {
		for i := range k {
			put(format, i)
		}
	}
	const hunks, fileLines = 50, 10000
	for written < size {
		name := bigDiffFile(int(files))
		files++
		if newFiles {
			put("diff --git a/%s b/%s\nnew file mode 100644\nindex 0000000..789abcd\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n",
				name, name, name, fileLines)
			repeat(fileLines, "+\tx%d = 0,\n")
			lines += fileLines
			continue
		}
		put("diff --git a/%s b/%s\nindex 0123456..789abcd 100644\n--- a/%s\n+++ b/%s\n", name, name, name, name)
		for h := range int64(hunks) {
			put("@@ -%d,8 +%d,10 @@ func F%d(x int) int {\n", 1+h*20, 1+h*22, h)
			repeat(3, " \tcontext line %d of the hunk, unchanged\n")
			repeat(2, "-\told := compute(x, %d) // the line before\n")
			repeat(4, "+\tnew := computeBetter(x, %d) // the line after\n")
			repeat(3, " \tcontext line %d after the change, the same\n")
			lines += 4
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return files, lines
}
