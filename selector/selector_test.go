package selector_test

import (
	"errors"
	"testing"

	"github.com/profdb/profdb/selector"
)

// TestParse: every form and the ~N suffix parse to what they name; text
// that is no selector is ErrSyntax, saying what a selector is. What a
// label and a commit prefix are, here as in every command, is
// cmd/profdb's TestLabelRule and TestCommitPrefixRule.
func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want selector.Selector
	}{
		{"12", selector.Selector{Kind: selector.ID, InstID: 12}},
		{"12~3", selector.Selector{Kind: selector.ID, InstID: 12, Back: 3, HasBack: true}},
		{"latest", selector.Selector{Kind: selector.Latest}},
		{"latest~1", selector.Selector{Kind: selector.Latest, Back: 1, HasBack: true}},
		{"latest~0", selector.Selector{Kind: selector.Latest, HasBack: true}},
		{"branch:main", selector.Selector{Kind: selector.Branch, Value: "main"}},
		{"branch:feature/x-1~2", selector.Selector{Kind: selector.Branch, Value: "feature/x-1", Back: 2, HasBack: true}},
		{"commit:ABCDEF1", selector.Selector{Kind: selector.Commit, Value: "abcdef1"}},
		{"label:suite=unit", selector.Selector{Kind: selector.Label, Key: "suite", Value: "unit"}},
		{"ancestor:origin/main", selector.Selector{Kind: selector.Ancestor, Value: "origin/main"}},
		// Inside ancestor: the revision is git's, all of it; profdb's ~N
		// is written on the word.
		{"ancestor:HEAD~1", selector.Selector{Kind: selector.Ancestor, Value: "HEAD~1"}},
		{"ancestor:HEAD^~1", selector.Selector{Kind: selector.Ancestor, Value: "HEAD^~1"}},
		{"ancestor:v1.2~3", selector.Selector{Kind: selector.Ancestor, Value: "v1.2~3"}},
		{"ancestor:HEAD@{1}", selector.Selector{Kind: selector.Ancestor, Value: "HEAD@{1}"}},
		{"ancestor:a:b", selector.Selector{Kind: selector.Ancestor, Value: "a:b"}},
		{"ancestor~2:origin/main~1", selector.Selector{Kind: selector.Ancestor, Value: "origin/main~1", Back: 2, HasBack: true}},
		{"ancestor~0:HEAD", selector.Selector{Kind: selector.Ancestor, Value: "HEAD", HasBack: true}},
	} {
		got, err := selector.Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		c.want.Text = c.in
		if got != c.want {
			t.Errorf("Parse(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
	for _, bad := range []string{"", "0", "-3", "newest", "latest~", "latest~x", "latest~-1", "branch:", "commit:abc12", "commit:abcdef",
		"commit:abcdefg", "ancestor:--all", "tag:v1", "3-7",
		"ancestor", "ancestor:", "ancestor~", "ancestor~1", "ancestor~:main", "ancestor~x:main", "ancestor~-1:main",
		"ancestor~1:", "ancestor~1:-x", "ancestor~1~2:main", "ancestorx:main"} {
		if s, err := selector.Parse(bad); !errors.Is(err, selector.ErrSyntax) {
			t.Errorf("Parse(%q) = %+v, %v; want ErrSyntax", bad, s, err)
		}
	}
}
