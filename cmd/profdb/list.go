package main

import (
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/internal/textout"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

func newListCmd(rep *ledger) *cobra.Command {
	var dsn, schema string
	var asJSON bool
	var conn connOptions
	cmd := &cobra.Command{
		Use:   "list [--db DSN] [--json]",
		Short: "List the result sets in a database",
		Long: `list prints the result sets in INSTANCES: each one's INST_ID, profiler (found
from its RELATIONS rows), row count and caption, and, where the database has
profdb's own PROFDB_RESULT_SETS table, when it was exported (UTC), on which
host, by which profdb version and from what input ("-" where not recorded);
where any result set records a run's identity, its commit (the first 12
digits, "+" for a tree with changes not committed), branch and labels
(docs/layout.md, "A run's identity"). --json gives them whole, as "run".`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := conn.open(cmd.Context(), dsn, store.Options{Schema: schema, ReadOnly: true})
			if err != nil {
				return err
			}
			defer db.Close()
			list, err := db.List(cmd.Context())
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
	connFlags(cmd, &conn, rep)
	return cmd
}

// printListing prints the result sets as a table. What PROFDB_RESULT_SETS
// records is shown when the database has it for any result set. Names from
// the database are printed as termtext.Name prints them, captions quoted.
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
	name := termtext.Name
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
// cells of a run, "-" where unknown.
func identityCells(r *resultset.Run) []string {
	if r == nil {
		return []string{"-", "-", "-"}
	}
	commit := r.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if commit != "" && r.Dirty != nil && *r.Dirty {
		commit += "+"
	}
	labels := make([]string, 0, len(r.Labels))
	for k, v := range r.Labels {
		labels = append(labels, k+"="+v)
	}
	sort.Strings(labels)
	return []string{textout.OrDash(commit), termtext.Name(textout.OrDash(r.Branch)), termtext.Name(textout.OrDash(strings.Join(labels, ",")))}
}
