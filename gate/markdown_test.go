package gate

import (
	"bytes"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/profdb/profdb/internal/goldentest"
	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/readback"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata from the code")

func ratio(c, t int64) *readback.Ratio { return &readback.Ratio{Covered: c, Total: t} }

// markdownReports are the reports of the Markdown goldens: rules that
// hold and fail, with and without a diff and a baseline, time rules.
func markdownReports() map[string]*Report {
	return map[string]*Report{
		// --min-coverage 50 alone, and it holds.
		"pass-coverage": {InstID: 2, Profiler: "light-coverage", Passed: true, Rules: []Rule{
			{Name: RuleMinCoverage, Passed: true, Value: 50, Limit: 50, Coverage: ratio(6, 12)},
		}},
		// Every coverage rule, with a diff and a baseline, and all hold:
		// --diff alone names its uncovered lines and holds.
		"pass-diff-baseline": {InstID: 2, Profiler: "light-coverage", Baseline: 1, Passed: true, Rules: []Rule{
			{Name: RuleMinCoverage, Passed: true, Value: 50, Limit: 40, Coverage: ratio(6, 12)},
			{Name: RuleMaxDrop, Passed: true, Value: -2.5, Limit: 1, Coverage: ratio(21, 40), Before: ratio(20, 40),
				Files: []FileDrop{{Name: "example.com/m/util.go", Before: readback.Ratio{Covered: 2, Total: 2}, After: readback.Ratio{Covered: 1, Total: 2}, Missed: 1}}},
			{Name: RulePatchCoverage, Passed: true, Value: 75, Limit: 0, Coverage: ratio(3, 4),
				Lines: []LineRange{{Path: "calc/calc.go", From: 12, To: 12}}, Unknown: []string{"README.md"}},
		}},
		// Every coverage rule fails, with lists cut by --top and
		// --max-ranges, and a file new since the baseline.
		"fail-diff-baseline": {InstID: 2, Profiler: "light-coverage", Baseline: 1, Rules: []Rule{
			{Name: RuleMinCoverage, Value: 50, Limit: 80, Coverage: ratio(6, 12), Omitted: 3,
				Files: []FileDrop{
					{Name: "example.com/m/calc/calc.go", After: readback.Ratio{Covered: 4, Total: 8}, Missed: 4},
					{Name: "example.com/m/new.go", After: readback.Ratio{Covered: 0, Total: 2}, Missed: 2},
				}},
			{Name: RuleMaxDrop, Value: 37.5, Limit: 1, Coverage: ratio(6, 12), Before: ratio(7, 8), Omitted: 1,
				Files: []FileDrop{
					{Name: "example.com/m/calc/calc.go", Before: readback.Ratio{Covered: 6, Total: 6}, After: readback.Ratio{Covered: 4, Total: 8}, Missed: 4},
					{Name: "example.com/m/new.go", After: readback.Ratio{Covered: 0, Total: 2}, Missed: 2},
				}},
			{Name: RulePatchCoverage, Value: 100.0 / 7, Limit: 80, Coverage: ratio(1, 7), Omitted: 4, UnknownOmitted: 2,
				Lines:   []LineRange{{Path: "calc/calc.go", From: 11, To: 12}, {Path: "calc/calc.go", From: 22, To: 24}, {Path: "new.go", From: 3, To: 4}},
				Unknown: []string{"README.md", "docs/guide.md"}},
		}},
		// A result set with no line: every coverage rule fails.
		"fail-no-lines": {InstID: 5, Profiler: "light-coverage", Rules: []Rule{
			{Name: RuleMinCoverage, Limit: 0, Coverage: ratio(0, 0)},
			{Name: RulePatchCoverage, Limit: 0, Coverage: ratio(0, 0)},
		}},
		// A change of no coverable line holds.
		"pass-no-coverable-change": {InstID: 2, Profiler: "light-coverage", Passed: true, Rules: []Rule{
			{Name: RulePatchCoverage, Passed: true, Limit: 80, Coverage: ratio(0, 0), Unknown: []string{"README.md"}},
		}},
		// Time rules: in ms (a counter with a frequency), in a counter's
		// ticks (its name from the data), from a baseline of none.
		"time-pass-ms": {InstID: 4, Profiler: "function-trace", Baseline: 3, Passed: true, Rules: []Rule{
			{Name: RuleMaxTimeIncrease, Passed: true, Value: 4.5, Limit: 10, Time: &TotalTime{Before: 200, After: 209, Unit: "ms"},
				Routines: []RoutineChange{
					{Module: "app", Namespace: "calc", Class: "Worker", Name: "Run", Before: 120.25, After: 131.5, Unit: "ms"},
					{Module: "app", Name: "init", Before: 0, After: 0.5, Unit: "ms"},
				}},
		}},
		"time-fail-counter": {InstID: 4, Profiler: "function-trace", Baseline: 3, Rules: []Rule{
			{Name: RuleMaxTimeIncrease, Value: 20, Limit: 10, Time: &TotalTime{Before: 100, After: 120, Unit: "Elapsed Time"}, Omitted: 2,
				Routines: []RoutineChange{{Class: "Worker", Name: "slow", Before: 60, After: 90, Unit: "Elapsed Time"}}},
		}},
		"time-fail-from-nothing": {InstID: 4, Profiler: "function-trace", Baseline: 3, Rules: []Rule{
			{Name: RuleMaxTimeIncrease, Unbounded: true, Limit: 10, Time: &TotalTime{Before: 0, After: 7, Unit: "ticks"},
				Routines: []RoutineChange{{Module: "app", Name: "main", Before: 0, After: 7, Unit: "ticks"}}},
		}},
	}
}

