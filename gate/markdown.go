package gate

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/internal/textout"
	"github.com/profdb/profdb/readback"
)

// MarkdownMax is the most bytes WriteMarkdown writes: under the 65,536
// characters GitHub takes in a pull-request comment (a character is one
// byte or more), with room left for a line or two a workflow adds.
const MarkdownMax = 60000

// MarkdownMarker is the first line of WriteMarkdown's output, an HTML
// comment GitHub does not show, by which a workflow finds its earlier
// comment to update it.
const MarkdownMarker = "<!-- profdb check -->"

// markdownNameRunes is the most characters of a name (a file, a routine, a
// module) a Markdown report shows; a longer one is cut, ending in "…".
const markdownNameRunes = termtext.QuoteRunes

// markdownReserve is the room kept at the end of a Markdown report for the
// note that says it was cut short.
const markdownReserve = 400

// WriteMarkdown writes the report as a pull-request comment in GitHub
// Flavored Markdown, as Codecov's comment gives it: a verdict line, a
// table of the rules (threshold, figure, pass or fail), then the items
// behind them: patch coverage and the uncovered changed lines by file as
// ranges ("`calc.go`: 12–14, 20"), the changed files the result set does
// not name, the files that lost most coverage against the baseline, the
// files with the most uncovered lines, and the routines whose own time
// grew most. A list the report cut
// (Options.Top, Options.MaxRanges) ends with "… and N more". The first line
// is MarkdownMarker.
//
// Every name from the data is shown as a code span (MarkdownCode), so that
// no name makes a link, an image, HTML, a mention or an emoji, or breaks a
// table. The output is at most MarkdownMax bytes: a report that would be
// longer is cut after the last entry (a list item or table row) that fits,
// and says so and how many entries it left out.
func (r *Report) WriteMarkdown(w io.Writer) error {
	_, err := io.WriteString(w, r.markdown(MarkdownMax))
	return err
}

// markdown is the Markdown report in at most limit bytes (limit is more
// than markdownReserve).
func (r *Report) markdown(limit int) string {
	m := &mdOut{room: limit - markdownReserve, whole: r.Names.wholeReport()}
	verdict := "### ✅ profdb check passed: " + r.verdict()
	if !r.Passed {
		verdict = "### ❌ profdb check failed: " + r.verdict()
	}
	head := MarkdownMarker + "\n" + verdict + "\n\n" + fmt.Sprintf("Result set %d (%s)", r.InstID, MarkdownCode(r.Profiler))
	if r.Baseline != 0 {
		head += fmt.Sprintf(" against baseline %d", r.Baseline)
	}
	m.text(head + ".\n")
	rules := m.section("\n| Rule | Threshold | Figure | Result |\n| :--- | ---: | ---: | :--- |\n")
	for _, x := range r.Rules {
		result := "✅ pass"
		if !x.Passed {
			result = "❌ fail"
		}
		rules.entry("| " + ruleName(x.Name) + " | " + threshold(x) + " | " + figure(x) + " | " + result + " |\n")
	}
	// The items behind the rules: the change's own first, as a review
	// reads them.
	var sections []Rule
	for _, name := range []string{RulePatchCoverage, RuleMaxDrop, RuleMinCoverage, RuleMaxTimeIncrease} {
		for _, x := range r.Rules {
			if x.Name == name {
				sections = append(sections, x)
			}
		}
	}
	for _, x := range sections {
		switch x.Name {
		case RulePatchCoverage:
			r.patchMarkdown(m, x)
		case RuleMaxDrop:
			s := m.section(fmt.Sprintf("\n#### Files that lost most coverage against baseline %d\n\n", r.Baseline) +
				"| File | Baseline | Now | Δ coverage | Δ uncovered lines |\n| :--- | ---: | ---: | ---: | ---: |\n")
			for _, f := range x.Files {
				s.entry("| " + MarkdownCell(f.Name) + " | " + readback.Percent(f.Before.Covered, f.Before.Total) + " | " +
					readback.Percent(f.After.Covered, f.After.Total) + " | " + pointChange(f) + " | " + signed(f.Missed) + " |\n")
			}
			s.more(x.Omitted, "file")
		case RuleMinCoverage:
			s := m.section("\n#### Files with the most uncovered lines\n\n| File | Uncovered lines | Coverage |\n| :--- | ---: | ---: |\n")
			for _, f := range x.Files {
				s.entry(fmt.Sprintf("| %s | %d of %d | %s |\n", MarkdownCell(f.Name), f.After.Total-f.After.Covered, f.After.Total,
					readback.Percent(f.After.Covered, f.After.Total)))
			}
			s.more(x.Omitted, "file")
		case RuleMaxTimeIncrease:
			s := m.section(fmt.Sprintf("\n#### Routines whose own time grew most against baseline %d\n\n", r.Baseline) +
				"| Routine | Module | Baseline | Now | Δ |\n| :--- | :--- | ---: | ---: | ---: |\n")
			for _, rc := range x.Routines {
				module := "-"
				if rc.Module != "" {
					module = MarkdownCell(rc.Module)
				}
				s.entry("| " + MarkdownCell(rc.FullName()) + " | " + module + " | " + mdTime(rc.Before, rc.Unit) + " | " +
					mdTime(rc.After, rc.Unit) + " | " + timeChange(rc) + " |\n")
			}
			s.more(x.Omitted, "routine")
		}
	}
	return m.finish()
}

