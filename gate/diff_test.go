package gate

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// sampleDiff is a git diff of every kind of file.
const sampleDiff = `diff --git a/src/a.go b/src/a.go
index 1111111..2222222 100644
--- a/src/a.go
+++ b/src/a.go
@@ -1,3 +1,4 @@
 package a
-var x = 1
+var x = 2
+var y = 3
 // end
@@ -10,2 +11,3 @@ func F() {
 	a()
+	b()
 	c()
diff --git a/old/b.go b/new/b.go
similarity index 90%
rename from old/b.go
rename to new/b.go
index 3333333..4444444 100644
--- a/old/b.go
+++ b/new/b.go
@@ -5,2 +5,2 @@
-	old()
+	renamed()
 	same()
diff --git a/pure.go b/moved.go
similarity index 100%
rename from pure.go
rename to moved.go
diff --git a/gone.go b/gone.go
deleted file mode 100644
index 5555555..0000000
--- a/gone.go
+++ /dev/null
@@ -1,1 +0,0 @@
-package gone
diff --git a/img.png b/img.png
new file mode 100644
index 0000000..6666666
Binary files /dev/null and b/img.png differ
diff --git a/only_deletes.go b/only_deletes.go
index 7777777..8888888 100644
--- a/only_deletes.go
+++ b/only_deletes.go
@@ -1,2 +1,1 @@
 keep
-drop
diff --git a/fresh.go b/fresh.go
new file mode 100644
index 0000000..9999999
--- /dev/null
+++ b/fresh.go
@@ -0,0 +1,2 @@
+package fresh
+// new
`

func TestParseDiff(t *testing.T) {
	p, err := ParseDiff(context.Background(), strings.NewReader(sampleDiff))
	if err != nil {
		t.Fatal(err)
	}
	want := []fileLines{
		{Path: "src/a.go", Lines: []int64{2, 3, 12}},
		{Path: "new/b.go", Lines: []int64{5}},
		{Path: "fresh.go", Lines: []int64{1, 2}},
	}
	if got := flat(p); !reflect.DeepEqual(got, want) {
		t.Errorf("files %+v\nwant  %+v", got, want)
	}
	if p.Lines() != 6 {
		t.Errorf("Lines() = %d, want 6", p.Lines())
	}
}

// A plain unified diff (diff -u, no git header) works too.
const plainDiff = `--- a/x.c	2026-01-01 00:00:00
+++ b/x.c	2026-01-02 00:00:00
@@ -3,0 +4,2 @@
+int a;
+int b;
`

