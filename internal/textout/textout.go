package textout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/profdb/profdb/internal/termtext"
)

// Number formats a count or a figure as few digits as it needs: 12, 2.5.
func Number(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// Percent formats a percentage with one decimal: "66.7%".
func Percent(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + "%" }

// Points formats a number of percentage points with one decimal: "28.6".
func Points(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// PointsChange formats a change of a percentage in percentage points
// (readback.PointChange), signed, with one decimal: "+28.6", "-3.5",
// "0.0". It is how every command and the report print a change of
// coverage.
func PointsChange(v float64) string { return Signed(Points(v), v) }

// PercentChange formats a change in percent of where it started
// (readback.PercentChange), signed, with one decimal: "+50.0%", "-3.0%",
// "0.0%".
func PercentChange(v float64) string { return Signed(Percent(v), v) }

// Signed puts a "+" before s, the text of v, when v is above 0.
func Signed[T int64 | float64](s string, v T) string {
	if v > 0 {
		return "+" + s
	}
	return s
}

// OrDash is s, or "-" for an empty s: how text reports print a name or
// figure the data leaves out.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WriteJSON writes v as JSON indented by two spaces, with a newline.
// Names keep their exact value; what would show on a terminal as a control
// character is escaped as termtext.JSON escapes it.
func WriteJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err // json's errors say "json: " already
	}
	_, err := w.Write(termtext.JSON(b.Bytes()))
	return err
}

// Printer writes lines and tables no wider than a width, remembering the
// first error.
type Printer struct {
	w     io.Writer
	width int
	more  string // how to list more of a table cut short (MoreHinter)
	err   error
}

// NewPrinter returns a printer to w whose tables fit in width columns.
func NewPrinter(w io.Writer, width int) *Printer {
	p := &Printer{w: w, width: width}
	if h, ok := w.(MoreHinter); ok {
		p.more = h.MoreHint()
	}
	return p
}

// MoreHinter is implemented by a writer that says how its reader lists
// more of a table cut short: a Printer to it ends the table with "... and
// N more (HINT)". The libraries know no flag; the CLI wraps its output
// with the words of its own (WithMoreHint). Without it, the line says how
// many were left out, alone.
type MoreHinter interface {
	io.Writer
	MoreHint() string
}

// WithMoreHint returns w, as a MoreHinter with hint.
func WithMoreHint(w io.Writer, hint string) io.Writer { return moreHint{w, hint} }

type moreHint struct {
	io.Writer
	hint string
}

func (h moreHint) MoreHint() string { return h.hint }

// Err is the first error writing met, or nil.
func (p *Printer) Err() error { return p.err }

// Line prints a line; a control character that came from data in it
// (one not printed as a termtext.Name) is escaped all the same.
func (p *Printer) Line(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintln(p.w, termtext.Line(fmt.Sprintf(format, args...)))
	}
}

// Table starts a table under a title; omitted > 0 adds a line saying how
// many entries it leaves out.
func (p *Printer) Table(title string, omitted int64, header ...string) *Table {
	return &Table{p: p, title: title, omitted: omitted, rows: [][]string{header}, fixed: make([]bool, len(header))}
}

// Table is a text table fitted to the printer's width. Its columns are
// fixed or elastic. A fixed column is never narrowed: numbers (a column
// whose cells are all figures, right-aligned) and the columns Fixed
// marks, whose text has a width of its own (an INST_ID, a date, a
// commit's first 12 digits) and means nothing cut. An elastic column
// holds free text (a name, a path, a branch, a build): when the row is
// too wide, the widest elastic column is narrowed, down to 8 columns, and
// its cells cut keeping their end (termtext.CutLeft). Widths are terminal
// columns (termtext.Width).
type Table struct {
	p       *Printer
	title   string
	omitted int64
	rows    [][]string
	fixed   []bool
}

// Fixed marks the columns cols (0 is the first) fixed: never narrowed to
// fit the width, never cut (but a cell wider than the whole width, which
// only data profdb did not write holds, is cut to it).
func (t *Table) Fixed(cols ...int) *Table {
	for _, i := range cols {
		t.fixed[i] = true
	}
	return t
}

// Row adds a row; each cell is printed as termtext.Name prints it.
func (t *Table) Row(cells ...string) {
	for i, c := range cells {
		cells[i] = termtext.Name(c)
	}
	t.rows = append(t.rows, cells)
}

// Flush prints the table after an empty line: its title, then "(none)" or
// its rows, then how many entries it leaves out.
func (t *Table) Flush() {
	p := t.p
	p.Line("")
	p.Line("%s", t.title)
	if len(t.rows) == 1 {
		p.Line("  (none)")
		return
	}
	n := len(t.rows[0])
	widths := make([]int, n)
	numeric := make([]bool, n)
	for i := range numeric {
		numeric[i] = true
	}
	for r, row := range t.rows {
		for i, c := range row {
			widths[i] = max(widths[i], termtext.Width(c))
			if r > 0 && c != "" && c != "-" && !isNumber(c) {
				numeric[i] = false
			}
		}
	}
	fixed := make([]bool, n)
	for i := range fixed {
		fixed[i] = numeric[i] || t.fixed[i]
	}
	fitWidths(widths, fixed, p.width-2)
	for _, row := range t.rows {
		var b strings.Builder
		b.WriteString("  ")
		for i, c := range row {
			c = termtext.CutLeft(c, widths[i])
			pad := strings.Repeat(" ", widths[i]-termtext.Width(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if numeric[i] {
				b.WriteString(pad + c)
			} else if i < n-1 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(c)
			}
		}
		p.Line("%s", b.String())
	}
	switch {
	case t.omitted > 0 && p.more != "":
		p.Line("  ... and %d more (%s)", t.omitted, p.more)
	case t.omitted > 0:
		p.Line("  ... and %d more", t.omitted)
	}
}

// fitWidths narrows the widest elastic (not fixed) columns until the row
// (with two spaces between columns) fits in width; no elastic column gets
// narrower than 8, and no fixed one narrower than its widest cell, so a
// row of wide fixed columns is wider than width. A column wider than
// width itself is cut to it.
func fitWidths(widths []int, fixed []bool, width int) {
	for i := range widths {
		widths[i] = min(widths[i], max(width, 1))
	}
	total := func() int {
		s := 2 * (len(widths) - 1)
		for _, w := range widths {
			s += w
		}
		return s
	}
	for total() > width {
		wi := -1
		for i, w := range widths {
			if !fixed[i] && w > 8 && (wi < 0 || w > widths[wi]) {
				wi = i
			}
		}
		if wi < 0 {
			return
		}
		widths[wi]--
	}
}

func isNumber(s string) bool {
	s = strings.TrimSuffix(strings.TrimSuffix(s, "%"), " ms")
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// Columns writes lines of cells as left-aligned columns two spaces apart,
// measured in terminal columns (termtext.Width); the last cell of a line is
// not padded. The cells must be printable (termtext.Name).
func Columns(w io.Writer, lines [][]string) error {
	var widths []int
	for _, l := range lines {
		for i, c := range l[:len(l)-1] {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], termtext.Width(c))
		}
	}
	var b strings.Builder
	for _, l := range lines {
		for i, c := range l[:len(l)-1] {
			b.WriteString(termtext.Pad(c, widths[i]+2))
		}
		b.WriteString(l[len(l)-1])
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
