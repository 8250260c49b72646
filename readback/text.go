package readback

import (
	"io"
	"strconv"

	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/internal/textout"
)

// WriteJSON writes the summary as `profdb show --json` prints it: one JSON
// object indented by two spaces, control characters in names escaped.
func (s *Summary) WriteJSON(w io.Writer) error { return textout.WriteJSON(w, s) }

// WriteText writes the summary as `profdb show` prints it: a head line,
// the run's identity where one is recorded (RunLines), the headline figure
// and aligned tables no wider than width terminal columns, long names cut
// keeping their end. Names are printed as termtext.Name prints them.
func (s *Summary) WriteText(w io.Writer, width int) error {
	p := textout.NewPrinter(w, width)
	in := s.Instance
	p.Line("INST_ID %d  %s  %s  (%d rows)", in.InstID, termtext.Name(in.Profiler), termtext.Quote(in.Caption), in.Rows)
	for _, l := range RunLines(in.Run) {
		p.Line("%s", l)
	}
	p.Line("%s", s.Headline())
	switch {
	case s.Coverage != nil:
		c := s.Coverage
		p.Line("")
		p.Line("Lines covered:    %d of %d (%s)", c.Lines.Covered, c.Lines.Total, Percent(c.Lines.Covered, c.Lines.Total))
		p.Line("Routines covered: %d of %d (%s)", c.Routines.Covered, c.Routines.Total, Percent(c.Routines.Covered, c.Routines.Total))
		for _, g := range []struct {
			title string
			l     List[Group]
		}{{"Modules", c.Modules}, {"Source files", c.Files}} {
			t := p.Table(g.title+", worst covered first", g.l.Omitted(), "NAME", "COVERED", "LINES", "%")
			for _, x := range g.l.Items {
				t.Row(x.Name, itoa(x.Covered), itoa(x.Total), Percent(x.Covered, x.Total))
			}
			t.Flush()
		}
		t := p.Table("Least covered routines", c.Least.Omitted(), "ROUTINE", "SOURCE FILE", "COVERED", "LINES", "%")
		for _, x := range c.Least.Items {
			t.Row(FullName("", x.Class, x.Name), x.File, itoa(x.Covered), itoa(x.Total), Percent(x.Covered, x.Total))
		}
		t.Flush()
	case s.Trace != nil:
		tr := s.Trace
		p.Line("Counter: %s; times in %s", termtext.Name(textout.OrDash(in.CounterName)), termtext.Name(tr.Unit()))
		p.Line("Calls: %d  Total time: %s", tr.Calls, tr.Format(tr.TotalTime))
		for _, g := range []struct {
			title string
			l     List[RoutineTime]
		}{{"Routines by own time", tr.ByOwn}, {"Routines by time with children", tr.ByTotal}, {"Routines by calls", tr.ByCalls}} {
			t := p.Table(g.title, g.l.Omitted(), "ROUTINE", "MODULE", "CALLS", "OWN TIME", "WITH CHILDREN")
			for _, x := range g.l.Items {
				t.Row(x.FullName(), x.Module, itoa(x.Calls), tr.Format(x.Own), tr.Format(x.WithChild))
			}
			t.Flush()
		}
		t := p.Table("Threads", tr.Threads.Omitted(), "ID", "WIN32 THREAD ID", "CALLS", "TIME")
		for _, x := range tr.Threads.Items {
			t.Row(itoa(x.ID), textout.OrDash(x.Win32ThreadID.String()), itoa(x.Calls), tr.Format(x.Time))
		}
		t.Flush()
	case s.Resource != nil:
		rs := s.Resource
		classesText(p, rs.Classes)
		t := p.Table("Routines that allocate most", rs.Allocators.Omitted(), "ROUTINE", "OBJECTS", "SIZE")
		for _, x := range rs.Allocators.Items {
			t.Row(FullName("", x.Class, x.Name), itoa(x.Objects), x.Size.String())
		}
		t.Flush()
		if rs.Errors.Total == 0 {
			p.Line("")
			p.Line("Errors: none")
		} else {
			t := p.Table("Errors", rs.Errors.Omitted(), "NAME", "CODE", "KIND", "DESCRIPTION")
			for _, x := range rs.Errors.Items {
				t.Row(x.Name, x.Code.String(), x.Kind.String(), x.Description)
			}
			t.Flush()
		}
	case s.ReferenceCount != nil:
		rc := s.ReferenceCount
		classesText(p, rc.Classes)
		for _, g := range []struct {
			title string
			l     List[RefObject]
		}{{"Objects by live references", rc.Objects}, {"Objects alive at the end", rc.Alive}} {
			t := p.Table(g.title, g.l.Omitted(), "#", "CLASS", "ADDRESS", "LIVE REFS", "PEAK REFS", "TOTAL REFS", "SIZE")
			for _, x := range g.l.Items {
				t.Row(itoa(x.Number), x.Class, x.Address.String(), itoa(x.Live), itoa(x.Peak), itoa(x.Total), x.Size.String())
			}
			t.Flush()
		}
	}
	return p.Err()
}

func classesText(p *textout.Printer, l List[ClassFigures]) {
	t := p.Table("Classes by live count", l.Omitted(), "CLASS", "MODULE", "LIVE", "LIVE SIZE", "PEAK", "PEAK SIZE", "TOTAL", "TOTAL SIZE")
	for _, x := range l.Items {
		t.Row(x.Name, x.Module, x.LiveCount.String(), x.LiveSize.String(), x.PeakCreated.String(), x.PeakSize.String(),
			x.TotalCreated.String(), x.TotalSize.String())
	}
	t.Flush()
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// FormatTime formats a time v in unit: milliseconds with three decimals
// ("12.500 ms"), any other unit as few digits as it needs ("42 ticks").
func FormatTime(v float64, unit string) string { return TimeNumber(v, unit) + " " + unit }

// TimeNumber is FormatTime without the unit: "12.500", "42".
func TimeNumber(v float64, unit string) string {
	if unit == "ms" {
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return textout.Number(v)
}
