package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/dustin/go-humanize/english"
	"github.com/spf13/cobra"

	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/store"
)

// deleteOptions are the flags of "profdb delete".
type deleteOptions struct {
	dsn, schema, olderThan string
	inst                   *instFlag
	keepLast               int
	branch, profiler       string
	asJSON, dryRun         bool
	conn                   connOptions
}

func newDeleteCmd(rep *ledger) *cobra.Command {
	var o deleteOptions
	cmd := &cobra.Command{
		Use:   "delete [--db DSN] (--inst N|A-B|SELECTOR... | --older-than AGE | --keep-last N [--branch B] [--profiler P]) [--dry-run]",
		Short: "Remove result sets from every table",
		Long: `delete removes the result sets --inst names from every table, all in one
transaction: when one of them cannot be removed, none is. --inst takes an
INST_ID, a range A-B (the result sets between A and B, both included, that
the database holds) or a selector (latest, branch:NAME, commit:SHA,
label:KEY=VALUE, each with an optional ~N, or ancestor:REV, ancestor~N:REV;
docs/selectors.md);
repeat it or separate values with commas. --dry-run
prints what would be removed and removes nothing. The rows counted are those
of the profiler's tables, as list counts them.

--older-than AGE selects the result sets exported longer ago than AGE (a Go
duration such as 90m or 36h, or days and weeks: 30d, 2w), by the export time
profdb records in its PROFDB_RESULT_SETS table; result sets without one are
left, and said so.

--keep-last N selects all but the newest N result sets (by INST_ID, the order
profdb exports them in): of one branch with --branch, of one profiler with
--profiler, else of all. The branch is the one profdb recorded at export
(PROFDB_RESULT_SETS); a result set without one is on no branch, and one
that table has no row for (exported before profdb kept it) is neither kept
nor deleted.

Selections combine: with --inst, --older-than and --keep-last given, what
any of them selects goes.

A deleted result set's INST_ID is never given out again: PROFDB_RESULT_SETS
keeps its row, marked deleted.`,
		Example: `  profdb delete --inst 7
  profdb delete --inst 3,5 --inst 10-20 --dry-run
  profdb delete --older-than 30d
  profdb delete --inst latest~1
  profdb delete --keep-last 100 --branch main --dry-run`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			sel, err := o.selection()
			if err != nil {
				return err
			}
			if (o.branch != "" || o.profiler != "") && o.keepLast == 0 {
				return usageErrorf("--branch and --profiler choose the result sets of --keep-last: give --keep-last N")
			}
			if o.profiler != "" {
				if _, err := profilers.Lookup(o.profiler); err != nil {
					return usageErrorf("--profiler: %v", err)
				}
			}
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), sel)
		},
	}
	dbFlag(cmd, &o.dsn)
	f := cmd.Flags()
	f.StringVar(&o.schema, "schema", "", "schema (database on MySQL) holding the tables")
	o.inst = addInstFlag(cmd, "delete", "")
	minIntVar(f, &o.keepLast, "keep-last", 0, 1, "at least 1",
		"that would keep none and delete every result set it selects; "+deleteAll,
		"also delete all but the newest `N` result sets (of --branch, of --profiler; at least 1)")
	f.StringVar(&o.branch, "branch", "", "with --keep-last: the result sets of this branch only")
	f.StringVar(&o.profiler, "profiler", "", "with --keep-last: the result sets of this profiler only")
	f.StringVar(&o.olderThan, "older-than", "", "also delete the result sets exported longer ago than `AGE` (90m, 36h, 30d, 2w)")
	f.BoolVar(&o.dryRun, "dry-run", false, "print what would be deleted; delete nothing")
	f.BoolVar(&o.asJSON, "json", false, `print what was (or would be) deleted as JSON: [{"inst_id", "rows"}]`)
	connFlags(cmd, &o.conn, rep)
	return cmd
}

// deleteAll says how to delete every result set, which --keep-last 0 and
// --older-than 0 would do and are refused for.
const deleteAll = "to delete them all, name them: --inst A-B deletes the result sets from INST_ID A to B (profdb list shows them)"

// parseAge parses --older-than (store.ParseAge): a Go duration (90m,
// 36h), or a whole number of days or weeks (30d, 2w).
func parseAge(s string) (time.Duration, error) { return store.ParseAge(s) }

