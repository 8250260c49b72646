package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/compare"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/selector"
	"github.com/profdb/profdb/store"
)

func newCompareCmd(rep *ledger) *cobra.Command {
	var dsn, schema, style string
	var asJSON bool
	var topN int
	var conn connOptions
	cmd := &cobra.Command{
		Use:     "compare [--db DSN] [--schema S] A B [--style difference|ratio|percent] [--top N] [--json]",
		Short:   "Compare two result sets of one profiler",
		Long:    compareLong,
		Example: compareExample,
		Args:    usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			var sels [2]selector.Selector
			for i, s := range args {
				var err error
				if sels[i], err = parseSelector("compare", s); err != nil {
					return err
				}
			}
			st, err := compare.ParseStyle(style)
			if err != nil {
				return usageErrorf("compare: --style must be difference, ratio or percent, not %q", style)
			}
			ctx := cmd.Context()
			db, err := conn.open(ctx, dsn, store.Options{Schema: schema, ReadOnly: true})
			if err != nil {
				return err
			}
			defer db.Close()
			a, err := resolveFirst(ctx, db, "compare: A", sels[0])
			if err != nil {
				return err
			}
			b, err := resolveSecond(ctx, db, "compare: B", sels[1], a)
			if err != nil {
				return err
			}
			ids := [2]int64{a.InstID, b.InstID}
			r, err := readback.Begin(ctx, db)
			if err != nil {
				return fmt.Errorf("compare: %w", err)
			}
			defer r.Close()
			res, err := compare.Compare(ctx, r, ids[0], ids[1], compare.Options{Style: st, Top: topN})
			if errors.Is(err, compare.ErrIncomparable) {
				return negativeAnswer{err} // the sets cannot be compared: not a failure to compare them
			}
			if err != nil {
				return err
			}
			if asJSON {
				return res.WriteJSON(cmd.OutOrStdout())
			}
			return res.WriteText(withTopHint(cmd.OutOrStdout()), termWidth(cmd.OutOrStdout()))
		},
	}
	dbFlag(cmd, &dsn)
	f := cmd.Flags()
	f.StringVar(&schema, "schema", "", "schema (database on MySQL) holding the tables")
	f.StringVar(&style, "style", "difference", "how changes are given: difference, ratio or percent")
	positiveIntVar(f, &topN, "top", 20, "entries per list")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	connFlags(cmd, &conn, rep)
	return cmd
}

const compareLong = `compare compares result set B with result set A, as AQTime's
"Comparing Results" does. Items are matched by name (module, source file,
class, routine, line number), never by ID; the matching runs in the database.

  light-coverage   % of lines and routines covered in A and B; source files
                   and routines, largest change of % covered first; files and
                   routines in one set only; lines covered in A and not in B
                   (new misses) and the reverse (new hits)
  function-trace   calls, own time and time with children per routine,
                   largest change of own time first; refused when the two
                   traces were measured with different counters
  resource,        live count, live size, peak created and peak size per
  reference-count  class, largest change of live count first

A and B are INST_IDs or selectors (latest, branch:NAME, commit:SHA,
label:KEY=VALUE, each with an optional ~N, or ancestor:REV, ancestor~N:REV;
docs/selectors.md). A selector for B picks among the result sets of A's
profiler, newest first, A counted among them, so that ~N means what it does
for A: compare latest latest~1 compares the newest with the one before it
of the same profiler. A selector without ~N passes over A when A is its
newest match (compare latest branch:main run on main compares with main's
run before); one with ~N that names A itself is a usage error. The head names each one's run by its commit and branch,
as show does, where profdb recorded them.

Changes are in the --style: difference (B - A; for % covered, percentage
points), ratio (B / A) or percent ((B - A) / A x 100); ratio and percent of
a figure that is 0 in A print "-". Lists hold the first --top entries and say
how many there are in all. --json prints the same data as one JSON object.

Exit status: 0 when compared; 1 when the sets cannot be compared (different
profilers or counters); 2 when the comparison cannot be made: usage errors,
a database that cannot be opened or read, an INST_ID that names no result
set.`

const compareExample = `  # two Go coverage runs of a module, before and after a change
  go test -coverprofile=before.out ./...
  go test -coverprofile=after.out ./...
  profdb export --caption before before.out    # INST_ID 1
  profdb export --caption after after.out      # INST_ID 2
  profdb compare 1 2

  profdb compare --db postgres://me@db/prof 12 14 --style percent --top 10
  profdb compare 1 2 --json
  profdb compare branch:main latest`
