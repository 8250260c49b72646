package textout

import (
	"bytes"
	"strings"
	"testing"

	"github.com/profdb/profdb/internal/termtext"
)

// table prints a table of rows under header at width, with cols fixed.
func table(t *testing.T, width int, fixed []int, header []string, rows ...[]string) []string {
	t.Helper()
	var b bytes.Buffer
	p := NewPrinter(&b, width)
	tab := p.Table("Runs", 0, header...).Fixed(fixed...)
	for _, r := range rows {
		tab.Row(r...)
	}
	tab.Flush()
	if p.Err() != nil {
		t.Fatal(p.Err())
	}
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")[2:] // after "" and the title
}

// TestTableFixedAndElastic: a table too wide for the width narrows its
// elastic columns (free text: a branch, a build) and cuts their cells,
// never its fixed ones (a date, a commit's short name) nor its figures.
func TestTableFixedAndElastic(t *testing.T) {
	branch := "feature/" + strings.Repeat("a-very-long-branch-name-", 8)
	header := []string{"INST_ID", "EXPORTED (UTC)", "COMMIT", "BRANCH", "BUILD", "LINE COVERAGE"}
	rows := [][]string{
		{"1", "2026-11-28 22:21:26", "0123456789ab", branch, "ci-build-" + strings.Repeat("7", 40), "40.7%"},
		{"2", "2026-11-28 22:21:27", "ba9876543210", "main", "8", "44.8%"},
	}
	lines := table(t, 100, []int{1, 2}, header, rows...)
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for i, l := range lines {
		if w := termtext.Width(l); w > 100 {
			t.Errorf("line %d is %d columns wide, more than 100: %q", i, w, l)
		}
	}
	for _, r := range rows {
		for _, whole := range []string{r[1], r[2], r[5]} {
			if !strings.Contains(strings.Join(lines, "\n"), whole) {
				t.Errorf("%q is not printed whole:\n%s", whole, strings.Join(lines, "\n"))
			}
		}
	}
	if !strings.Contains(lines[1], "…") || strings.Contains(lines[1], branch) {
		t.Errorf("the long branch is not cut:\n%s", lines[1])
	}
	if !strings.Contains(lines[0], "EXPORTED (UTC)") {
		t.Errorf("the header of a fixed column is cut: %s", lines[0])
	}

	// Fixed columns wider than the width together stay whole: the line
	// is wider. One cell wider than the width by itself is cut to it.
	lines = table(t, 30, []int{1, 2}, header, rows...)
	if !strings.Contains(lines[1], "2026-11-28 22:21:26  0123456789ab") {
		t.Errorf("at width 30 the fixed columns are cut:\n%s", strings.Join(lines, "\n"))
	}
	huge := strings.Repeat("9", 500)
	lines = table(t, 60, []int{0}, []string{"WHEN"}, []string{huge})
	if w := termtext.Width(lines[1]); w > 60 {
		t.Errorf("a fixed cell of 500 columns prints %d wide", w)
	}

	// Without Fixed, a text column is elastic, a column of figures is not.
	lines = table(t, 40, nil, []string{"NAME", "COVERED"}, []string{strings.Repeat("n", 80), "123456789"})
	if !strings.HasSuffix(lines[1], "123456789") || termtext.Width(lines[1]) > 40 {
		t.Errorf("at width 40: %q", lines[1])
	}
}

// TestChangeFormats: a change of coverage in percentage points and a
// change in percent have one decimal and a sign when above 0, as every
// command and the report print them.
func TestChangeFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Points(28.57142857), "28.6"},
		{PointsChange(28.57142857), "+28.6"},
		{PointsChange(-3.5), "-3.5"},
		{PointsChange(0), "0.0"},
		{PercentChange(50), "+50.0%"},
		{PercentChange(-3), "-3.0%"},
		{PercentChange(0), "0.0%"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}
