package compare

import (
	"fmt"
	"io"
	"strconv"

	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/internal/textout"
	"github.com/profdb/profdb/readback"
)

// Format formats a figure's change in the style: "+12", "-3.5", "x1.50",
// "+50.0%", or "-" when the style does not define it. unit formats a
// difference (B − A) in the figure's unit: textout.Points for a % covered
// (percentage points, "+28.6"), textout.Number for a count, the counter's
// format for a time; ratio and percent have none. It is the one formatter
// of a change of compare's, for compare's text and report --compare's
// page alike.
func (s Style) Format(f Figure, unit func(float64) string) string {
	if f.Change == nil {
		return "-"
	}
	v := *f.Change
	switch s {
	case Ratio:
		return "x" + strconv.FormatFloat(v, 'f', 2, 64)
	case Percent:
		return textout.PercentChange(v)
	}
	return textout.Signed(unit(v), v)
}

// Describe says what a change in the style is: "difference (B - A)".
func (s Style) Describe() string {
	switch s {
	case Ratio:
		return "ratio (B / A)"
	case Percent:
		return "percent ((B - A) / A x 100)"
	}
	return "difference (B - A)"
}

// WriteJSON writes the comparison as `profdb compare --json` prints it: one
// JSON object indented by two spaces, control characters in names escaped.
func (res *Result) WriteJSON(w io.Writer) error { return textout.WriteJSON(w, res) }

// WriteText writes the comparison as `profdb compare` prints it: the two
// result sets, each with its run's commit and branch where recorded
// (readback.RunHead), the style, the totals and aligned tables no wider
// than width terminal columns, largest change first, long names cut
// keeping their end. Names are printed as termtext.Name prints them.
func (res *Result) WriteText(w io.Writer, width int) error {
	p := textout.NewPrinter(w, width)
	st := res.Style
	for _, x := range []struct {
		side string
		in   readback.Instance
	}{{"A", res.A}, {"B", res.B}} {
		line := fmt.Sprintf("%s: INST_ID %d  %s  %s", x.side, x.in.InstID, termtext.Name(x.in.Profiler), termtext.Quote(x.in.Caption))
		if h := readback.RunHead(x.in.Run); h != "" {
			line += "  " + h
		}
		p.Line("%s", line)
	}
	p.Line("Changes: %s", st.Describe())
	switch {
	case res.Coverage != nil:
		res.Coverage.text(p, st)
	case res.Trace != nil:
		res.Trace.text(p, st)
	case res.Classes != nil:
		res.Classes.text(p, st)
	}
	return p.Err()
}

func (c *CoverageDiff) text(p *textout.Printer, st Style) {
	pct := readback.Percent
	p.Line("")
	for _, x := range []struct {
		what string
		c    Cover
	}{{"Lines covered:   ", c.Lines}, {"Routines covered:", c.Routines}} {
		p.Line("%s %d of %d (%s) -> %d of %d (%s), change %s", x.what, x.c.CoveredA, x.c.TotalA, pct(x.c.CoveredA, x.c.TotalA),
			x.c.CoveredB, x.c.TotalB, pct(x.c.CoveredB, x.c.TotalB), st.Format(x.c.Percent, textout.Points))
	}
	groups := func(title string, l List[GroupDiff], routine bool) {
		head := []string{"SOURCE FILE", "A COVERED", "A %", "B COVERED", "B %", "CHANGE"}
		if routine {
			head = append([]string{"ROUTINE"}, head...)
		}
		t := p.Table(title, l.Omitted(), head...)
		for _, x := range l.Items {
			cells := []string{x.File, fmt.Sprintf("%d/%d", x.CoveredA, x.TotalA), pct(x.CoveredA, x.TotalA),
				fmt.Sprintf("%d/%d", x.CoveredB, x.TotalB), pct(x.CoveredB, x.TotalB), st.Format(x.Percent, textout.Points)}
			if routine {
				cells = append([]string{x.ID().FullName()}, cells...)
			}
			t.Row(cells...)
		}
		t.Flush()
	}
	groups("Source files, largest change first", c.Files, false)
	groups("Source files only in A", c.FilesOnlyA, false)
	groups("Source files only in B", c.FilesOnlyB, false)
	groups("Routines, largest change first", c.RoutineList, true)
	groups("Routines only in A", c.RoutinesOnlyA, true)
	groups("Routines only in B", c.RoutinesOnlyB, true)
	for _, l := range []struct {
		title string
		l     List[LineDiff]
	}{{"New misses: lines covered in A, not in B", c.NewMisses}, {"New hits: lines covered in B, not in A", c.NewHits}} {
		t := p.Table(l.title, l.l.Omitted(), "SOURCE FILE", "LINE")
		for _, x := range l.l.Items {
			t.Row(x.File, strconv.FormatInt(x.Line, 10))
		}
		t.Flush()
	}
	p.Line("")
	p.Line("Lines only in A: %d; only in B: %d", c.LinesOnlyA, c.LinesOnlyB)
}

func (tr *TraceDiff) text(p *textout.Printer, st Style) {
	tf := &readback.Trace{Counter: tr.Counter, Frequency: tr.Frequency}
	ticks := func(v float64) string { return tf.Format(int64(v)) }
	count := textout.Number
	p.Line("Counter: %s; times in %s", termtext.Name(textout.OrDash(tr.Counter)), termtext.Name(tf.Unit()))
	p.Line("")
	p.Line("Calls: %s -> %s, change %s", count(tr.Calls.A), count(tr.Calls.B), st.Format(tr.Calls, count))
	p.Line("Time:  %s -> %s, change %s", ticks(tr.Time.A), ticks(tr.Time.B), st.Format(tr.Time, ticks))
	p.Line("Routines only in A: %d; only in B: %d", tr.OnlyA, tr.OnlyB)
	t := p.Table("Routines, largest change of own time first", tr.Routines.Omitted(),
		"ROUTINE", "CALLS A", "CALLS B", "OWN A", "OWN B", "CHANGE", "CHANGE WITH CHILDREN")
	for _, x := range tr.Routines.Items {
		t.Row(x.FullName(), count(x.Calls.A), count(x.Calls.B), ticks(x.Own.A), ticks(x.Own.B), st.Format(x.Own, ticks),
			st.Format(x.WithChild, ticks))
	}
	t.Flush()
}

func (c *ClassDiff) text(p *textout.Printer, st Style) {
	count := textout.Number
	p.Line("")
	p.Line("Live objects: %s -> %s, change %s", count(c.LiveCount.A), count(c.LiveCount.B), st.Format(c.LiveCount, count))
	p.Line("Live size:    %s -> %s, change %s", count(c.LiveSize.A), count(c.LiveSize.B), st.Format(c.LiveSize, count))
	p.Line("Classes only in A: %d; only in B: %d", c.OnlyA, c.OnlyB)
	t := p.Table("Classes, largest change of live count first", c.Classes.Omitted(),
		"CLASS", "MODULE", "LIVE A", "LIVE B", "CHANGE", "LIVE SIZE A", "LIVE SIZE B", "CHANGE")
	for _, x := range c.Classes.Items {
		t.Row(x.Name, x.Module, count(x.LiveCount.A), count(x.LiveCount.B), st.Format(x.LiveCount, count),
			count(x.LiveSize.A), count(x.LiveSize.B), st.Format(x.LiveSize, count))
	}
	t.Flush()
}
