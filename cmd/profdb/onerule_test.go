package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/internal/runid"
	"github.com/profdb/profdb/selector"
)

// TestLabelRule: a label KEY=VALUE is read by one rule (runid.ParseLabel)
// wherever a command takes one: export's, merge's, copy's and script's
// --label (identityOptions), the label: selector, and --label of list,
// trend and report (filterFlags). The rows are the cases of the three
// parsers there were, each with the outcome decided for all: old says
// where a row comes from and what it gave there, where that differs.
func TestLabelRule(t *testing.T) {
	long := strings.Repeat("v", runid.MaxLabel)
	for _, c := range []struct {
		in         string
		key, value string // "" for a label refused
		old        string
	}{
		// runid.ParseLabel (export --label), TestParseLabel.
		{in: "suite=unit", key: "suite", value: "unit"},
		{in: "os=linux-amd64", key: "os", value: "linux-amd64"},
		{in: "a.b_c-d=x y", key: "a.b_c-d", value: "x y"},
		{in: strings.Repeat("k", 64) + "=v", key: strings.Repeat("k", 64), value: "v", old: "filters and label: took any key"},
		{in: "k=a=b", key: "k", value: "a=b"},
		{in: "suite", old: "refused by all three"},
		{in: "=unit", old: "refused by all three"},
		{in: "suite=", old: "label: and the filters took an empty value"},
		{in: "su ite=x", old: "label: and the filters took any key"},
		{in: "süite=x", old: "label: and the filters took any key"},
		{in: strings.Repeat("k", 65) + "=v", old: "label: and the filters took any key"},
		{in: "k=\x1b[2J", old: "label: and the filters took control characters"},
		{in: "k=" + long + "v", old: "label: and the filters took any length"},
		{in: "k=\xff", old: "label: and the filters took text that is not UTF-8"},
		{in: "k= padded", old: "label: and the filters took surrounding space"},
		// selector.Parse's label: (TestParse).
		{in: "k=", old: "label: read it as k, the empty value"},
		{in: "=x", old: "refused by all three"},
		// The filters' (list, trend: --label suite), export's and merge's
		// (TestIdentityUsage, TestLabelsBoundedOnWrite).
		{in: "suite=e2e", key: "suite", value: "e2e"},
		{in: "a b=c", old: "label: and the filters took any key"},
		{in: "k=v", key: "k", value: "v"},
		{in: "=" + strings.Repeat("x", 1<<20), old: "refused by all three"},
		// The bounds, exactly.
		{in: "k=" + long, key: "k", value: long},
		{in: "K.9=V", key: "K.9", value: "V"},
		{in: "k==v", key: "k", value: "=v"},
		{in: "k=v ", old: "the filters took the space"},
		{in: "k=\u200bv", old: "label: and the filters took an invisible format character"},
	} {
		name := c.in
		if len(name) > 80 {
			name = name[:80] + "…"
		}
		want := map[string]string(nil)
		if c.key != "" {
			want = map[string]string{c.key: c.value}
		}
		// The rule itself.
		k, v, err := runid.ParseLabel(c.in)
		switch {
		case want == nil && !errors.Is(err, runid.ErrLabel):
			t.Errorf("ParseLabel(%q) = %q, %q, %v; want an error wrapping ErrLabel", name, k, v, err)
		case want != nil && (err != nil || k != c.key || v != c.value):
			t.Errorf("ParseLabel(%q) = %q, %q, %v; want %q, %q", name, k, v, err, c.key, c.value)
		}
		if err != nil && len(err.Error()) > 1000 {
			t.Errorf("ParseLabel(%q): an error of %d bytes", name, len(err.Error()))
		}
		// label: (a selector is trimmed as a whole, so the space after a
		// label is not the label's there).
		if strings.TrimSpace(c.in) == c.in {
			s, err := selector.Parse("label:" + c.in)
			switch {
			case want == nil && (!errors.Is(err, selector.ErrSyntax) || !errors.Is(err, runid.ErrLabel)):
				t.Errorf("selector.Parse(label:%q) = %+v, %v; want ErrSyntax and the label's error", name, s, err)
			case want != nil && (err != nil || s.Kind != selector.Label || s.Key != c.key || s.Value != c.value):
				t.Errorf("selector.Parse(label:%q) = %+v, %v; want label %q = %q", name, s, err, c.key, c.value)
			}
		}
		// --label of list, trend and report.
		ff := &filterFlags{cmd: "list", labels: []string{c.in}}
		f, err := ff.filter(time.Now())
		checkFlag(t, "list --label "+name, err, f.Labels, want)
		// --label of export, merge, copy and script.
		g, err := (&identityOptions{labels: []string{c.in}}).given()
		checkFlag(t, "export --label "+name, err, g.Labels, want)
	}

	// A key given twice is an error wherever --label is repeated, whatever
	// the values (the filters took the same label twice).
	for _, given := range [][]string{{"k=1", "k=2"}, {"k=1", "k=1"}, {"a=1", "k=1", "k=1"}} {
		if got, err := runid.ParseLabels(given); err == nil || !strings.Contains(err.Error(), `key "k" given twice`) {
			t.Errorf("ParseLabels(%q) = %v, %v; want an error naming key k given twice", given, got, err)
		}
		f, err := (&filterFlags{cmd: "list", labels: given}).filter(time.Now())
		checkFlag(t, "list --label "+strings.Join(given, " --label "), err, f.Labels, nil)
		g, err := (&identityOptions{labels: given}).given()
		checkFlag(t, "export --label "+strings.Join(given, " --label "), err, g.Labels, nil)
	}
	if got, err := runid.ParseLabels([]string{"b=2", "a=1"}); err != nil || !maps.Equal(got, map[string]string{"a": "1", "b": "2"}) {
		t.Errorf("ParseLabels(b=2, a=1) = %v, %v", got, err)
	}
	if got, err := runid.ParseLabels(nil); err != nil || got != nil {
		t.Errorf("ParseLabels(nil) = %v, %v; want nil", got, err)
	}
}

