package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/store"
	"github.com/profdb/profdb/trend"
)

func newTrendCmd(rep *ledger) *cobra.Command {
	var dsn, schema, format string
	var asJSON bool
	var o trend.Options
	var conn connOptions
	var ff *filterFlags
	cmd := &cobra.Command{
		Use:     "trend [--db DSN] [--branch B] [--label K=V]... [--profiler P] [--since T] [--last N] [--file PATH | --routine NAME] [--top N] [--json | --format csv]",
		Short:   "Follow the figures of a series of result sets over time",
		Long:    trendLong,
		Example: trendExample,
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if o.Filter, err = ff.filter(time.Now()); err != nil {
				return err
			}
			if err := o.Check(); err != nil {
				return usageErrorf("trend: %w", err)
			}
			var write func(*trend.Trend) error
			switch {
			case asJSON && format != "" && format != "json":
				return usageErrorf("trend: --json and --format %s: give one of them", format)
			case asJSON || format == "json":
				write = func(t *trend.Trend) error { return t.WriteJSON(cmd.OutOrStdout()) }
			case format == "csv":
				write = func(t *trend.Trend) error { return t.WriteCSV(cmd.OutOrStdout()) }
			case format == "" || format == "text":
				write = func(t *trend.Trend) error {
					return t.WriteText(withTopHint(cmd.OutOrStdout()), termWidth(cmd.OutOrStdout()))
				}
			default:
				return usageErrorf("trend: --format must be text, json or csv, not %q", format)
			}
			ctx := cmd.Context()
			db, err := conn.open(ctx, dsn, store.Options{Schema: schema, ReadOnly: true})
			if err != nil {
				return err
			}
			defer db.Close()
			r, err := readback.Begin(ctx, db)
			if err != nil {
				return fmt.Errorf("trend: %w", err)
			}
			defer r.Close()
			t, err := trend.Compute(ctx, r, o)
			if err != nil {
				return err
			}
			return write(t)
		},
	}
	dbFlag(cmd, &dsn)
	f := cmd.Flags()
	f.StringVar(&schema, "schema", "", "schema (database on MySQL) holding the tables")
	ff = addFilterFlags(cmd, 100)
	f.StringVar(&o.File, "file", "", "add this source file's line coverage per run")
	f.StringVar(&o.Routine, "routine", "", "add this routine's figures per run (its full name, as show prints it)")
	positiveIntVar(f, &o.Top, "top", 10, "movers listed")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	f.StringVar(&format, "format", "", "output format: text (default), json or csv")
	connFlags(cmd, &conn, rep)
	return cmd
}

const trendLong = `trend prints the headline figures of the result sets the filters choose, of
one profiler, oldest first, with the figures show prints for each:

  light-coverage   line coverage and routine coverage
  function-trace   total time and calls
  resource         live objects and their size
  reference-count  objects alive at the end, and objects

The filters are list's: --branch, --commit, --label KEY=VALUE (repeatable),
--profiler, --since and --last N (the newest N; 100 unless given, 0 for
all). Result sets of several profilers are refused: name one with
--profiler. Function traces measured with different counters are refused
too (their times do not compare).

--file PATH adds one source file's line coverage per run (the name as the
result sets hold it, exactly); --routine NAME one routine's line coverage,
or its own time, time with children and calls (its full name as show
prints it, Namespace.Class::Name). A run without it shows "-".

The text has a sparkline per figure (▁ the smallest value of the series, █
the largest; all ▄ when they are equal) with its first and last value, a
table of the runs with their commit, branch and build, and the movers: the
--top source files (coverage), routines (own time) or classes (live
objects) whose figure changed most from the first run to the last. --json
prints the same as one JSON object; --format csv a row per run (the
series as columns; a cell from the data that a spreadsheet would read as a
formula gets a leading ').`

const trendExample = `  profdb trend --branch main --last 100
  profdb trend --profiler light-coverage --label suite=unit --file internal/parse.go
  profdb trend --profiler function-trace --routine main.handle --format csv > times.csv`