// The Markdown report of each kind, as goldens; the output is the same
// each time.
func TestWriteMarkdownGolden(t *testing.T) {
	for name, rep := range markdownReports() {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := rep.WriteMarkdown(&b); err != nil {
				t.Fatal(err)
			}
			goldentest.Check(t, "markdown/"+name+".md", b.Bytes(), *update)
			if again := rep.markdown(MarkdownMax); again != b.String() {
				t.Errorf("a second rendering differs:\n%s", again)
			}
			checkMarkdownShape(t, b.String())
		})
	}
	// The report of sampleReport, whose names hold a control character and
	// the characters GitHub's workflow commands escape.
	var b bytes.Buffer
	if err := sampleReport().WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	goldentest.Check(t, "markdown/sample.md", b.Bytes(), *update)
}

// The verdict: the first line is the marker, the second says pass or fail
// and how many rules.
func TestWriteMarkdownVerdict(t *testing.T) {
	for name, rep := range markdownReports() {
		lines := strings.Split(rep.markdown(MarkdownMax), "\n")
		n, f := len(rep.Rules), len(rep.Failed())
		want := fmt.Sprintf("### ✅ profdb check passed: all %d rules hold", n)
		switch {
		case n == 1 && f == 0:
			want = "### ✅ profdb check passed: the rule holds"
		case n == 1:
			want = "### ❌ profdb check failed: the rule failed"
		case f > 0:
			want = fmt.Sprintf("### ❌ profdb check failed: %d of %d rules failed", f, n)
		}
		if rep.Passed != (f == 0) {
			t.Fatalf("%s: Passed %v with %d rules failed", name, rep.Passed, f)
		}
		if lines[0] != MarkdownMarker || lines[1] != want {
			t.Errorf("%s: starts %q, %q; want %q, %q", name, lines[0], lines[1], MarkdownMarker, want)
		}
	}
}