// checkFlag checks what a flag gave: the labels want, or (want nil) a
// usage error naming --label.
func checkFlag(t *testing.T, what string, err error, got, want map[string]string) {
	t.Helper()
	var ue usageError
	switch {
	case want == nil && (!errors.As(err, &ue) || !strings.Contains(err.Error(), "--label: ")):
		t.Errorf("%s: %v, %v; want a usage error naming --label", what, got, err)
	case want != nil && (err != nil || !maps.Equal(got, want)):
		t.Errorf("%s: %v, %v; want %v", what, got, err, want)
	}
}

// TestCommitPrefixRule: a commit prefix is read by one rule
// (runid.ParseCommitPrefix: 7 or more hexadecimal digits, either case,
// read in lower case) wherever a command takes one: the commit: selector
// and --commit of list, trend and report (store.Filter.Commit, which
// TestSelect holds to it too). old says what a row gave before.
func TestCommitPrefixRule(t *testing.T) {
	const sha = "0123456789abcdef0123456789abcdef01234567"
	for _, c := range []struct {
		in, want string // want "" for a prefix refused
		old      string
	}{
		{in: "abcdef1", want: "abcdef1"},
		{in: "ABCDEF1", want: "abcdef1"},
		{in: "0123456789", want: "0123456789"},
		{in: strings.ToUpper(sha), want: sha},
		{in: strings.Repeat("a", 64), want: strings.Repeat("a", 64)},
		{in: "abcdef", old: "--commit took any length"},
		{in: "abc12", old: "--commit took any length"},
		{in: "a", old: "--commit took any length"},
		{in: "abcdefg", old: "refused by both"},
		{in: "xyz", old: "refused by both"},
		{in: "0x1234567", old: "refused by both"},
		{in: "-1234567", old: "refused by both"},
		{in: "abcdef1 ", old: "refused by --commit; commit: trims the selector"},
		{in: strings.Repeat("z", 1<<20), old: "refused by both"},
	} {
		name := c.in
		if len(name) > 80 {
			name = name[:80] + "…"
		}
		got, err := runid.ParseCommitPrefix(c.in)
		switch {
		case c.want == "" && !errors.Is(err, runid.ErrCommitPrefix):
			t.Errorf("ParseCommitPrefix(%q) = %q, %v; want an error wrapping ErrCommitPrefix", name, got, err)
		case c.want != "" && (err != nil || got != c.want):
			t.Errorf("ParseCommitPrefix(%q) = %q, %v; want %q", name, got, err, c.want)
		}
		if err != nil && len(err.Error()) > 1000 {
			t.Errorf("ParseCommitPrefix(%q): an error of %d bytes", name, len(err.Error()))
		}
		if strings.TrimSpace(c.in) == c.in {
			s, err := selector.Parse("commit:" + c.in)
			switch {
			case c.want == "" && (!errors.Is(err, selector.ErrSyntax) || !errors.Is(err, runid.ErrCommitPrefix)):
				t.Errorf("selector.Parse(commit:%q) = %+v, %v; want ErrSyntax and the prefix's error", name, s, err)
			case c.want != "" && (err != nil || s.Kind != selector.Commit || s.Value != c.want):
				t.Errorf("selector.Parse(commit:%q) = %+v, %v; want commit %q", name, s, err, c.want)
			}
		}
		f, err := (&filterFlags{cmd: "list", commit: c.in}).filter(time.Now())
		var ue usageError
		switch {
		case c.want == "" && (!errors.As(err, &ue) || !strings.Contains(err.Error(), "--commit ")):
			t.Errorf("list --commit %q: %q, %v; want a usage error naming --commit", name, f.Commit, err)
		case c.want != "" && (err != nil || f.Commit != c.want):
			t.Errorf("list --commit %q: %q, %v; want %q", name, f.Commit, err, c.want)
		}
	}
}

