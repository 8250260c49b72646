package gate

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// Patch is what a unified diff changes: per file of the new side, the lines
// it adds.
type Patch struct {
	Files []ChangedFile
}

// ChangedFile is a file of a diff's new side and the lines the diff adds to
// it (added or modified lines; the new side's line numbers, ascending).
type ChangedFile struct {
	Path  string  `json:"path"`
	Lines []int64 `json:"lines"`
}

// Lines returns the number of changed lines in the patch.
func (p *Patch) Lines() int {
	n := 0
	for _, f := range p.Files {
		n += len(f.Lines)
	}
	return n
}

// ParseDiff reads a unified diff as `git diff` prints it (plain unified
// diffs too). The changed lines are those it adds in its new files: the
// lines of a new file, the added lines of a modified or renamed one. A
// deleted file (+++ /dev/null), a binary file and a file whose diff adds
// no line (a pure rename, a mode change, only deletions) change no line and
// are left out. A file named twice has its lines merged. A plain unified
// diff (no "diff --git" lines) whose old names carry git's "a/" prefix has
// "b/" removed from its new names, as git removes it.
func ParseDiff(r io.Reader) (*Patch, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	files, _, err := gitdiff.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	isGit := bytes.HasPrefix(data, []byte("diff --git ")) || bytes.Contains(data, []byte("\ndiff --git "))
	prefixed := bytes.HasPrefix(data, []byte("--- a/")) || bytes.Contains(data, []byte("\n--- a/"))
	p := &Patch{}
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
			lines = append(p.Files[i].Lines, lines...)
			slices.Sort(lines)
			p.Files[i].Lines = slices.Compact(lines)
			continue
		}
		slices.Sort(lines)
		idx[f.NewName] = len(p.Files)
		p.Files = append(p.Files, ChangedFile{Path: f.NewName, Lines: slices.Compact(lines)})
	}
	return p, nil
}