// hostileNames are names that, written as they are, would break a table,
// make a link, an image, HTML, a mention or an emoji, or end a code span.
var hostileNames = []string{
	"a|b", "|", `\|`, `a\`, `\`, "a\\|b|", "`", "``", "x`", "`x", "` x `", "a``b`c", "```", strings.Repeat("`", 300),
	" ", "  ", "", " lead", "trail ", " both ",
	"*bold* _it_ __u__ **b**", "~~strike~~", "[link](https://evil.example)", "![img](https://evil.example/a.png)",
	"[ref]: https://evil.example", "<https://evil.example>", "https://evil.example/x", "www.evil.example",
	"<img src=x onerror=alert(1)>", "<script>alert(1)</script>", "<!-- hide", "-->", "<details><summary>x",
	"&lt;b&gt; &amp; &#64;", "@octocat", "@org/team", "#1 GH-2 owner/repo#3 deadbeefcafe", ":smile: :+1:",
	"line1\nline2", "row\n| --- | --- |\n| x | y |", "a\r\nb", "\x1b]0;title\x07", "\u202eevil", "zero\u200bwidth",
	"a\u2028b", "\xff\xfe not UTF-8", `"quoted"`, "# heading", "> quote", "- item", "1. item", "---", "$x^2$",
	"\\`code\\`", "tab\there", strings.Repeat("long/", 400) + "end.go",
}

// MarkdownCode and MarkdownCell make a code span whose text, as
// CommonMark (and GitHub Flavored Markdown's tables) read it, is the name
// as termtext.Name prints it, cut to 256 characters: nothing in the name
// ends the span or the cell.
func TestMarkdownCodeHostile(t *testing.T) {
	for _, name := range hostileNames {
		want := termtext.Name(termtext.Cut(name, markdownNameRunes))
		if want == "" {
			want = `""`
		}
		code := MarkdownCode(name)
		if strings.ContainsAny(code, "\r\n") || !utf8.ValidString(code) {
			t.Errorf("MarkdownCode(%q) = %q: not one line of UTF-8", name, code)
		}
		got, rest, ok := readCodeSpan(code)
		if !ok || rest != "" || got != want {
			t.Errorf("MarkdownCode(%q) = %q reads as %q (rest %q, span %v), want %q", name, code, got, rest, ok, want)
		}
		// In a table row, the cell is one cell whose text is the span.
		row := "| " + MarkdownCell(name) + " | x |"
		cells := splitRow(row)
		if len(cells) != 2 || cells[1] != "x" {
			t.Errorf("MarkdownCell(%q): row %q has cells %q, want 2", name, row, cells)
			continue
		}
		got, rest, ok = readCodeSpan(cells[0])
		if !ok || rest != "" || got != want {
			t.Errorf("MarkdownCell(%q) = %q reads as %q (rest %q, span %v), want %q", name, cells[0], got, rest, ok, want)
		}
	}
}

// Examples of MarkdownCode and MarkdownCell, exactly.
func TestMarkdownCodeExamples(t *testing.T) {
	for _, c := range []struct{ name, code, cell string }{
		{"calc.go", "`calc.go`", "`calc.go`"},
		{"a|b", "`a|b`", "`a\\|b`"},
		{"a`b", "``a`b``", "``a`b``"},
		{"`x", "`` `x ``", "`` `x ``"},
		{" both ", "`  both  `", "`  both  `"},
		{"  ", "`  `", "`  `"},
		{"", "`\"\"`", "`\"\"`"},
		{"a\nb", "`\"a\\nb\"`", "`\"a\\nb\"`"},
		{"<b>@x</b>", "`<b>@x</b>`", "`<b>@x</b>`"},
		{strings.Repeat("é", 300), "`" + strings.Repeat("é", 256) + "…`", "`" + strings.Repeat("é", 256) + "…`"},
	} {
		if got := MarkdownCode(c.name); got != c.code {
			t.Errorf("MarkdownCode(%q) = %q, want %q", c.name, got, c.code)
		}
		if got := MarkdownCell(c.name); got != c.cell {
			t.Errorf("MarkdownCell(%q) = %q, want %q", c.name, got, c.cell)
		}
	}
}

