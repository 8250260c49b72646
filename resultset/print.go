package resultset

import (
	"io"
	"strconv"

	"github.com/dustin/go-humanize/english"

	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/internal/textout"
)

// Line is the line profdb prints for a result set it wrote:
// `INST_ID 3  light-coverage  64 rows  "caption"`, the profiler's name
// escaped (termtext.Name), the caption quoted (termtext.Quote).
func (r Result) Line() string { return r.LineAs("INST_ID " + strconv.FormatInt(r.InstID, 10)) }

// LineAs is Line with the result set named name instead of by its
// INST_ID: "result set 2", the second of a SQL script, which has no
// INST_ID until the script runs.
func (r Result) LineAs(name string) string {
	return name + "  " + termtext.Name(r.Profiler) + "  " + english.Plural(int(r.Rows), "row", "") + "  " + termtext.Quote(r.Caption)
}

// Results are result sets written: what profdb export prints.
type Results []Result

// WriteText writes a Line per result set.
func (rs Results) WriteText(w io.Writer) error {
	for _, r := range rs {
		if _, err := io.WriteString(w, r.Line()+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON writes the result sets as an indented JSON array ([] for
// none) of {"inst_id", "profiler", "caption", "rows", "tables"}, names
// with their exact value (textout.WriteJSON).
func (rs Results) WriteJSON(w io.Writer) error {
	if rs == nil {
		rs = Results{}
	}
	return textout.WriteJSON(w, rs)
}
