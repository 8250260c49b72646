package trend

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/internal/textout"
	"github.com/profdb/profdb/readback"
)

// sparks are the bars of a sparkline, lowest first.
var sparks = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws values as one bar a value, scaled from the smallest
// (▁) to the largest (█); a missing value is a space, and values that are
// all equal are all ▄.
func Sparkline(values []*float64) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range values {
		if v != nil {
			lo, hi = math.Min(lo, *v), math.Max(hi, *v)
		}
	}
	var b strings.Builder
	for _, v := range values {
		switch {
		case v == nil:
			b.WriteByte(' ')
		case hi == lo:
			b.WriteRune(sparks[3])
		default:
			i := int(math.Round((*v - lo) / (hi - lo) * float64(len(sparks)-1)))
			b.WriteRune(sparks[i])
		}
	}
	return b.String()
}

// Format formats a value of a series in its unit: "42.9%", "12.500 ms",
// "1234".
func Format(v float64, unit string) string {
	switch unit {
	case "%":
		return textout.Percent(v)
	case "calls", "objects", "bytes":
		return textout.Number(v)
	}
	return readback.FormatTime(v, unit)
}

// Change formats a change b − a in unit: "+35.7 points" for percentages,
// "+12.500 ms", "-3".
func Change(d float64, unit string) string {
	if unit == "%" {
		return textout.PointsChange(d) + " points"
	}
	return textout.Signed(Format(d, unit), d)
}

// ends returns the first and the last value of a series that are there.
func ends(values []*float64) (first, last *float64) {
	for _, v := range values {
		if v != nil {
			if first == nil {
				first = v
			}
			last = v
		}
	}
	return first, last
}

// WriteText writes the trend as `profdb trend` prints it: a head line, a
// sparkline per figure with its first and last value, a table of the runs
// and the movers, no wider than width terminal columns. Names from the
// database are printed as termtext.Name prints them.
func (t *Trend) WriteText(w io.Writer, width int) error {
	p := textout.NewPrinter(w, width)
	first, last := t.Runs[0], t.Runs[len(t.Runs)-1]
	if len(t.Runs) == 1 {
		p.Line("%s: 1 result set, INST_ID %d", termtext.Name(t.Profiler), first.InstID)
	} else {
		p.Line("%s: %d result sets, INST_ID %d to %d, oldest first", termtext.Name(t.Profiler), len(t.Runs), first.InstID, last.InstID)
	}
	if t.Item != nil {
		p.Line("%s %s", t.Item.Kind, termtext.Quote(t.Item.Name))
	}
	p.Line("")
	labelWidth := 0
	for _, s := range t.Series {
		labelWidth = max(labelWidth, termtext.Width(termtext.Name(s.Label)))
	}
	for _, s := range t.Series {
		a, b := ends(s.Values)
		line := termtext.Pad(termtext.Name(s.Label), labelWidth) + "  " + Sparkline(s.Values)
		switch {
		case a == nil:
			line += "  (none)"
		case len(t.Runs) == 1:
			line += "  " + Format(*a, s.Unit)
		default:
			line += "  " + Format(*a, s.Unit) + " → " + Format(*b, s.Unit) + " (" + Change(*b-*a, s.Unit) + ")"
		}
		p.Line("%s", line)
	}
	// The branch and the build are free text, cut to fit the width; the
	// INST_ID, the time, the commit and the figures never are.
	header := []string{"INST_ID", "EXPORTED (UTC)", "COMMIT", "BRANCH", "BUILD"}
	fixed := []int{0, 1, 2}
	for _, s := range t.Series {
		fixed = append(fixed, len(header))
		header = append(header, strings.ToUpper(s.Label))
	}
	tab := p.Table("Runs", 0, header...).Fixed(fixed...)
	for i, run := range t.Runs {
		// Text from the database is cut as termtext.Field cuts a value
		// (Row escapes it), then to fit.
		var commit, branch, build string
		if id := run.Identity; id != nil {
			commit, branch, build = readback.ShortCommit(id.Commit), termtext.Cut(id.Branch, termtext.QuoteRunes), termtext.Cut(id.BuildID, termtext.QuoteRunes)
		}
		exported := termtext.Cut(strings.TrimSuffix(strings.Replace(run.ExportedAt, "T", " ", 1), "Z"), termtext.QuoteRunes)
		row := []string{strconv.FormatInt(run.InstID, 10), textout.OrDash(exported),
			textout.OrDash(commit), textout.OrDash(branch), textout.OrDash(build)}
		for _, s := range t.Series {
			if v := s.Values[i]; v != nil {
				row = append(row, Format(*v, s.Unit))
			} else {
				row = append(row, "-")
			}
		}
		tab.Row(row...)
	}
	tab.Flush()
	if m := t.Movers; m != nil {
		title := m.Title()
		change := "CHANGE"
		if m.Unit == "%" {
			change = "CHANGE (POINTS)"
		}
		tab := p.Table(title, m.Total-int64(len(m.Items)), strings.ToUpper(m.Kind), "FIRST", "LAST", change).Fixed(1, 2, 3)
		for _, x := range m.Items {
			a, b := Format(x.A, m.Unit), Format(x.B, m.Unit)
			if !x.InA {
				a = "-"
			}
			if !x.InB {
				b = "-"
			}
			d := Change(x.Delta(), m.Unit)
			if m.Unit == "%" {
				d = textout.PointsChange(x.Delta()) // the column says "points"
			}
			tab.Row(x.Name, a, b, d)
		}
		tab.Flush()
	}
	return p.Err()
}