// TestInstList: --inst is read by one parser (selector.ParseList) in every
// command that takes it. Its commas are the parser's to split, with no
// quoting: a branch whose name holds a double quote (git allows one) is
// named there as anywhere (pflag read --inst as CSV, and refused it). A
// value of no form is told what a value of --inst is, ranges included,
// whatever characters it holds (a ':' or '~' in it made the CLI word it
// as a lone selector, without ranges).
func TestInstList(t *testing.T) {
	dsn := sqliteDSN(t)
	cov := example(t, "light-coverage.json")
	mustRun(t, "export", "--db", dsn, "-q", "--no-identity", cov)                       // 1
	mustRun(t, "export", "--db", dsn, "-q", "--no-identity", "--branch", `say"hi`, cov) // 2
	mustRun(t, "export", "--db", dsn, "-q", "--no-identity", cov)                       // 3
	for _, c := range []struct {
		inst []string
		want string
	}{
		{[]string{`branch:say"hi`}, "[2]"},
		{[]string{`1,branch:say"hi`}, "[1 2]"},
		{[]string{"3", `"1"`}, ""},
		{[]string{"2-3,latest~2"}, "[1 2 3]"},
		{[]string{" 2 - 3 "}, "[2 3]"},
	} {
		args := []string{"delete", "--db", dsn, "--dry-run", "--json"}
		for _, v := range c.inst {
			args = append(args, "--inst", v)
		}
		out, stderr, code := runCLI(t, args...)
		if c.want == "" {
			if code != 2 || !strings.Contains(stderr, `--inst "\"1\"": want an INST_ID (1, 2, ...) or a range A-B`) {
				t.Errorf("delete --inst %q: exit %d, %q; want exit 2 saying what a value is", c.inst, code, stderr)
			}
			continue
		}
		var got []struct {
			InstID int64 `json:"inst_id"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
			t.Errorf("delete --dry-run --inst %q: exit %d\n%s%s", c.inst, code, out, stderr)
			continue
		}
		var ids []int64
		for _, d := range got {
			ids = append(ids, d.InstID)
		}
		if fmt.Sprint(ids) != c.want {
			t.Errorf("delete --dry-run --inst %q deletes %v, want %s", c.inst, ids, c.want)
		}
	}
	for _, bad := range []string{"x~1", "3-7~1", "newest:", "1-2-3", "0"} {
		for _, cmd := range [][]string{{"verify", "--db", dsn}, {"delete", "--db", dsn, "--dry-run"}, {"report", "--db", dsn, "-o", filepath.Join(t.TempDir(), "r.html")},
			{"copy", "--from", dsn, "--to", "sqlite:" + filepath.Join(t.TempDir(), "c.db")}} {
			want := fmt.Sprintf("profdb: %s: --inst %q: want an INST_ID (1, 2, ...) or a range A-B with A <= B, or a selector (latest, branch:NAME,", cmd[0], bad)
			if bad == "newest:" {
				want = fmt.Sprintf("profdb: %s: --inst %q: not a selector: unknown form", cmd[0], bad)
			}
			_, stderr, code := runCLI(t, append(cmd, "--inst", bad)...)
			if code != 2 || !strings.HasPrefix(stderr, want) {
				t.Errorf("%s --inst %q: exit %d, %q; want exit 2 saying %q", cmd[0], bad, code, stderr, want)
			}
		}
	}
}
