package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/store"
)

func newShowCmd(rep *ledger) *cobra.Command {
	var dsn, schema string
	var asJSON bool
	var topN int
	var conn connOptions
	cmd := &cobra.Command{
		Use:   "show [--db DSN] [--schema S] [--top N] [--json] INST_ID",
		Short: "Print the figures of one result set",
		Long: `show prints a summary of one result set, as AQTime's Summary panel gives it:

  light-coverage   % of lines and routines covered; modules and source files,
                   worst covered first; the least covered routines
  function-trace   the routines with the most time (own and with children)
                   and the most calls; threads
  resource         classes by live count and size; the routines that allocate
                   most; errors
  reference-count  classes and objects with their reference counts; objects
                   still alive at the end

Lists hold the first --top entries and say how many there are in all. --json
prints the same figures as one JSON object.`,
		Example: `  profdb show 1
  profdb show --db postgres://me@db/prof 12 --json`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			inst, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || inst < 1 {
				return usageErrorf("show: INST_ID must be a positive integer, not %q", args[0])
			}
			ctx := cmd.Context()
			db, err := conn.open(ctx, dsn, store.Options{Schema: schema, ReadOnly: true})
			if err != nil {
				return err
			}
			defer db.Close()
			r, err := readback.Begin(ctx, db)
			if err != nil {
				return fmt.Errorf("show: %w", err)
			}
			defer r.Close()
			s, err := r.Summarize(ctx, inst, readback.Options{Top: topN})
			if err != nil {
				return fmt.Errorf("show: %w", err)
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), s)
			}
			return printSummary(cmd.OutOrStdout(), s, termWidth(cmd.OutOrStdout()))
		},
	}
	dbFlag(cmd, &dsn)
	cmd.Flags().StringVar(&schema, "schema", "", "schema (database on MySQL) holding the tables")
	positiveIntVar(cmd.Flags(), &topN, "top", 20, "entries per list")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	connFlags(cmd, &conn, rep)
	return cmd
}

// termWidth is the width of the terminal w writes to, else $COLUMNS, else 100.
func termWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if width, _, err := term.GetSize(int(f.Fd())); err == nil && width > 20 {
			return width
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 20 {
		return n
	}
	return 100
}

// printSummary writes a result set's summary as aligned tables no wider
// than width. Names are printed as termtext.Name prints them.
func printSummary(w io.Writer, s *readback.Summary, width int) error {
	p := &printer{w: w, width: width}
	in := s.Instance
	p.line("INST_ID %d  %s  %s  (%d rows)", in.InstID, termtext.Name(in.Profiler), termtext.Quote(in.Caption), in.Rows)
	p.line("%s", s.Headline())
	switch {
	case s.Coverage != nil:
		c := s.Coverage
		p.line("")
		p.line("Lines covered:    %d of %d (%s)", c.Lines.Covered, c.Lines.Total, readback.Percent(c.Lines.Covered, c.Lines.Total))
		p.line("Routines covered: %d of %d (%s)", c.Routines.Covered, c.Routines.Total, readback.Percent(c.Routines.Covered, c.Routines.Total))
		for _, g := range []struct {
			title string
			l     readback.List[readback.Group]
		}{{"Modules", c.Modules}, {"Source files", c.Files}} {
			t := p.table(g.title+", worst covered first", g.l.Omitted(), "NAME", "COVERED", "LINES", "%")
			for _, x := range g.l.Items {
				t.row(x.Name, itoa(x.Covered), itoa(x.Total), readback.Percent(x.Covered, x.Total))
			}
			t.flush()
		}
		t := p.table("Least covered routines", c.Least.Omitted(), "ROUTINE", "SOURCE FILE", "COVERED", "LINES", "%")
		for _, x := range c.Least.Items {
			t.row(readback.FullName("", x.Class, x.Name), x.File, itoa(x.Covered), itoa(x.Total), readback.Percent(x.Covered, x.Total))
		}
		t.flush()
	case s.Trace != nil:
		tr := s.Trace
		p.line("Counter: %s; times in %s", termtext.Name(orDash(in.CounterName)), termtext.Name(tr.Unit()))
		p.line("Calls: %d  Total time: %s", tr.Calls, tr.Format(tr.TotalTime))
		for _, g := range []struct {
			title string
			l     readback.List[readback.RoutineTime]
		}{{"Routines by own time", tr.ByOwn}, {"Routines by time with children", tr.ByTotal}, {"Routines by calls", tr.ByCalls}} {
			t := p.table(g.title, g.l.Omitted(), "ROUTINE", "MODULE", "CALLS", "OWN TIME", "WITH CHILDREN")
			for _, x := range g.l.Items {
				t.row(x.FullName(), x.Module, itoa(x.Calls), tr.Format(x.Own), tr.Format(x.WithChild))
			}
			t.flush()
		}
		t := p.table("Threads", tr.Threads.Omitted(), "ID", "WIN32 THREAD ID", "CALLS", "TIME")
		for _, x := range tr.Threads.Items {
			t.row(itoa(x.ID), orDash(x.Win32ThreadID.String()), itoa(x.Calls), tr.Format(x.Time))
		}
		t.flush()
	case s.Resource != nil:
		rs := s.Resource
		classTable(p, rs.Classes)
		t := p.table("Routines that allocate most", rs.Allocators.Omitted(), "ROUTINE", "OBJECTS", "SIZE")
		for _, x := range rs.Allocators.Items {
			t.row(readback.FullName("", x.Class, x.Name), itoa(x.Objects), x.Size.String())
		}
		t.flush()
		if rs.Errors.Total == 0 {
			p.line("")
			p.line("Errors: none")
		} else {
			t := p.table("Errors", rs.Errors.Omitted(), "NAME", "CODE", "KIND", "DESCRIPTION")
			for _, x := range rs.Errors.Items {
				t.row(x.Name, x.Code.String(), x.Kind.String(), x.Description)
			}
			t.flush()
		}
	case s.ReferenceCount != nil:
		rc := s.ReferenceCount
		classTable(p, rc.Classes)
		for _, g := range []struct {
			title string
			l     readback.List[readback.RefObject]
		}{{"Objects by live references", rc.Objects}, {"Objects alive at the end", rc.Alive}} {
			t := p.table(g.title, g.l.Omitted(), "#", "CLASS", "ADDRESS", "LIVE REFS", "PEAK REFS", "TOTAL REFS", "SIZE")
			for _, x := range g.l.Items {
				t.row(itoa(x.Number), x.Class, x.Address.String(), itoa(x.Live), itoa(x.Peak), itoa(x.Total), x.Size.String())
			}
			t.flush()
		}
	}
	return p.err
}

