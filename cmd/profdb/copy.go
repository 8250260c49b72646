package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/textout"
	"github.com/profdb/profdb/store"
)

// copyOptions are the flags of "profdb copy".
type copyOptions struct {
	from, to, fromSchema, toSchema, bulk, progressMode string
	inst                                               *instFlag
	noCreate, noDistribute, asJSON, quiet              bool
	retries                                            int
	conn                                               connOptions
	identity                                           identityOptions
}

func newCopyCmd(rep *ledger) *cobra.Command {
	var o copyOptions
	cmd := &cobra.Command{
		Use:   "copy --from DSN --to DSN [--inst N|A-B]...",
		Short: "Copy result sets between databases",
		Long: `copy reads result sets from one database and exports each into another, of
any dialects. Every copied result set gets a new INST_ID at the target, its
tables and parent links are preserved, and it is written in one transaction
like any export: a failure leaves no trace of it at the target, and a
conflict with a concurrent transaction is retried (--retries). Without
--inst every result set of the source is copied; --inst takes INST_IDs and
ranges A-B (3,5 or 10-20), as every command does. The source is only read
(a missing SQLite file is an error, never created), each result set in
one consistent snapshot.`,
		Example: `  profdb copy --from sqlite:profdb.db --to postgres://user@db/prof
  profdb copy --from mysql://u:p@h/prof --to sqlite:local.db --inst 3 --inst 7-9`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.from == "" || o.to == "" {
				return usageErrorf("--from and --to are required")
			}
			mode, err := exporter.ParseBulkMode(o.bulk)
			if err != nil {
				return usageErrorf("--bulk: want auto or off, got %q", o.bulk)
			}
			if o.retries < 0 {
				return usageErrorf("--retries: want 0 or more, got %d", o.retries)
			}
			if _, err := o.inst.items(); err != nil {
				return err
			}
			if _, err := o.identity.given(); err != nil {
				return err
			}
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), mode)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.from, "from", "", "source database `DSN`")
	f.StringVar(&o.to, "to", "", "target database `DSN`")
	f.StringVar(&o.fromSchema, "from-schema", "", "schema (database on MySQL) of the source tables")
	f.StringVar(&o.toSchema, "to-schema", "", "schema (database on MySQL) to write into")
	o.inst = addInstFlag(cmd, "copy", "all")
	f.BoolVar(&o.noCreate, "no-create", false, "never create tables at the target")
	noDistributeFlag(cmd, &o.noDistribute)
	f.StringVar(&o.bulk, "bulk", "auto", "write path at the target: auto or off")
	f.BoolVar(&o.asJSON, "json", false, "print the results as JSON")
	progressFlags(cmd, &o.quiet, &o.progressMode)
	retriesFlag(cmd, &o.retries)
	identityFlags(cmd, &o.identity, true)
	connFlags(cmd, &o.conn, rep)
	return cmd
}

// reading and writing name the side of an error and its database, without
// password.
func (o *copyOptions) reading(err error) error {
	return fmt.Errorf("reading source%s: %w", showDSN(o.from), dialects.ScrubError(o.from, err))
}

func (o *copyOptions) writing(err error) error {
	return fmt.Errorf("writing target%s: %w", showDSN(o.to), dialects.ScrubError(o.to, err))
}

// run copies the result sets --inst names, or all, from --from to --to.
func (o *copyOptions) run(ctx context.Context, stdout, stderr io.Writer, mode exporter.BulkMode) error {
	src, err := o.conn.open(ctx, o.from, store.Options{Schema: o.fromSchema, ReadOnly: true})
	if err != nil {
		return o.reading(err)
	}
	defer src.Close()
	insts, total, err := o.selected(ctx, src, showsProgress(stderr, o.progressMode, o.quiet))
	if err != nil {
		return o.reading(err)
	}
	prog, err := newProgress(stderr, o.progressMode, o.quiet, false, total)
	if err != nil {
		return err
	}
	defer prog.finish()
	dstDB, err := o.conn.open(ctx, o.to, store.Options{Schema: o.toSchema, NoCreate: o.noCreate, Phase: prog.setPhase,
		Logf: func(format string, args ...any) { prog.log(stderr, format, args...) }})
	if err != nil {
		return o.writing(err)
	}
	defer dstDB.Close()
	dst := exporter.New(dstDB, exporter.Options{Bulk: mode, Retries: o.retries, Version: versionLine(), Progress: prog.set,
		NoDistribute: o.noDistribute})
	obs := copyObserver{r: o.conn.rep, prog: prog, stdout: stdout, quiet: o.asJSON}
	given, err := o.identity.given()
	if err != nil {
		return err
	}
	target := runTarget{Target: dst, given: given, drop: o.identity.none}
	results, err := exporter.Copy(ctx, src, target, insts, exporter.CopyOptions{Observer: obs,
		Input: func(inst int64) string { return fmt.Sprintf("INST_ID %d of %s", inst, dialects.Redact(o.from)) }})
	var ce *exporter.CopyError
	switch {
	case errors.As(err, &ce) && ce.Source:
		return o.reading(fmt.Errorf("INST_ID %d: %w", ce.InstID, ce.Err))
	case errors.As(err, &ce):
		return o.writing(fmt.Errorf("INST_ID %d: %w", ce.InstID, ce.Err))
	case err != nil:
		return err
	case o.asJSON:
		return textout.WriteJSON(stdout, results)
	}
	return nil
}

// selected returns the INST_IDs to copy (--inst, or every one of src) and,
// when counted, the total of their rows, as the source counts them.
func (o *copyOptions) selected(ctx context.Context, src *store.DB, counted bool) ([]int64, int64, error) {
	picked, err := o.inst.pick(ctx, src)
	if err != nil {
		return nil, 0, err
	}
	if !counted {
		// No progress to show: counting every table's rows for its
		// total would only cost time (a read of every index entry).
		if o.inst.given() {
			return picked, 0, nil
		}
		insts, err := src.InstIDs(ctx)
		return insts, 0, err
	}
	var list []store.Listing
	if o.inst.given() {
		list, err = src.ListOf(ctx, picked)
	} else {
		list, err = src.List(ctx)
	}
	if err != nil {
		return nil, 0, err
	}
	insts := picked // ListOf lists those picked, and no other
	var total int64
	for _, l := range list {
		total += l.Rows
		if !o.inst.given() {
			insts = append(insts, l.InstID)
		}
	}
	return insts, total, nil
}

// showDSN returns " " and dsn without its password, or "" for a DSN whose
// scheme profdb does not know, where it cannot tell the password.
func showDSN(dsn string) string {
	if _, err := dialects.ForDSN(dsn); err != nil {
		return ""
	}
	return " " + dialects.Redact(dsn)
}

// copyObserver records the copy of each result set in the ledger and
// reports each one copied.
type copyObserver struct {
	r      *ledger
	prog   *progress
	stdout io.Writer
	quiet  bool // --json: the results are printed at the end
}

func (o copyObserver) Reading(inst int64) {
	o.r.start(fmt.Sprintf("copy of INST_ID %d", inst), "nothing of it written")
}

func (o copyObserver) Committing(int64) { o.r.committing() }

func (o copyObserver) Committed(c exporter.Copied) {
	o.r.finish(fmt.Sprintf("INST_ID %d -> INST_ID %d", c.SourceInstID, c.InstID))
	o.prog.done(c.Rows)
	if !o.quiet {
		o.prog.clear()
		fmt.Fprintln(o.stdout, c.Line())
	}
}

func (o copyObserver) RolledBack(int64) { o.r.abandon() }
