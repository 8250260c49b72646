package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/textout"
	"github.com/profdb/profdb/merge"
	"github.com/profdb/profdb/selector"
	"github.com/profdb/profdb/store"
)

func newMergeCmd(rep *ledger) *cobra.Command {
	var dsn, schema, opName, caption string
	var asJSON bool
	var conn connOptions
	var identity identityOptions
	cmd := &cobra.Command{
		Use:     "merge [--db DSN] [--schema S] A B [C...] [--op sum|avg|max|min] [--caption TEXT]",
		Short:   "Combine result sets of one profiler into a new one",
		Long:    mergeLong,
		Example: mergeExample,
		Args:    usageArgs(cobra.MinimumNArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			sels := make([]selector.Selector, len(args))
			for i, a := range args {
				var err error
				if sels[i], err = parseSelector("merge", a); err != nil {
					return err
				}
			}
			op, err := merge.ParseOp(opName)
			if err != nil {
				return usageErrorf("--op: want sum, avg, max or min, got %q", opName)
			}
			ctx := cmd.Context()
			run, err := identity.capture(ctx)
			if err != nil {
				return err
			}
			// NoCreate: the result sets to merge are in the database, which
			// must be there; a missing SQLite file is an error naming it.
			db, err := conn.open(ctx, dsn, store.Options{Schema: schema, NoCreate: true})
			if err != nil {
				return err
			}
			defer db.Close()
			insts := make([]int64, len(sels))
			for i, s := range sels {
				l, err := resolveFirst(ctx, db, "merge", s)
				if err != nil {
					return err
				}
				insts[i] = l.InstID
			}
			x := exporter.New(db, exporter.Options{Version: versionLine()})
			target := runTarget{Target: ledgerTarget{Target: x, r: conn.rep, work: "merge of INST_ID " + joinInsts(insts), undo: "nothing of it written"},
				base: run}
			res, err := merge.Merge(ctx, db, insts, op, caption, target)
			if err != nil {
				return err
			}
			if asJSON {
				return textout.WriteJSON(cmd.OutOrStdout(), res)
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), res.Line())
			return err
		},
	}
	dbFlag(cmd, &dsn)
	f := cmd.Flags()
	f.StringVar(&schema, "schema", "", "schema (database on MySQL) holding the tables")
	f.StringVar(&opName, "op", "sum", "how counts combine: sum, avg, max or min")
	f.StringVar(&caption, "caption", "", `caption of the new result set (default "merge (OP) of A, B...")`)
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	identityFlags(cmd, &identity, false)
	connFlags(cmd, &conn, rep)
	return cmd
}

const mergeLong = `merge writes a new result set whose figures combine those of the result sets
A, B, C... (INST_IDs or selectors: latest, branch:NAME, commit:SHA,
label:KEY=VALUE, each with an optional ~N, or ancestor:REV, ancestor~N:REV;
docs/selectors.md),
item by item, as AQTime's "Merging Results" does.
Items are matched by name (module, source file, namespace, class, routine
and its first line, line number), never by ID. Their counts combine by --op:
sum (the default), avg (the mean over the inputs that hold the item,
rounded up), max, or min (the smallest count above 0). A line is covered
when it ran in any input, whatever the operation; % covered and the other
derived figures are recomputed from the merged lines, not combined. A result
set may be named twice (it then counts twice).

For a Function Trace, threads are matched by thread id (by position
when the id is unknown) and calls by their path of routines from the top of
the thread and which call of that routine by that caller they are; own time,
time with children and counts combine by --op, and routine and route hit
counts are recomputed. Results of different counters are refused.

For Resource and Reference Count sets, classes are matched by name and
module, threads as above, objects by class, thread and creation number (#);
live, peak and total counts, sizes and references, hit counts and
reference-count changes combine by --op.

The inputs must be of one profiler. The new result set is written in one
transaction and checked before it commits, as export writes one; merge
prints its INST_ID line as export does (--json: the same as a JSON object).`

const mergeExample = `  profdb merge 1 2 3
  profdb merge --db postgres://me@db/prof 4 5 --op max --caption "all shards"
  profdb merge label:shard=1 label:shard=2

  # two test shards merged and the merge gated on patch coverage in CI,
  # with the output: docs/guide.md, "A worked example: two runs in CI"`