// verdict says how many rules held or failed.
func (r *Report) verdict() string {
	failed := len(r.Failed())
	switch {
	case len(r.Rules) == 1 && failed == 0:
		return "the rule holds"
	case len(r.Rules) == 1:
		return "the rule failed"
	case failed == 0:
		return fmt.Sprintf("all %d rules hold", len(r.Rules))
	}
	return fmt.Sprintf("%d of %d rules failed", failed, len(r.Rules))
}

// patchMarkdown writes patch coverage: its figure, the uncovered changed
// lines by file, and the changed files the result set does not name.
func (r *Report) patchMarkdown(m *mdOut, x Rule) {
	var line string
	switch c := x.Coverage; {
	case c == nil:
		return
	case c.Total > 0:
		line = fmt.Sprintf("%d of %d coverable changed lines ran: **%s**.", c.Covered, c.Total, textout.Percent(c.Percent()))
	case x.Passed:
		line = "No changed line is coverable: no profiler row knows any of them."
	default:
		line = "The result set has no coverable line: patch coverage cannot be measured."
	}
	m.text("\n#### Patch coverage\n\n" + line + "\n")
	s := m.section("\nUncovered changed lines:\n\n")
	for i := 0; i < len(x.Lines); {
		path := x.Lines[i].Path
		var b strings.Builder
		b.WriteString("- " + MarkdownCode(path) + ": " + lineRange(x.Lines[i]))
		for i++; i < len(x.Lines) && x.Lines[i].Path == path; i++ {
			b.WriteString(", " + lineRange(x.Lines[i]))
		}
		s.entry(b.String() + "\n")
	}
	s.more(x.Omitted, "range")
	if len(x.Unknown) > 0 {
		names := make([]string, len(x.Unknown))
		for i, u := range x.Unknown {
			names[i] = MarkdownCode(u)
		}
		more := ""
		if x.UnknownOmitted > 0 {
			more = fmt.Sprintf(" … and %d more", x.UnknownOmitted)
		}
		m.text("\nChanged files the result set does not name (not counted): " + strings.Join(names, ", ") + more + "\n")
	}
}

// ruleName is a rule's name for the rules table: one of gate's as it is,
// another (from a Report made elsewhere) as a code span.
func ruleName(name string) string {
	switch name {
	case RuleMinCoverage, RuleMaxDrop, RulePatchCoverage, RuleMaxTimeIncrease:
		return name
	}
	return MarkdownCell(name)
}

// lineRange is "12–14", or "20" for one line.
func lineRange(l LineRange) string {
	if l.From == l.To {
		return strconv.FormatInt(l.From, 10)
	}
	return strconv.FormatInt(l.From, 10) + "–" + strconv.FormatInt(l.To, 10)
}

// threshold is a rule's limit as the rules table gives it.
func threshold(x Rule) string {
	n := textout.Number(x.Limit)
	switch x.Name {
	case RuleMinCoverage, RulePatchCoverage:
		return "≥ " + n + "%"
	case RuleMaxDrop:
		return "≤ " + n + " pt drop"
	case RuleMaxTimeIncrease:
		return "≤ +" + n + "%"
	}
	return n
}

// figure is a rule's figure as the rules table gives it.
func figure(x Rule) string {
	c := x.Coverage
	switch x.Name {
	case RuleMinCoverage, RulePatchCoverage:
		if c == nil {
			return "-"
		}
		if c.Total == 0 {
			if x.Name == RulePatchCoverage && x.Passed {
				return "no coverable changed line"
			}
			return "no coverable line"
		}
		what := "lines"
		if x.Name == RulePatchCoverage {
			what = "changed lines"
		}
		return fmt.Sprintf("%s (%d of %d %s)", textout.Percent(c.Percent()), c.Covered, c.Total, what)
	case RuleMaxDrop:
		b := x.Before
		switch {
		case c == nil || b == nil:
			return "-"
		case c.Total == 0:
			return "no coverable line"
		case b.Total == 0:
			return "no coverable line in the baseline"
		}
		what := "drop"
		if x.Value < 0 {
			what = "rise"
		}
		return fmt.Sprintf("%s pt %s (%s → %s)", textout.Points(math.Abs(x.Value)), what, textout.Percent(b.Percent()), textout.Percent(c.Percent()))
	case RuleMaxTimeIncrease:
		f := textout.PercentChange(x.Value)
		if x.Unbounded {
			f = "grew from nothing"
		}
		if t := x.Time; t != nil {
			f += " (" + readback.TimeNumber(t.Before, t.Unit) + " → " + mdTime(t.After, t.Unit) + ")"
		}
		return f
	}
	return textout.Number(x.Value)
}