func classTable(p *printer, l readback.List[readback.ClassFigures]) {
	t := p.table("Classes by live count", l.Omitted(), "CLASS", "MODULE", "LIVE", "LIVE SIZE", "PEAK", "PEAK SIZE", "TOTAL", "TOTAL SIZE")
	for _, x := range l.Items {
		t.row(x.Name, x.Module, x.LiveCount.String(), x.LiveSize.String(), x.PeakCreated.String(), x.PeakSize.String(),
			x.TotalCreated.String(), x.TotalSize.String())
	}
	t.flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// printer writes lines and tables, remembering the first error.
type printer struct {
	w     io.Writer
	width int
	err   error
}

// line prints a line; a control character that came from data in it
// (one not printed as a termtext.Name) is escaped all the same.
func (p *printer) line(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintln(p.w, termtext.Line(fmt.Sprintf(format, args...)))
	}
}

// table starts a table under a title; omitted > 0 adds a line saying how
// many entries it leaves out.
func (p *printer) table(title string, omitted int64, header ...string) *table {
	return &table{p: p, title: title, omitted: omitted, rows: [][]string{header}}
}

// table is a text table whose first column (names) and any other text
// column are cut to fit the printer's width; numbers are right-aligned.
// Widths are terminal columns (termtext.Width).
type table struct {
	p       *printer
	title   string
	omitted int64
	rows    [][]string
}

// row adds a row; each cell is printed as termtext.Name prints it.
func (t *table) row(cells ...string) {
	for i, c := range cells {
		cells[i] = termtext.Name(c)
	}
	t.rows = append(t.rows, cells)
}

func (t *table) flush() {
	p := t.p
	p.line("")
	p.line("%s", t.title)
	if len(t.rows) == 1 {
		p.line("  (none)")
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
	fitWidths(widths, numeric, p.width-2)
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
		p.line("%s", b.String())
	}
	if t.omitted > 0 {
		p.line("  ... and %d more (--top sets how many are listed)", t.omitted)
	}
}

// fitWidths narrows the widest text columns until the row (with two spaces
// between columns) fits in width; no text column gets narrower than 8.
func fitWidths(widths []int, numeric []bool, width int) {
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
			if !numeric[i] && w > 8 && (wi < 0 || w > widths[wi]) {
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

// writeColumns writes lines of cells as left-aligned columns two spaces
// apart, measured in terminal columns (termtext.Width); the last cell of a
// line is not padded. The cells must be printable (termtext.Name).
func writeColumns(w io.Writer, lines [][]string) error {
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