// A report whose every name is hostile has the shape of one whose names
// are plain: once each code span is taken for one token, the two are the
// same text, so no name adds a line, a cell, a tag, a link or a mention.
func TestWriteMarkdownHostileNames(t *testing.T) {
	build := func(name func(i int) string) *Report {
		rep := &Report{InstID: 7, Profiler: name(0), Baseline: 6, Rules: []Rule{
			{Name: RuleMinCoverage, Limit: 90, Coverage: ratio(1, 2)},
			{Name: RuleMaxDrop, Limit: 1, Value: 10, Coverage: ratio(1, 2), Before: ratio(6, 10)},
			{Name: RulePatchCoverage, Limit: 90, Coverage: ratio(1, 3), UnknownOmitted: 1},
			{Name: RuleMaxTimeIncrease, Limit: 1, Value: 50, Time: &TotalTime{Before: 2, After: 3, Unit: name(1)}},
		}}
		for i := range hostileNames {
			f := FileDrop{Name: name(i), Before: readback.Ratio{Covered: 1, Total: 1}, After: readback.Ratio{Covered: 0, Total: 1}, Missed: 1}
			rep.Rules[0].Files = append(rep.Rules[0].Files, f)
			rep.Rules[1].Files = append(rep.Rules[1].Files, f)
			rep.Rules[2].Lines = append(rep.Rules[2].Lines, LineRange{Path: name(i), From: 1, To: 2}, LineRange{Path: name(i), From: 5, To: 5})
			rep.Rules[2].Unknown = append(rep.Rules[2].Unknown, name(i))
			rep.Rules[3].Routines = append(rep.Rules[3].Routines, RoutineChange{Module: name(i), Namespace: name(i), Class: name(i), Name: name(i),
				Before: 1, After: 2, Unit: name(1)})
		}
		return rep
	}
	hostile := build(func(i int) string { return hostileNames[i] })
	plain := build(func(i int) string {
		if hostileNames[i] == "" {
			return "" // an empty module is "-"
		}
		return "name" + strconv.Itoa(i)
	})
	h, p := hostile.markdown(MarkdownMax), plain.markdown(MarkdownMax)
	if strings.Contains(h, "cut short") {
		t.Fatalf("the hostile report was cut:\n%s", h)
	}
	hs, ps := strings.Split(skeleton(h), "\n"), strings.Split(skeleton(p), "\n")
	for i := range min(len(hs), len(ps)) {
		if hs[i] != ps[i] {
			t.Fatalf("the hostile report's shape differs from the plain one's at its line %d: %q, want %q\nreport:\n%s", i+1, hs[i], ps[i], h)
		}
	}
	if len(hs) != len(ps) {
		t.Errorf("the hostile report's shape has %d lines, the plain one's %d", len(hs), len(ps))
	}
	checkMarkdownShape(t, h)
	if !utf8.ValidString(h) {
		t.Error("the report is not UTF-8")
	}
}

// A report longer than GitHub takes is cut after the last entry that fits,
// within MarkdownMax bytes, and says how many entries it left out.
func TestWriteMarkdownBounded(t *testing.T) {
	const files = 3000
	rep := &Report{InstID: 2, Profiler: "light-coverage", Baseline: 1, Rules: []Rule{
		{Name: RuleMaxDrop, Limit: 1, Value: 10, Coverage: ratio(1, 2), Before: ratio(6, 10)},
		{Name: RulePatchCoverage, Limit: 90, Coverage: ratio(1, 3000), Omitted: 5},
	}, Names: Names{WholeReport: "`profdb check --format text`"}} // as profdb check names it
	long := strings.Repeat("dir/", 30)
	for i := range files {
		path := fmt.Sprintf("%sf%d|`é.go", long, i)
		rep.Rules[1].Lines = append(rep.Rules[1].Lines, LineRange{Path: path, From: 1, To: 3}, LineRange{Path: path, From: 9, To: 9})
		if i < 100 {
			rep.Rules[0].Files = append(rep.Rules[0].Files, FileDrop{Name: path, Before: readback.Ratio{Covered: 1, Total: 1}, After: readback.Ratio{Covered: 0, Total: 1}, Missed: 1})
		}
	}
	var b bytes.Buffer
	if err := rep.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if len(out) > MarkdownMax || utf8.RuneCountInString(out) > 65536 || !utf8.ValidString(out) {
		t.Fatalf("%d bytes, %d characters: more than MarkdownMax (%d) or GitHub's 65,536, or not UTF-8", len(out), utf8.RuneCountInString(out), MarkdownMax)
	}
	if len(out) < MarkdownMax-2*markdownReserve-600 {
		t.Errorf("cut at %d bytes, far below MarkdownMax (%d)", len(out), MarkdownMax)
	}
	// The entries but the rules table's rows, each of which names one path.
	written := int64(strings.Count(out, "é.go`"))
	total := int64(files + 100)
	want := fmt.Sprintf("**This comment is cut short** to fit GitHub's limit of 65,536 characters for a comment: %d more entries (list items and table rows) are left out. ", total-written)
	if !strings.HasSuffix(out, want+"`profdb check --format text` prints the whole report.\n") {
		t.Errorf("%d entries written of %d; the report ends\n%s\nwant the note\n%s", written, total, out[len(out)-400:], want)
	}
	checkMarkdownShape(t, out)

	// Cut short in a small room, as a golden: the rules table whole, the
	// entries that fit.
	goldentest.Check(t, "markdown/cut.md", []byte(rep.markdown(2000)), *update)

	// Without Names, the note names the API; a name too long for the
	// room kept for the note is not used.
	for _, whole := range []string{"", strings.Repeat("x", 101)} {
		rep.Names.WholeReport = whole
		if out := rep.markdown(2000); !strings.HasSuffix(out, " are left out. `(*gate.Report).WriteText` prints the whole report.\n") {
			t.Errorf("Names.WholeReport %q: the report ends\n%s", whole, out[len(out)-200:])
		}
	}
}

