package selector_test

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/profdb/profdb/selector"
	"github.com/profdb/profdb/store"
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
	// Text of no form at all is told what a selector is.
	for _, bad := range []string{"", "0", "-3", "newest", "3-7", "x~1"} {
		want := "INST_ID must be a positive integer or a selector (latest, branch:NAME, commit:SHA, label:KEY=VALUE, each with an optional ~N, or ancestor:REV, ancestor~N:REV), not " + strconv.Quote(bad)
		if _, err := selector.Parse(bad); err == nil || err.Error() != want {
			t.Errorf("Parse(%q): %v; want %q", bad, err, want)
		}
	}
}

// TestParseList: a list of result sets, as --inst takes it, is INST_IDs,
// ranges A-B and selectors, in values separated by commas; a value that
// is none of them is ErrSyntax, and one of no form says what a list's
// value is. (The INST_ID and range cases were store.ParseSelection's.)
func TestParseList(t *testing.T) {
	id := func(n int64) selector.Item {
		return selector.Item{Selector: selector.Selector{Text: strconv.FormatInt(n, 10), Kind: selector.ID, InstID: n}}
	}
	span := func(a, b int64) selector.Item { return selector.Item{Range: store.Range{From: a, To: b}} }
	for _, c := range []struct {
		in   []string
		want []selector.Item
	}{
		{[]string{"7", " 3 - 5 ", "2", "9-9"}, []selector.Item{id(7), span(3, 5), id(2), span(9, 9)}},
		{[]string{"7,3-5", "2"}, []selector.Item{id(7), span(3, 5), id(2)}},
		{[]string{"3-7,latest~1,branch:feature-x"}, []selector.Item{span(3, 7),
			{Selector: selector.Selector{Text: "latest~1", Kind: selector.Latest, Back: 1, HasBack: true}},
			{Selector: selector.Selector{Text: "branch:feature-x", Kind: selector.Branch, Value: "feature-x"}}}},
		{[]string{"12~1"}, []selector.Item{{Selector: selector.Selector{Text: "12~1", Kind: selector.ID, InstID: 12, Back: 1, HasBack: true}}}},
		{[]string{"ancestor:HEAD~1"}, []selector.Item{{Selector: selector.Selector{Text: "ancestor:HEAD~1", Kind: selector.Ancestor, Value: "HEAD~1"}}}},
		{nil, nil},
	} {
		got, err := selector.ParseList(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseList(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "0", "-3", "5-3", "x", "3-", "1-2-3", "3-y", "3-+5", "0-2", "3-7~1", "1,", ",1", "latest-1", "newest"} {
		got, err := selector.ParseList([]string{"1", bad})
		if !errors.Is(err, selector.ErrSyntax) {
			t.Errorf("ParseList(1, %q) = %+v, %v; want ErrSyntax", bad, got, err)
			continue
		}
		if want := "want an INST_ID (1, 2, ...) or a range A-B with A <= B, or a selector (latest, branch:NAME,"; !strings.Contains(err.Error(), want) {
			t.Errorf("ParseList(1, %q): %v; want it to say %q", bad, err, want)
		}
	}
	// A value of a selector's form says what is wrong with it.
	for bad, want := range map[string]string{
		"commit:abc":   `"commit:abc": not a selector: commit: want 7 or more hexadecimal digits`,
		"label:suite":  `"label:suite": not a selector: label "suite": want KEY=VALUE`,
		"tag:v1":       `unknown form "tag": (want branch:, commit:, label: or ancestor:)`,
		"latest~x":     `"latest~x": not a selector: ~ must be followed by a number`,
		"ancestor:-x":  `ancestor: takes a git revision, which does not begin with -`,
		"1,branch:,2":  `"branch:": not a selector: nothing after branch:`,
		"label:k=v,w~": `"w~": not a selector: ~ must be followed by a number`,
	} {
		if got, err := selector.ParseList([]string{bad}); !errors.Is(err, selector.ErrSyntax) || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseList(%q) = %+v, %v; want ErrSyntax saying %q", bad, got, err, want)
		}
	}
}
