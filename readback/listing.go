package readback

import (
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/internal/textout"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// Listing is result sets as the store lists them (store.DB.List, Select):
// what profdb list prints, as a table (WriteText) or JSON (WriteJSON).
type Listing []store.Listing

// WriteText writes the result sets as a table: INST_ID, profiler, rows
// and caption; when any of them has a PROFDB_RESULT_SETS row, when each
// was exported (UTC), on which host, by which profdb version (its first
// word) and from what input; when any records a run's identity, its
// commit (ShortCommit, "+" when the tree was dirty), branch and labels
// (LabelText). "-" stands for what was not recorded, "?" for a profiler
// this build does not know. Text from the database is printed as
// termtext.Field prints a value (escaped, a long one cut), captions
// quoted (termtext.Quote): a table another tool filled prints a line's
// worth of each value.
func (l Listing) WriteText(w io.Writer) error {
	recorded := slices.ContainsFunc(l, func(l store.Listing) bool { return l.ExportedAt != "" })
	identified := slices.ContainsFunc(l, func(l store.Listing) bool { return l.Run != nil })
	var lines [][]string
	if recorded {
		lines = append(lines, []string{"INST_ID", "PROFILER", "ROWS", "EXPORTED (UTC)", "HOST", "VERSION", "INPUT", "CAPTION"})
	} else {
		lines = append(lines, []string{"INST_ID", "PROFILER", "ROWS", "CAPTION"})
	}
	if identified {
		lines[0] = slices.Insert(lines[0], len(lines[0])-1, "COMMIT", "BRANCH", "LABELS")
	}
	name := termtext.Field
	for _, r := range l {
		p := r.Profiler
		if p == "" {
			p = "?"
		}
		id, n, caption := strconv.FormatInt(r.InstID, 10), strconv.FormatInt(r.Rows, 10), termtext.Quote(r.Caption)
		var line []string
		if recorded {
			version, _, _ := strings.Cut(r.Version, " ")
			line = []string{id, name(p), n, name(textout.OrDash(strings.TrimSuffix(strings.Replace(r.ExportedAt, "T", " ", 1), "Z"))),
				name(textout.OrDash(r.Host)), name(textout.OrDash(version)), name(textout.OrDash(r.Input)), caption}
		} else {
			line = []string{id, name(p), n, caption}
		}
		if identified {
			line = slices.Insert(line, len(line)-1, identityCells(r.Run)...)
		}
		lines = append(lines, line)
	}
	return textout.Columns(w, lines)
}

// WriteJSON writes the result sets whole as an indented JSON array ([]
// for none), a run's identity as "run".
func (l Listing) WriteJSON(w io.Writer) error {
	if l == nil {
		l = Listing{}
	}
	return textout.WriteJSON(w, l)
}

// identityCells are the COMMIT (its first 12 digits, "+" when the tree
// was dirty), BRANCH and LABELS (LabelText) cells of a run, "-" where
// unknown.
func identityCells(r *resultset.Run) []string {
	if r == nil {
		return []string{"-", "-", "-"}
	}
	commit := ShortCommit(r.Commit)
	if commit != "" && r.Dirty != nil && *r.Dirty {
		commit += "+"
	}
	return []string{termtext.Field(textout.OrDash(commit)), termtext.Field(textout.OrDash(r.Branch)), termtext.Name(textout.OrDash(LabelText(r.Labels)))}
}
