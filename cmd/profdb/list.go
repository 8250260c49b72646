package main

import (
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/internal/textout"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

func newListCmd(rep *ledger) *cobra.Command {
	var dsn, schema string
	var asJSON bool
	var conn connOptions
	var ff *filterFlags
	cmd := &cobra.Command{
		Use:   "list [--db DSN] [--branch B] [--commit SHA] [--label KEY=VALUE]... [--profiler P] [--since WHEN] [--last N] [--json]",
		Short: "List the result sets in a database",
		Long: `list prints the result sets in INSTANCES: each one's INST_ID, profiler (found
from its RELATIONS rows), row count and caption, and, where the database has
profdb's own PROFDB_RESULT_SETS table, when it was exported (UTC), on which
host, by which profdb version and from what input ("-" where not recorded);
where any result set records a run's identity, its commit (the first 12
digits, "+" for a tree with changes not committed), branch and labels
(docs/layout.md, "A run's identity"). --json gives them whole, as "run".

The filters choose result sets by what profdb recorded at export, and
combine: --branch the branch, --commit a prefix of the commit, --label
KEY=VALUE a label (repeat for more, all must match), --profiler the
profiler, --since the export time (a date, 2026-01-31, from midnight UTC;
an RFC 3339 time; or a duration ago, 36h, 7d), --last N the newest N of
those. With a filter, list reads only the result sets it prints and counts
the rows of those only. A database without PROFDB_RESULT_SETS records no
branch, commit, label or time: only --profiler and --last find result sets
there.`,
		Example: `  profdb list
  profdb list --branch main --last 20
  profdb list --label suite=unit --since 7d --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, err := ff.filter(time.Now())
			if err != nil {
				return err
			}
			filtered := f.Profiler != "" || f.Branch != "" || f.Commit != "" || len(f.Labels) > 0 || f.Since != "" || f.Last > 0
			db, err := conn.open(cmd.Context(), dsn, store.Options{Schema: schema, ReadOnly: true})
			if err != nil {
				return err
			}
			defer db.Close()
			var list []store.Listing
			if filtered {
				f.Counted = true
				list, err = db.Select(cmd.Context(), f)
			} else {
				list, err = db.List(cmd.Context())
			}
			if err != nil {
				return err
			}
			if asJSON {
				if list == nil {
					list = []store.Listing{}
				}
				return writeJSON(cmd.OutOrStdout(), list)
			}
			return printListing(cmd.OutOrStdout(), list)
		},
	}
	dbFlag(cmd, &dsn)
	cmd.Flags().StringVar(&schema, "schema", "", "schema (database on MySQL) holding the tables")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	ff = addFilterFlags(cmd, 0)
	connFlags(cmd, &conn, rep)
	return cmd
}

// printListing prints the result sets as a table. What PROFDB_RESULT_SETS
// records is shown when the database has it for any result set. Text from
// the database is printed as termtext.Field prints a value (escaped, a
// long one cut), captions quoted (termtext.Quote): a table another tool
// filled prints a line's worth of each value.
func printListing(w io.Writer, list []store.Listing) error {
	recorded := slices.ContainsFunc(list, func(l store.Listing) bool { return l.ExportedAt != "" })
	identified := slices.ContainsFunc(list, func(l store.Listing) bool { return l.Run != nil })
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
	for _, l := range list {
		p := l.Profiler
		if p == "" {
			p = "?"
		}
		id, n, caption := itoa(l.InstID), itoa(l.Rows), termtext.Quote(l.Caption)
		var line []string
		if recorded {
			version, _, _ := strings.Cut(l.Version, " ")
			line = []string{id, name(p), n, name(textout.OrDash(strings.TrimSuffix(strings.Replace(l.ExportedAt, "T", " ", 1), "Z"))),
				name(textout.OrDash(l.Host)), name(textout.OrDash(version)), name(textout.OrDash(l.Input)), caption}
		} else {
			line = []string{id, name(p), n, caption}
		}
		if identified {
			line = slices.Insert(line, len(line)-1, identityCells(l.Run)...)
		}
		lines = append(lines, line)
	}
	return textout.Columns(w, lines)
}

// identityCells are list's COMMIT (its first 12 digits, "+" when the tree
// was dirty), BRANCH and LABELS (KEY=VALUE, sorted, comma-separated)
// cells of a run, "-" where unknown; the labels as readback.LabelText
// shows them (runid.MaxLabels of them, each cut).
func identityCells(r *resultset.Run) []string {
	if r == nil {
		return []string{"-", "-", "-"}
	}
	commit := readback.ShortCommit(r.Commit)
	if commit != "" && r.Dirty != nil && *r.Dirty {
		commit += "+"
	}
	return []string{termtext.Field(textout.OrDash(commit)), termtext.Field(textout.OrDash(r.Branch)), termtext.Name(textout.OrDash(readback.LabelText(r.Labels)))}
}
