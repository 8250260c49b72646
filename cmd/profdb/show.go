package main

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/profdb/profdb/internal/textout"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/store"
)

func newShowCmd(rep *ledger) *cobra.Command {
	var dsn, schema string
	var asJSON bool
	var topN int
	var conn connOptions
	cmd := &cobra.Command{
		Use:   "show [--db DSN] [--schema S] [--top N] [--json] RESULT_SET",
		Short: "Print the figures of one result set",
		Long: `show prints a summary of one result set, as AQTime's Summary panel gives it:

  light-coverage   % of lines and routines covered; modules and source files,
                   worst covered first; the least covered routines
  function-trace   the routines with the most time (own and with children)
                   and the most calls; threads
  resource         classes by live count and size; the routines that allocate
                   most; errors
  reference-count  classes and objects with their reference counts; objects
                   still alive at the end

RESULT_SET is an INST_ID or a selector: latest, branch:NAME, commit:SHA or
label:KEY=VALUE, each with an optional ~N, or ancestor:REV, ancestor~N:REV
(docs/selectors.md).
Lists hold the first --top entries and say how many there are in all. --json
prints the same figures as one JSON object.

Under the head line, show names the run where profdb recorded its identity
(docs/layout.md, "A run's identity"): its commit (the first 12 digits,
"+dirty" when the tree had changes not committed), branch, CI, build ID and
build URL, its labels and, for a merge, the INST_IDs it combined; nothing
for a result set without one (one AQTime wrote, an export with
--no-identity). --json gives it as the instance's "run", as list --json
does.`,
		Example: `  profdb show 1
  profdb show --db postgres://me@db/prof 12 --json
  profdb show latest
  profdb show branch:main~1`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			sel, err := parseSelector("show", args[0])
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			db, err := conn.open(ctx, dsn, store.Options{Schema: schema, ReadOnly: true})
			if err != nil {
				return err
			}
			defer db.Close()
			l, err := resolveFirst(ctx, db, "show", sel)
			if err != nil {
				return err
			}
			inst := l.InstID
			r, err := readback.Begin(ctx, db)
			if err != nil {
				return fmt.Errorf("show: %w", err)
			}
			defer r.Close()
			s, err := r.Summarize(ctx, inst, readback.Options{Top: topN})
			if err != nil {
				return fmt.Errorf("show: %w", err)
			}
			if asJSON {
				return s.WriteJSON(cmd.OutOrStdout())
			}
			return s.WriteText(withTopHint(cmd.OutOrStdout()), termWidth(cmd.OutOrStdout()))
		},
	}
	dbFlag(cmd, &dsn)
	cmd.Flags().StringVar(&schema, "schema", "", "schema (database on MySQL) holding the tables")
	positiveIntVar(cmd.Flags(), &topN, "top", 20, "entries per list")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	connFlags(cmd, &conn, rep)
	return cmd
}

// withTopHint returns w saying, under a table of show, compare or trend
// cut short, how to list more of it (textout.MoreHinter).
func withTopHint(w io.Writer) io.Writer {
	return textout.WithMoreHint(w, "--top sets how many are listed")
}

// termWidth is the width of the terminal w writes to, else $COLUMNS, else 100.
func termWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if width, _, err := term.GetSize(int(f.Fd())); err == nil && width > 20 {
			return width
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 20 {
		return n
	}
	return 100
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