func TestParseDiffPlainUnified(t *testing.T) {
	p, err := ParseDiff(context.Background(), strings.NewReader(plainDiff))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := flat(p), []fileLines{{Path: "x.c", Lines: []int64{4, 5}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("files %+v, want %+v", got, want)
	}
}

func TestParseDiffErrors(t *testing.T) {
	// A hunk that claims more lines than it has.
	const bad = `diff --git a/x.go b/x.go
--- a/x.go
+++ b/x.go
@@ -1,2 +1,5 @@
+only one
`
	if _, err := ParseDiff(context.Background(), strings.NewReader(bad)); err == nil || !strings.HasPrefix(err.Error(), "diff: ") {
		t.Errorf("truncated hunk: err %v", err)
	}
	p, err := ParseDiff(context.Background(), strings.NewReader(""))
	if !errors.Is(err, ErrEmptyDiff) || p != nil || !strings.Contains(err.Error(), "set -o pipefail") {
		t.Errorf("empty diff: %+v, %v; want ErrEmptyDiff, pointing to set -o pipefail", p, err)
	}
}

func TestMatcher(t *testing.T) {
	names := []string{
		"example.com/m/calc/calc.go", // Go import path
		"/home/ci/m/util/util.go",    // LCOV absolute
		`C:\src\m\win\w.go`,          // Windows
		"a/dup.go", "b/dup.go",       // same base name, told apart by folder
		"x/same.go", "y/same.go", // told apart by nothing the diff says
	}
	diffs := []string{"calc/calc.go", "util/util.go", "win/w.go", "b/dup.go", "z/same.go", "other/calc.go", "README.md"}
	m := newMatcher(diffs)
	for _, n := range names {
		m.add(n)
	}
	want := map[string]string{
		"calc/calc.go": "example.com/m/calc/calc.go",
		"util/util.go": "/home/ci/m/util/util.go",
		"win/w.go":     `C:\src\m\win\w.go`,
		"b/dup.go":     "b/dup.go",
	}
	for i, d := range diffs {
		got, ok := m.match(i)
		if w, wantOK := want[d]; ok != wantOK || got != w {
			t.Errorf("%s: matched %q %v, want %q %v", d, got, ok, w, wantOK)
		}
	}
}

func TestUncoveredRanges(t *testing.T) {
	u, c, k := byte(uncoveredLine), byte(coveredLine), byte(unknownLine)
	f := fileOf("f.go", 1, 2, 3, 4, 5, 7, 8, 9, 10, 12, 13, 20)
	st := []byte{u, k, u, c, u, u, k, k, u, k, u, u}
	var got []string
	uncoveredRanges(f, st, func(r LineRange) { got = append(got, r.String()) })
	// 1-3 runs over the unknown 2; 5 and 7 are not consecutive; 7-10 runs
	// over 8-9; 12 is unknown and 11 unchanged, so 13 starts anew; 20 alone.
	want := []string{"f.go:1-3", "f.go:5", "f.go:7-10", "f.go:13", "f.go:20"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ranges %q, want %q", got, want)
	}
}

// fileLines is a ChangedFile with its lines one by one.
type fileLines struct {
	Path  string
	Lines []int64
}

// flat lists a patch's files with their lines one by one.
func flat(p *Patch) []fileLines {
	var out []fileLines
	for _, f := range p.Files {
		out = append(out, fileLines{Path: f.Path, Lines: slices.Collect(f.All())})
	}
	return out
}

// fileOf is the changed file of the lines given, ascending.
func fileOf(path string, lines ...int64) ChangedFile {
	f := &file{sorted: true}
	for _, l := range lines {
		f.add(l)
	}
	return ChangedFile{Path: path, Runs: f.runs}
}

// Input with no file header is not a diff: an error that says so and
// points to set -o pipefail, whatever the text (git's own error, when its
// standard error went into the diff; random bytes; blank lines). An empty
// input is ErrEmptyDiff (TestParseDiffErrors); a diff whose files change
// no line (deletions, renames, mode changes) is a diff.
var notDiffs = []string{
	"fatal: ambiguous argument 'origin/mian...HEAD': unknown revision or path not in the working tree.\nUse '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'\n",
	"\x00\x01\xff\xfe garbage \x1b[31m",
	"\n",
	"   \n\t\n",
	"--- a/x.go\n+++ b/x.go\n", // no hunk: not a plain diff's header
	"@@ -1 +1 @@\n-a\n+b\n",    // a hunk, but no file
	"Only in a: x.go\nBinary files a/y and b/y differ\n",
}

var noLineDiffs = []string{
	"diff --git a/gone.go b/gone.go\ndeleted file mode 100644\nindex 5555555..0000000\n--- a/gone.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-package gone\n",
	"diff --git a/pure.go b/moved.go\nsimilarity index 100%\nrename from pure.go\nrename to moved.go\n",
	"diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n",
	"diff --git a/empty b/empty\nnew file mode 100644\nindex 0000000..e69de29\n",
	"--- a/x.c\n+++ b/x.c\n@@ -1,2 +1 @@\n keep\n-drop\n",
}

func TestParseDiffNotADiff(t *testing.T) {
	for _, in := range notDiffs {
		p, err := ParseDiff(context.Background(), strings.NewReader(in))
		if err == nil {
			t.Errorf("%.40q: no error; %+v", in, p)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "diff: ") || !strings.Contains(msg, "set -o pipefail") && !strings.Contains(msg, "without a file header") {
			t.Errorf("%.40q: error %q does not say it is not a diff", in, msg)
		}
	}
	_, err := ParseDiff(context.Background(), strings.NewReader("fatal: bad revision 'x'\n"))
	if err == nil || !strings.Contains(err.Error(), `this is not a diff`) || !strings.Contains(err.Error(), `starting "fatal: bad revision 'x'"`) ||
		!strings.Contains(err.Error(), "set -o pipefail") {
		t.Errorf("git's error: %v", err)
	}

	for _, in := range noLineDiffs {
		p, err := ParseDiff(context.Background(), strings.NewReader(in))
		if err != nil || p.Lines() != 0 || len(p.Files) != 0 {
			t.Errorf("%.50q: %+v, %v; want no changed line", in, p, err)
		}
	}
}

// What git and diff print beyond the common case: a commit message before
// the diff (git show, git format-patch), quoted names, "\ No newline"
// markers, CRLF line ends, GNU diff's epoch timestamps for a new file,
// hunks of one file split over two headers, lines longer than any buffer.
func TestParseDiffForms(t *testing.T) {
	for _, tc := range diffForms {
		p, err := ParseDiff(context.Background(), strings.NewReader(tc.diff))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := flat(p); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

var long = strings.Repeat("x", 3*maxHeaderLine)

var diffForms = []struct {
	name, diff string
	want       []fileLines
}{
	{"commit message", "commit 0123456789abcdef\nAuthor: A <a@b>\n\n    fix: --- not a header\n\ndiff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n",
		[]fileLines{{"a.go", []int64{1}}}},
	{"quoted", "diff --git \"a/caf\\303\\251 \\\"x\\\".go\" \"b/caf\\303\\251 \\\"x\\\".go\"\n--- \"a/caf\\303\\251 \\\"x\\\".go\"\n+++ \"b/caf\\303\\251 \\\"x\\\".go\"\n@@ -0,0 +1 @@\n+x\n",
		[]fileLines{{"café \"x\".go", []int64{1}}}},
	{"spaces", "diff --git a/my file.go b/my file.go\nnew file mode 100644\n--- /dev/null\n+++ b/my file.go\n@@ -0,0 +1,2 @@\n+a\n+b\n",
		[]fileLines{{"my file.go", []int64{1, 2}}}},
	{"no newline", "diff --git a/n.go b/n.go\n--- a/n.go\n+++ b/n.go\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n",
		[]fileLines{{"n.go", []int64{2}}}},
	{"crlf", "diff --git a/w.go b/w.go\r\n--- a/w.go\r\n+++ b/w.go\r\n@@ -1,3 +1,4 @@\r\n a\r\n\r\n+b\r\n c\r\n",
		[]fileLines{{"w.go", []int64{3}}}},
	{"epoch", "--- /dev/null\t1970-01-01 00:00:00.000000000 +0000\n+++ new.c\t2026-01-02 00:00:00.000000000 +0100\n@@ -0,0 +1 @@\n+int x;\n",
		[]fileLines{{"new.c", []int64{1}}}},
	{"orig", "--- x.c.orig\t2026-01-01\n+++ x.c\t2026-01-02\n@@ -1 +1 @@\n-a\n+b\n",
		[]fileLines{{"x.c", []int64{1}}}},
	{"twice", "diff --git a/t.go b/t.go\n--- a/t.go\n+++ b/t.go\n@@ -9 +9,2 @@\n a\n+b\n" +
		"diff --git a/t.go b/t.go\n--- a/t.go\n+++ b/t.go\n@@ -1 +1,3 @@\n a\n+b\n+c\n@@ -9 +11,2 @@\n a\n+b\n",
		[]fileLines{{"t.go", []int64{2, 3, 10, 12}}}},
	{"long lines", "diff --git a/l.go b/l.go\n--- a/l.go\n+++ b/l.go\n@@ -1,2 +1,2 @@ " + long + "\n " + long + "\n-" + long + "\n+" + long + "\n",
		[]fileLines{{"l.go", []int64{2}}}},
	{"b/ kept in git diffs", "diff --git a/b/x.go b/b/x.go\n--- a/b/x.go\n+++ b/b/x.go\n@@ -0,0 +1 @@\n+x\n",
		[]fileLines{{"b/x.go", []int64{1}}}},
}

// Malformed diffs are errors naming the line; no changed line is ever 0,
// negative or past the largest int64.
func TestParseDiffMalformed(t *testing.T) {
	for _, tc := range malformedDiffs {
		_, err := ParseDiff(context.Background(), strings.NewReader(tc.diff))
		if err == nil || !strings.HasPrefix(err.Error(), "diff: "+tc.want) {
			t.Errorf("%.60q: error %v, want %q", tc.diff, err, "diff: "+tc.want)
		}
	}
}

const head = "diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n"

var malformedDiffs = []struct{ diff, want string }{
	{head + "@@ -1 +0,1 @@\n-a\n+b\n", "line 4: invalid hunk header: new lines 0 to 0"},
	{head + "@@ -1 +9223372036854775807,2 @@\n-a\n+b\n+c\n", "line 4: invalid hunk header: new lines 9223372036854775807 to 9223372036854775808"},
	{head + "@@ -1 +-3,1 @@\n-a\n+b\n", `line 4: invalid hunk header: "-3" is not a line number`},
	{head + "@@ -1 +1\n-a\n+b\n", `line 4: invalid hunk header`},
	{head + "@@ -1,2 +1,2 @@\n-a\n+b\n", "line 4: the hunk header counts 2 old and 2 new lines; the hunk has 1 and 1"},
	{head + "@@ -1 +1 @@\n a\n", "line 4: hunk with no added or deleted line"},
	{head + "@@ -1,2 +1,2 @@\n-a\n*b\n", `line 6: a line of a hunk starts with "*"`},
	{head + "@@ -1 +1 @@\n-a\n+b\n@@ -9 +9 @@\n", "line 7: the hunk header counts 1 old and 1 new lines; the hunk has 0 and 0"},
	{"diff --git a/n.go b/n.go\nnew file mode 100644\n--- /dev/null\n+++ b/n.go\n@@ -1 +1 @@\n-a\n+b\n", "line 5: hunk of a new file with old lines"},
	{"diff --git a/n.go b/n.go\ndeleted file mode 100644\n--- a/n.go\n+++ /dev/null\n@@ -1 +1 @@\n-a\n+b\n", "line 5: hunk of a deleted file with new lines"},
	{"diff --git \"a/x b/x\n", "line 1: diff --git line: quoted name without its closing quote"},
	{"diff --git a/x b/y\n@@ -0,0 +1 @@\n+a\n", "line 1: diff --git line: no file name"},
	{"text\n@@ -1 +1 @@\n-a\n+b\n", "line 2: hunk header without a file header"},
	{"diff --git a/" + strings.Repeat("x", maxHeaderLine) + " b/x\n", "line 1: diff --git line longer than"},
	// A folder's name: "b/" would be no name at all once b/ is taken off.
	{"--- a/x\n+++ b/\n@@ -1 +1,2 @@\n a\n+b\n", `line 1: file header: "b/" names a folder, not a file`},
	{"--- b/\n+++ b/x\n@@ -1 +1,2 @@\n a\n+b\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n", `line 1: file header: "b/" names a folder`},
	{"diff --git a/d/ b/d/\n--- a/d/\n+++ b/d/\n@@ -1 +1 @@\n-a\n+b\n", `line 1: diff --git line: "d/" names a folder`},
}

// The lines of a file are kept as runs: a new file of a million lines is
// one run, however many hunks its lines come in.
func TestParseDiffRuns(t *testing.T) {
	var b strings.Builder
	b.WriteString("diff --git a/big.go b/big.go\nnew file mode 100644\n--- /dev/null\n+++ b/big.go\n@@ -0,0 +1,1000000 @@\n")
	for range 1000000 {
		b.WriteString("+x\n")
	}
	b.WriteString("diff --git a/s.go b/s.go\n--- a/s.go\n+++ b/s.go\n@@ -1,3 +1,4 @@\n a\n+b\n+c\n-d\n e\n@@ -20,2 +21,2 @@\n-x\n+y\n z\n")
	p, err := ParseDiff(context.Background(), strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	want := []ChangedFile{
		{Path: "big.go", Runs: []Span{{1, 1000000}}},
		{Path: "s.go", Runs: []Span{{2, 3}, {21, 21}}},
	}
	if !reflect.DeepEqual(p.Files, want) || p.Lines() != 1000003 {
		t.Errorf("files %+v (%d lines), want %+v", p.Files, p.Lines(), want)
	}
}

// ParseDiff stops when its context is done.
func TestParseDiffCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	diff := "diff --git a/x b/x\nnew file mode 100644\n--- /dev/null\n+++ b/x\n@@ -0,0 +1,10000 @@\n" + strings.Repeat("+x\n", 10000)
	if _, err := ParseDiff(ctx, strings.NewReader(diff)); !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "diff: line 4096: ") {
		t.Errorf("canceled: %v", err)
	}
}
