package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

func newCopyCmd() *cobra.Command {
	var from, to, fromSchema, toSchema, bulk, progressMode string
	var insts []int64
	var noCreate, asJSON, quiet bool
	var retries int
	var conn connOptions
	cmd := &cobra.Command{
		Use:   "copy --from DSN --to DSN [--inst N]...",
		Short: "Copy result sets between databases",
		Long: `copy reads result sets from one database and exports each into another, of
any dialects. Every copied result set gets a new INST_ID at the target, its
tables and parent links are preserved, and it is written in one transaction
like any export: a failure leaves no trace of it at the target, and a
conflict with a concurrent transaction is retried (--retries). Without
--inst every result set of the source is copied. The source is only read
(a missing SQLite file is an error, never created), each result set in
one consistent snapshot.`,
		Example: `  profdb copy --from sqlite:profdb.db --to postgres://user@db/prof
  profdb copy --from mysql://u:p@h/prof --to sqlite:local.db --inst 3 --inst 7`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" || to == "" {
				return usageErrorf("--from and --to are required")
			}
			mode, err := exporter.ParseBulkMode(bulk)
			if err != nil {
				return usageErrorf("--bulk: want auto or off, got %q", bulk)
			}
			if retries < 0 {
				return usageErrorf("--retries: want 0 or more, got %d", retries)
			}
			ctx := cmd.Context()
			// Errors name the side and the database, without password.
			reading := func(err error) error {
				return fmt.Errorf("reading source%s: %w", showDSN(from), dialects.ScrubError(from, err))
			}
			writing := func(err error) error {
				return fmt.Errorf("writing target%s: %w", showDSN(to), dialects.ScrubError(to, err))
			}
			src, err := conn.open(ctx, from, store.Options{Schema: fromSchema, ReadOnly: true})
			if err != nil {
				return reading(err)
			}
			defer src.Close()
			// The total is the rows of the result sets to copy, as the
			// source counts them.
			list, err := src.List(ctx)
			if err != nil {
				return reading(err)
			}
			var total int64
			for _, l := range list {
				if len(insts) == 0 || slices.Contains(insts, l.InstID) {
					total += l.Rows
				}
			}
			if len(insts) == 0 {
				for _, l := range list {
					insts = append(insts, l.InstID)
				}
			}
			prog, err := newProgress(cmd.ErrOrStderr(), progressMode, quiet, false, total)
			if err != nil {
				return err
			}
			defer prog.finish()
			dstDB, err := conn.open(ctx, to, store.Options{Schema: toSchema, NoCreate: noCreate, Phase: prog.setPhase,
				Logf: func(format string, args ...any) { prog.log(cmd.ErrOrStderr(), format, args...) }})
			if err != nil {
				return writing(err)
			}
			defer dstDB.Close()
			dst := exporter.New(dstDB, exporter.Options{Bulk: mode, Retries: retries, Version: versionLine(), Progress: prog.set})
			results := []copied{}
			rep := ledgerFrom(ctx)
			for _, inst := range insts {
				work, undo := fmt.Sprintf("copy of INST_ID %d", inst), "nothing of it written"
				rep.start(work, undo)
				// The result set is read in a snapshot of its own, which ends
				// when its rows have been read, before the target commits (the
				// source and the target may be the same SQLite file), or at
				// the latest when icancel ends it.
				ictx, icancel := context.WithCancel(ctx)
				rs, err := src.ReadUnordered(ictx, inst)
				if err != nil {
					icancel()
					return reading(fmt.Errorf("INST_ID %d: %w", inst, err))
				}
				markSourceErrors(rs)
				rs.Input = fmt.Sprintf("INST_ID %d of %s", inst, dialects.Redact(from))
				// The ledger learns of the commit from the writer itself, so
				// that an interruption right after it is not reported as a
				// roll-back.
				target := ledgerTarget{Target: dst, r: rep, work: work, undo: undo,
					done: func(res resultset.Result) string { return fmt.Sprintf("INST_ID %d -> INST_ID %d", inst, res.InstID) }}
				res, err := resultset.Export(ictx, target, rs)
				icancel()
				if err != nil {
					// Export reads the source's rows while it writes: name
					// the side the error came from.
					var se sourceError
					if errors.As(err, &se) {
						return reading(fmt.Errorf("INST_ID %d: %w", inst, se.err))
					}
					return writing(fmt.Errorf("INST_ID %d: %w", inst, err))
				}
				results = append(results, copied{SourceInstID: inst, Result: res})
				prog.done(res.Rows)
				if !asJSON {
					prog.clear()
					fmt.Fprintf(cmd.OutOrStdout(), "INST_ID %d -> %s\n", inst, resultLine(res))
				}
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), results)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&from, "from", "", "source database `DSN`")
	f.StringVar(&to, "to", "", "target database `DSN`")
	f.StringVar(&fromSchema, "from-schema", "", "schema (database on MySQL) of the source tables")
	f.StringVar(&toSchema, "to-schema", "", "schema (database on MySQL) to write into")
	f.Int64SliceVar(&insts, "inst", nil, "`INST_ID` to copy; repeat for several (default: all)")
	f.Lookup("inst").DefValue = "" // "(default: all)" says it; not pflag's "(default [])" too
	f.BoolVar(&noCreate, "no-create", false, "never create tables at the target")
	f.StringVar(&bulk, "bulk", "auto", "write path at the target: auto or off")
	f.BoolVar(&asJSON, "json", false, "print the results as JSON")
	progressFlags(cmd, &quiet, &progressMode)
	retriesFlag(cmd, &retries)
	connFlags(cmd, &conn)
	return cmd
}

// sourceError marks an error of reading the source's rows.
type sourceError struct{ err error }

func (e sourceError) Error() string { return e.err.Error() }
func (e sourceError) Unwrap() error { return e.err }

// markSourceErrors makes the row iterators of rs wrap their errors in
// sourceError.
func markSourceErrors(rs *resultset.ResultSet) {
	for i := range rs.Tables {
		rows := rs.Tables[i].Rows
		rs.Tables[i].Rows = func(yield func([]any, error) bool) {
			for row, err := range rows {
				if err != nil {
					err = sourceError{err}
				}
				if !yield(row, err) {
					return
				}
			}
		}
	}
}

// showDSN returns " " and dsn without its password, or "" for a DSN whose
// scheme profdb does not know, where it cannot tell the password.
func showDSN(dsn string) string {
	if _, err := dialects.ForDSN(dsn); err != nil {
		return ""
	}
	return " " + dialects.Redact(dsn)
}

// copied is what copy --json prints of a result set: its INST_ID at the
// source and, as export prints them, its INST_ID and figures at the target.
type copied struct {
	SourceInstID int64 `json:"source_inst_id"`
	resultset.Result
}