// checkMarkdownShape checks what GitHub needs of the report: a table's
// rows have the cells of its head, a table or list ends at a blank line,
// and every code span is closed.
func checkMarkdownShape(t *testing.T, md string) {
	t.Helper()
	lines := strings.Split(md, "\n")
	cells := 0
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "|"):
			n := len(splitRow(l))
			if cells == 0 {
				cells = n
			} else if n != cells {
				t.Errorf("line %d: %d cells, the table has %d: %q", i+1, n, cells, l)
			}
			if next := lines[i+1]; next != "" && !strings.HasPrefix(next, "|") {
				t.Errorf("line %d: the table is not followed by a blank line: %q", i+1, next)
			}
		default:
			cells = 0
		}
		if strings.HasPrefix(l, "- ") && lines[i+1] != "" && !strings.HasPrefix(lines[i+1], "- ") {
			t.Errorf("line %d: the list is not followed by a blank line: %q", i+1, lines[i+1])
		}
	}
	if !strings.HasSuffix(md, "\n") {
		t.Error("the report does not end with a newline")
	}
}

// splitRow splits a row of a GitHub Flavored Markdown table into its
// cells, as GitHub does: at each "|" not escaped by a backslash, the
// outer pipes dropped, each cell trimmed and its "\|" made "|".
func splitRow(row string) []string {
	row = strings.TrimSpace(row)
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			cur.WriteByte('|')
			i++
		case row[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(row[i])
		}
	}
	if rest := strings.TrimSpace(cur.String()); rest != "" {
		cells = append(cells, rest)
	}
	if len(cells) > 0 && cells[0] == "" && strings.HasPrefix(row, "|") {
		cells = cells[1:]
	}
	return cells
}

// readCodeSpan reads a code span at the start of s by CommonMark's rules:
// a run of n backticks, the text up to the next run of exactly n, one
// space stripped from each end of a text that begins and ends with one
// and is not all spaces. It returns the text and what follows.
func readCodeSpan(s string) (text, rest string, ok bool) {
	n := 0
	for n < len(s) && s[n] == '`' {
		n++
	}
	if n == 0 {
		return "", s, false
	}
	for i := n; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		if j-i == n {
			text = s[n:i]
			if len(text) >= 2 && text[0] == ' ' && text[len(text)-1] == ' ' && strings.Trim(text, " ") != "" {
				text = text[1 : len(text)-1]
			}
			return text, s[j:], true
		}
		i = j
	}
	return "", s, false
}

// skeleton is a report with each code span replaced by "C" and each table
// row by its cells so read, one per line: the text a report has whatever
// its names.
func skeleton(md string) string {
	var b strings.Builder
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "|") {
			for _, c := range splitRow(l) {
				b.WriteString("  cell: " + spans(c) + "\n")
			}
			continue
		}
		b.WriteString(spans(l) + "\n")
	}
	return b.String()
}

// spans replaces each code span of s by "C".
func spans(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '`' {
			b.WriteByte(s[i])
			i++
			continue
		}
		if _, rest, ok := readCodeSpan(s[i:]); ok {
			b.WriteString("C")
			i = len(s) - len(rest)
			continue
		}
		for i < len(s) && s[i] == '`' { // a run that opens no span is text
			b.WriteByte('`')
			i++
		}
	}
	return b.String()
}
