package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/readback"
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
			filtered := f.Narrows()
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
				return readback.Listing(list).WriteJSON(cmd.OutOrStdout())
			}
			return readback.Listing(list).WriteText(cmd.OutOrStdout())
		},
	}
	dbFlag(cmd, &dsn)
	cmd.Flags().StringVar(&schema, "schema", "", "schema (database on MySQL) holding the tables")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	ff = addFilterFlags(cmd, 0)
	connFlags(cmd, &conn, rep)
	return cmd
}