// pointChange is the change of a file's coverage in points: "-12.5", or
// "-" when it has no line before or now.
func pointChange(f FileDrop) string {
	d, ok := readback.PointChange(f.Before, f.After)
	if !ok {
		return "-"
	}
	return textout.PointsChange(d)
}

// timeChange is a routine's change of own time, in its unit and in %:
// "+30 (+50.0%)", "+30 (new)" when it had none.
func timeChange(rc RoutineChange) string {
	d := rc.After - rc.Before
	s := textout.Signed(readback.TimeNumber(d, rc.Unit), d)
	if p, ok := readback.PercentChange(rc.Before, rc.After); ok {
		return s + " (" + textout.PercentChange(p) + ")"
	}
	return s + " (new)"
}

// mdTime formats a time in unit as readback.FormatTime does ("60 ticks",
// "1.500 ms"), for a table cell: a unit other than ms and ticks (a
// counter's name, from the data) is a code span.
func mdTime(v float64, unit string) string { return readback.TimeNumber(v, unit) + " " + mdUnit(unit) }

func mdUnit(unit string) string {
	if unit == "ms" || unit == "ticks" {
		return unit
	}
	return MarkdownCell(unit)
}

// MarkdownCode returns s, a name from the data, as a Markdown code span
// that shows it as it is printed on a terminal (termtext.Name: control
// characters, newlines and invisible format characters escaped, a name
// that needs it quoted), cut to 256 characters (termtext.Cut). In a code
// span Markdown, HTML, entities, autolinks, mentions, issue references and
// emoji are not interpreted, in CommonMark and on GitHub alike; the span
// is fenced by one backtick more than the longest run of backticks in the
// name, and padded with a space where a backtick or a space begins or ends
// it, so that it shows exactly that text. It is for text outside a table:
// MarkdownCell is for a table cell.
func MarkdownCode(s string) string { return markdownCode(s, false) }

// MarkdownCell returns s as MarkdownCode does, for a cell of a GitHub
// Flavored Markdown table: a "|" is written "\|", which the table reads as
// a "|" of the cell (a code span included) instead of the end of the cell.
func MarkdownCell(s string) string { return markdownCode(s, true) }

func markdownCode(s string, cell bool) string {
	s = termtext.Name(termtext.Cut(s, markdownNameRunes))
	if s == "" {
		s = `""` // termtext.Name's reading: a name that begins with " is quoted
	}
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	// CommonMark strips one space from each end of a code span whose text
	// begins and ends with one (and is not all spaces): a padded text
	// loses its padding and keeps its own spaces and backticks.
	if edge := func(c byte) bool { return c == '`' || c == ' ' }; (edge(s[0]) || edge(s[len(s)-1])) && strings.Trim(s, " ") != "" {
		s = " " + s + " "
	}
	if cell {
		s = strings.ReplaceAll(s, "|", `\|`)
	}
	return fence + s + fence
}

// mdOut is a Markdown report being written in a bounded room: once a part
// does not fit, nothing more is written, and the entries (list items,
// table rows) left out are counted.
type mdOut struct {
	b     strings.Builder
	room  int    // the most bytes of the report before its closing note
	cut   bool   // a part did not fit
	left  int64  // entries left out
	whole string // what prints the whole report (Names.WholeReport)
}

// fits reports whether n more bytes fit, and marks the report cut if not.
func (m *mdOut) fits(n int) bool {
	if m.cut || m.b.Len()+n > m.room {
		m.cut = true
		return false
	}
	return true
}

// text writes s, a part of the report other than an entry, if it fits.
func (m *mdOut) text(s string) {
	if m.fits(len(s)) {
		m.b.WriteString(s)
	}
}

// section starts a list or table whose head is written with its first
// entry.
func (m *mdOut) section(head string) *mdSection { return &mdSection{m: m, head: head} }

// mdSection is a list or a table: its head and entries.
type mdSection struct {
	m    *mdOut
	head string
	open bool // the head is written
}

// entry writes an entry, with the section's head before the first one, or
// counts it as left out.
func (s *mdSection) entry(e string) {
	n := len(e)
	if !s.open {
		n += len(s.head)
	}
	if !s.m.fits(n) {
		s.m.left++
		return
	}
	if !s.open {
		s.m.b.WriteString(s.head)
		s.open = true
	}
	s.m.b.WriteString(e)
}

// more ends the section with "… and N more things" when the rule named
// omitted fewer items than it had (thing is singular).
func (s *mdSection) more(omitted int64, thing string) {
	if !s.open || omitted == 0 {
		return
	}
	if omitted > 1 {
		thing += "s"
	}
	s.m.text(fmt.Sprintf("\n… and %d more %s\n", omitted, thing))
}

// finish closes the report, with a note when it was cut.
func (m *mdOut) finish() string {
	if m.cut {
		left := "the rest is left out"
		if m.left > 0 {
			left = fmt.Sprintf("%d more entries (list items and table rows) are left out", m.left)
		}
		fmt.Fprintf(&m.b, "\n**This comment is cut short** to fit GitHub's limit of 65,536 characters for a comment: %s. "+
			"%s prints the whole report.\n", left, m.whole)
	}
	return m.b.String()
}