// selection checks --inst and returns the result sets --older-than
// selects; run adds those of --inst, once its selectors are resolved.
func (o *deleteOptions) selection() (store.Selection, error) {
	if !o.inst.given() && o.olderThan == "" && o.keepLast == 0 {
		return store.Selection{}, usageErrorf("--inst, --older-than or --keep-last is required")
	}
	if _, err := o.inst.items(); err != nil {
		return store.Selection{}, err
	}
	var sel store.Selection
	if o.olderThan != "" {
		age, err := parseAge(o.olderThan)
		if err != nil {
			return store.Selection{}, usageErrorf("--older-than: %v", err)
		}
		if age == 0 {
			return store.Selection{}, belowLimit("older-than", "more than 0", termtext.Short(o.olderThan),
				"that would delete every result set exported until now; "+deleteAll)
		}
		sel.ExportedBefore = time.Now().Add(-age).UTC()
	}
	return sel, nil
}

// run deletes (or with --dry-run lists) the result sets sel selects.
func (o *deleteOptions) run(ctx context.Context, stdout, stderr io.Writer, sel store.Selection) error {
	// NoCreate: deleting from a database file that does not exist must not
	// create it. The ledger learns when the delete commits: an
	// interruption from then on leaves the outcome to the server, and says
	// so.
	rep := o.conn.rep
	db, err := o.conn.open(ctx, o.dsn, store.Options{Schema: o.schema, NoCreate: true, Phase: func(p string) {
		if p == store.PhaseCommit {
			rep.committing()
		}
	}})
	if err != nil {
		return err
	}
	defer db.Close()
	named, err := o.inst.selection(ctx, db)
	if err != nil {
		return fmt.Errorf("%w: nothing deleted", err)
	}
	sel.IDs, sel.Ranges = named.IDs, named.Ranges
	var kept int
	if o.keepLast > 0 {
		var old []int64
		if old, kept, err = db.KeepLast(ctx, store.Filter{Branch: o.branch, Profiler: o.profiler}, o.keepLast); err != nil {
			return err
		}
		sel.IDs = append(sel.IDs, old...)
	}
	insts, undated, err := db.Named(ctx, sel)
	if err != nil {
		return fmt.Errorf("%w: nothing deleted", err)
	}
	if o.keepLast > 0 && len(insts) == 0 {
		fmt.Fprintf(stderr, "profdb: delete: --keep-last %d keeps the %s%s: nothing deleted\n", o.keepLast,
			english.Plural(kept, "result set", ""), o.keptWhat())
		return o.print(stdout, store.Deletion{})
	}
	if !sel.ExportedBefore.IsZero() {
		if undated > 0 {
			fmt.Fprintf(stderr, "profdb: delete: %s no export time (exported before PROFDB_RESULT_SETS existed, or by a script with --no-create): --older-than leaves %s\n",
				english.Plural(undated, "result set has", "result sets have"), english.PluralWord(undated, "it", "them"))
		}
		if len(insts) == 0 && o.keepLast == 0 {
			fmt.Fprintf(stderr, "profdb: delete: no result set exported before %s: nothing deleted\n", sel.ExportedBefore.Format(store.TimeFormat))
			return o.print(stdout, store.Deletion{})
		}
	}
	done := store.Deletion{DryRun: o.dryRun}
	if o.dryRun {
		list, err := db.ListOf(ctx, insts)
		if err != nil {
			return err
		}
		for _, l := range list {
			done.Deleted = append(done.Deleted, store.Deleted{InstID: l.InstID, Rows: l.Rows})
		}
	} else {
		what := "delete of INST_ID " + joinInsts(insts)
		rep.start(what, "nothing deleted")
		if done.Deleted, err = db.DeleteAll(ctx, insts); err != nil {
			return err
		}
		rep.finish(what)
	}
	return o.print(stdout, done)
}

// keptWhat says whose result sets --keep-last keeps: " of branch main",
// " of profiler light-coverage", or "".
func (o *deleteOptions) keptWhat() string {
	var s string
	if o.profiler != "" {
		s += " of profiler " + termtext.Name(o.profiler)
	}
	if o.branch != "" {
		s += " on branch " + termtext.Name(o.branch)
	}
	return s
}

// print prints what was (or with --dry-run would be) deleted, as
// --json asks: nothing as text when nothing was.
func (o *deleteOptions) print(stdout io.Writer, d store.Deletion) error {
	if o.asJSON {
		return d.WriteJSON(stdout)
	}
	return d.WriteText(stdout)
}
