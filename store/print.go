package store

import (
	"fmt"
	"io"
	"strings"

	"github.com/dustin/go-humanize/english"

	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/internal/textout"
)

// What profdb verify and delete print, as show prints readback's figures:
// text, or JSON whose names keep their exact value (textout.WriteJSON).

// Findings are what Verify found in some result sets.
type Findings []Finding

// WriteText writes a line per finding (Finding.String, control characters
// escaped as termtext.Line escapes them), or "ok" when there is none.
func (fs Findings) WriteText(w io.Writer) error {
	if len(fs) == 0 {
		_, err := io.WriteString(w, "ok\n")
		return err
	}
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(termtext.Line(f.String()) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the findings as an indented JSON array of
// {"inst_id", "table", "message", "ids"}: [] when there is none.
func (fs Findings) WriteJSON(w io.Writer) error {
	if fs == nil {
		fs = Findings{}
	}
	return textout.WriteJSON(w, fs)
}

// Deletion is what DeleteAll deleted, or, when DryRun, what it would
// delete.
type Deletion struct {
	Deleted []Deleted
	DryRun  bool
}

// WriteText writes a line per result set: "deleted INST_ID 3 (64 rows)",
// or "would delete ..." when DryRun.
func (d Deletion) WriteText(w io.Writer) error {
	verb := "deleted"
	if d.DryRun {
		verb = "would delete"
	}
	var b strings.Builder
	for _, x := range d.Deleted {
		fmt.Fprintf(&b, "%s INST_ID %d (%s)\n", verb, x.InstID, english.Plural(int(x.Rows), "row", ""))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the result sets as an indented JSON array of
// {"inst_id", "rows"}: [] when there is none.
func (d Deletion) WriteJSON(w io.Writer) error {
	if d.Deleted == nil {
		return textout.WriteJSON(w, []Deleted{})
	}
	return textout.WriteJSON(w, d.Deleted)
}
