package gate

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseDiff(t *testing.T) {
	const diff = `diff --git a/src/a.go b/src/a.go
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
	p, err := ParseDiff(strings.NewReader(diff))
	if err != nil {
		t.Fatal(err)
	}
	want := []ChangedFile{
		{Path: "src/a.go", Lines: []int64{2, 3, 12}},
		{Path: "new/b.go", Lines: []int64{5}},
		{Path: "fresh.go", Lines: []int64{1, 2}},
	}
	if !reflect.DeepEqual(p.Files, want) {
		t.Errorf("files %+v\nwant  %+v", p.Files, want)
	}
	if p.Lines() != 6 {
		t.Errorf("Lines() = %d, want 6", p.Lines())
	}
}

// A plain unified diff (diff -u, no git header) works too.
func TestParseDiffPlainUnified(t *testing.T) {
	const diff = `--- a/x.c	2026-01-01 00:00:00
+++ b/x.c	2026-01-02 00:00:00
@@ -3,0 +4,2 @@
+int a;
+int b;
`
	p, err := ParseDiff(strings.NewReader(diff))
	if err != nil {
		t.Fatal(err)
	}
	if want := []ChangedFile{{Path: "x.c", Lines: []int64{4, 5}}}; !reflect.DeepEqual(p.Files, want) {
		t.Errorf("files %+v, want %+v", p.Files, want)
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
	if _, err := ParseDiff(strings.NewReader(bad)); err == nil || !strings.HasPrefix(err.Error(), "diff: ") {
		t.Errorf("truncated hunk: err %v", err)
	}
	p, err := ParseDiff(strings.NewReader(""))
	if err != nil || len(p.Files) != 0 {
		t.Errorf("empty diff: %+v, %v", p, err)
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
	f := ChangedFile{Path: "f.go", Lines: []int64{1, 2, 3, 4, 5, 7, 8, 9, 10, 12, 13, 20}}
	st := []byte{u, k, u, c, u, u, k, k, u, k, u, u}
	var got []string
	for _, r := range uncoveredRanges(f, st) {
		got = append(got, r.String())
	}
	// 1-3 runs over the unknown 2; 5 and 7 are not consecutive; 7-10 runs
	// over 8-9; 12 is unknown and 11 unchanged, so 13 starts anew; 20 alone.
	want := []string{"f.go:1-3", "f.go:5", "f.go:7-10", "f.go:13", "f.go:20"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ranges %q, want %q", got, want)
	}
}
