package gate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// diffSeeds are the diffs of the tests: well formed, malformed and not
// diffs at all.
func diffSeeds() []string {
	seeds := []string{sampleDiff, plainDiff, ""}
	seeds = append(seeds, notDiffs...)
	seeds = append(seeds, noLineDiffs...)
	for _, tc := range diffForms {
		if len(tc.diff) < 4096 {
			seeds = append(seeds, tc.diff)
		}
	}
	for _, tc := range malformedDiffs {
		if len(tc.diff) < 4096 {
			seeds = append(seeds, tc.diff)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 4 {
		seeds = append(seeds, randomDiff(rng, 3))
	}
	return seeds
}

// FuzzParseDiff parses arbitrary input: it must never panic, fail with an
// error that starts "diff: ", or give files with non-empty distinct paths
// whose lines are positive, ascending and unique (runs in order, apart and
// not touching); and the same whichever way the input is cut into reads.
func FuzzParseDiff(f *testing.F) {
	for _, s := range diffSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseDiff(context.Background(), bytes.NewReader(data))
		if err != nil {
			if p != nil || !strings.HasPrefix(err.Error(), "diff: ") {
				t.Fatalf("error %q with %+v", err, p)
			}
		} else {
			checkPatch(t, p)
		}
		p1, err1 := ParseDiff(context.Background(), iotest.OneByteReader(bytes.NewReader(data)))
		if fmt.Sprint(err) != fmt.Sprint(err1) || !reflect.DeepEqual(p, p1) {
			t.Fatalf("read a byte at a time: %+v, %v; read whole: %+v, %v", p1, err1, p, err)
		}
	})
}

// checkPatch fails t unless p's files have non-empty distinct paths and
// lines that are positive, ascending and unique.
func checkPatch(t *testing.T, p *Patch) {
	t.Helper()
	seen := map[string]bool{}
	var n int64
	for _, f := range p.Files {
		if f.Path == "" || seen[f.Path] || len(f.Runs) == 0 {
			t.Fatalf("file %+v: empty path, no lines or named twice", f)
		}
		seen[f.Path] = true
		for i, r := range f.Runs {
			if r.From < 1 || r.To < r.From || i > 0 && r.From <= f.Runs[i-1].To+1 {
				t.Fatalf("file %q: runs %v are not positive, ascending, apart", f.Path, f.Runs)
			}
		}
		n += f.Lines()
	}
	if n != p.Lines() {
		t.Fatalf("Lines() = %d, the files have %d", p.Lines(), n)
	}
}

// ParseDiff gives what it gave when it read the diff with go-gitdiff, on
// the tests' diffs and on random git diffs, wherever go-gitdiff reads them
// into line numbers (it read "+0,1" as line 0 and "+-3,1" as line -3).
func TestParseDiffAsGoGitdiff(t *testing.T) {
	seeds := diffSeeds()
	rng := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		seeds = append(seeds, randomDiff(rng, 1+rng.IntN(5)))
	}
	compared := 0
	for _, s := range seeds {
		want, err := gitdiffLines(s)
		if err != nil || slices.ContainsFunc(want, func(f fileLines) bool { return f.Lines[0] < 1 }) {
			continue // not read, or read as lines 0 or below (which ParseDiff refuses)
		}
		p, err := ParseDiff(context.Background(), strings.NewReader(s))
		if err != nil {
			if len(want) == 0 && (len(s) > 0 && strings.Contains(err.Error(), "not a diff") || s == "" && errors.Is(err, ErrEmptyDiff)) {
				continue // go-gitdiff took what is not a diff, or nothing, for an empty diff
			}
			if strings.Contains(err.Error(), "names a folder, not a file") {
				continue // go-gitdiff takes "b/" or "d/" for a file's name
			}
			t.Errorf("%.80q: %v; go-gitdiff read it", s, err)
			continue
		}
		compared++
		if got := flat(p); !reflect.DeepEqual(got, want) {
			t.Errorf("%.200q:\n%+v\ngo-gitdiff gave\n%+v", s, got, want)
		}
	}
	if compared < 300 {
		t.Errorf("compared %d diffs with go-gitdiff, want 300 or more", compared)
	}
}