// Title says what the movers are: "Source files whose line coverage moved
// most, result set 1 to 6".
func (m *Movers) Title() string {
	return fmt.Sprintf("%s whose %s moved most, result set %d to %d", capitalize(plural(m.Kind)), m.Figure, m.A, m.B)
}

func plural(s string) string {
	if strings.HasSuffix(s, "s") {
		return s + "es"
	}
	return s + "s"
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// WriteJSON writes the trend as `profdb trend --json` prints it: one JSON
// object indented by two spaces, control characters in names escaped.
func (t *Trend) WriteJSON(w io.Writer) error { return textout.WriteJSON(w, t) }

// WriteCSV writes the runs as `profdb trend --format csv` prints them: a
// header, then a row per run, oldest first, with its INST_ID, export time,
// commit, branch, build ID and URL, caption and a column per series (its
// Key) holding the value as a plain number, empty where the run lacks it.
// Text cells from the data are made safe by CSVText: a control character
// is escaped (the cell quoted as termtext.Name quotes a name) and a cell a
// spreadsheet would read as a formula (it starts with =, +, -, @) gets a
// leading '.
func (t *Trend) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	header := []string{"inst_id", "exported_at", "commit", "branch", "build_id", "build_url", "caption"}
	for _, s := range t.Series {
		header = append(header, s.Key)
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for i, run := range t.Runs {
		var commit, branch, build, url string
		if id := run.Identity; id != nil {
			commit, branch, build, url = id.Commit, id.Branch, id.BuildID, id.BuildURL
		}
		row := []string{strconv.FormatInt(run.InstID, 10), CSVText(run.ExportedAt), CSVText(commit), CSVText(branch),
			CSVText(build), CSVText(url), CSVText(run.Caption)}
		for _, s := range t.Series {
			if v := s.Values[i]; v != nil {
				row = append(row, strconv.FormatFloat(*v, 'f', -1, 64))
			} else {
				row = append(row, "")
			}
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// CSVText is a text cell from the data made safe for a terminal and a
// spreadsheet: text with a control character (or a leading double quote)
// is quoted as termtext.Name quotes it, and text that starts with a
// character that makes it a formula gets a leading '.
func CSVText(s string) string {
	s = termtext.Name(s)
	if s != "" && strings.ContainsRune("=+-@", rune(s[0])) {
		return "'" + s
	}
	return s
}