// gitdiffLines is how ParseDiff read a diff with go-gitdiff before it read
// diffs as a stream.
func gitdiffLines(diff string) ([]fileLines, error) {
	files, _, err := gitdiff.Parse(strings.NewReader(diff))
	if err != nil {
		return nil, err
	}
	isGit := strings.HasPrefix(diff, "diff --git ") || strings.Contains(diff, "\ndiff --git ")
	prefixed := strings.HasPrefix(diff, "--- a/") || strings.Contains(diff, "\n--- a/")
	var out []fileLines
	idx := map[string]int{}
	for _, f := range files {
		if f.IsDelete || f.IsBinary || f.NewName == "" {
			continue
		}
		var lines []int64
		for _, frag := range f.TextFragments {
			n := frag.NewPosition
			for _, l := range frag.Lines {
				switch l.Op {
				case gitdiff.OpAdd:
					lines = append(lines, n)
					n++
				case gitdiff.OpContext:
					n++
				}
			}
		}
		if len(lines) == 0 {
			continue
		}
		if !isGit && prefixed {
			f.NewName = strings.TrimPrefix(f.NewName, "b/")
		}
		if i, ok := idx[f.NewName]; ok {
			lines = append(out[i].Lines, lines...)
			slices.Sort(lines)
			out[i].Lines = slices.Compact(lines)
			continue
		}
		slices.Sort(lines)
		idx[f.NewName] = len(out)
		out = append(out, fileLines{Path: f.NewName, Lines: slices.Compact(lines)})
	}
	return out, nil
}

// randomDiff writes a git diff of n files: new, deleted, renamed, binary
// and modified ones, the last with hunks of context, deleted and added
// lines, and "\ No newline" markers.
func randomDiff(rng *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		name := fmt.Sprintf("d%d/f%d.go", rng.IntN(3), i%4) // names repeat: files named twice
		switch rng.IntN(8) {
		case 0:
			k := 1 + rng.IntN(5)
			fmt.Fprintf(&b, "diff --git a/%s b/%s\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", name, name, name, k)
			for j := range k {
				fmt.Fprintf(&b, "+line %d\n", j)
			}
		case 1:
			fmt.Fprintf(&b, "diff --git a/%s b/%s\ndeleted file mode 100644\n--- a/%s\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n", name, name, name)
		case 2:
			fmt.Fprintf(&b, "diff --git a/old%d.go b/%s\nsimilarity index 100%%\nrename from old%d.go\nrename to %s\n", i, name, i, name)
		case 3:
			fmt.Fprintf(&b, "diff --git a/%s b/%s\nindex 1111111..2222222 100644\nBinary files a/%s and b/%s differ\n", name, name, name, name)
		default:
			fmt.Fprintf(&b, "diff --git a/%s b/%s\nindex 1111111..2222222 100644\n--- a/%s\n+++ b/%s\n", name, name, name, name)
			oldAt, newAt := int64(1+rng.IntN(5)), int64(0)
			newAt = oldAt
			for range 1 + rng.IntN(4) {
				var body strings.Builder
				var o, w int64
				changed := false
				for range 1 + rng.IntN(8) {
					switch rng.IntN(3) {
					case 0:
						body.WriteString(" ctx\n")
						o, w = o+1, w+1
					case 1:
						body.WriteString("-old\n")
						o++
						changed = true
					default:
						body.WriteString("+new\n")
						w++
						changed = true
					}
				}
				if !changed {
					body.WriteString("+new\n")
					w++
				}
				if rng.IntN(10) == 0 {
					body.WriteString("\\ No newline at end of file\n")
				}
				fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@ func F() {\n%s", oldAt, o, newAt, w, body.String())
				gap := int64(1 + rng.IntN(20))
				oldAt, newAt = oldAt+o+gap, newAt+w+gap
			}
		}
	}
	return b.String()
}
