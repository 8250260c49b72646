package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/report"
	"github.com/profdb/profdb/selector"
	"github.com/profdb/profdb/store"
)

func newReportCmd(rep *ledger) *cobra.Command {
	var dsn, schema, out string
	var o report.Options
	var cmpAB bool
	var inst *instFlag
	var conn connOptions
	cmd := &cobra.Command{
		Use:   "report [--db DSN] [--schema S] [--inst N|A-B]... [--source-root DIR] [--compare A B] -o FILE.html",
		Short: "Write an HTML report of result sets",
		Long: `report writes one self-contained HTML file (inline CSS, JavaScript and SVG; it
loads nothing from the network) about the result sets (all, or those --inst
names): an index with each one's caption, profiler, rows and headline
figure, and per result set the figures of show as sortable, filterable
tables; for coverage the sources with covered and uncovered lines marked
when --source-root finds them (only files under it are read: no .., link
or absolute name leads out of it, and a file refused is a warning), else
the line table; for a function trace a
call tree and a flame graph. Lists hold --top entries, coverage lines
--max-lines and the call tree --max-nodes, --max-depth calls deep (deeper
calls are summed under the call at that depth); the page says what it
leaves out.

--inst and --compare's A and B take INST_IDs and selectors (latest,
branch:NAME, commit:SHA, label:KEY=VALUE, ancestor:REV, each with an optional
~N; docs/selectors.md); a selector for B picks among the result sets of A's
profiler other than A. --compare A B adds a page comparing result set B with
A, as profdb compare does (the report then holds A and B unless --inst says otherwise): its
tables, and for two function traces a differential flame graph, the shape
of B coloured by the change of each call route from A (red slower, blue
faster).`,
		Example: `  profdb report -o report.html
  profdb report --db postgres://me@db/prof --inst 12 --source-root ~/src/app -o run12.html
  profdb report --compare 12 14 -o before-after.html
  profdb report --compare branch:main latest -o change.html`,
		Args: usageArgs(func(cmd *cobra.Command, args []string) error {
			if cmpAB {
				return cobra.ExactArgs(2)(cmd, args)
			}
			return cobra.NoArgs(cmd, args)
		}),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageErrorf("report: -o FILE.html is required")
			}
			if _, err := inst.selection(); err != nil {
				return err
			}
			var cmpSels []selector.Selector
			if cmpAB {
				for _, s := range args {
					sel, err := parseSelector("report: --compare", s)
					if err != nil {
						return err
					}
					cmpSels = append(cmpSels, sel)
				}
			}
			stderr := cmd.ErrOrStderr()
			o.Warnf = func(format string, args ...any) {
				fmt.Fprintf(stderr, "profdb: warning: %s\n", termtext.Line(fmt.Sprintf(format, args...)))
			}
			ctx := cmd.Context()
			db, err := conn.open(ctx, dsn, store.Options{Schema: schema, ReadOnly: true})
			if err != nil {
				return err
			}
			defer db.Close()
			if cmpAB {
				a, err := resolveFirst(ctx, db, "report: --compare: A", cmpSels[0])
				if err != nil {
					return err
				}
				b, err := resolveSecond(ctx, db, "report: --compare: B", cmpSels[1], a)
				if err != nil {
					return err
				}
				o.Compare = []int64{a.InstID, b.InstID}
			}
			if o.Inst, err = inst.pick(ctx, db); err != nil {
				return fmt.Errorf("report: %w", err)
			}
			if !inst.given() {
				o.Inst = o.Compare // nil without --compare: all
			}
			r, err := readback.Begin(ctx, db)
			if err != nil {
				return fmt.Errorf("report: %w", err)
			}
			defer r.Close()
			// A failed report leaves no half-written file.
			return writeFileAtomic(out, func(w io.Writer) error { return report.Write(ctx, r, w, o) })
		},
	}
	dbFlag(cmd, &dsn)
	f := cmd.Flags()
	f.StringVar(&schema, "schema", "", "schema (database on MySQL) holding the tables")
	f.StringVarP(&out, "output", "o", "", "the HTML file to write")
	inst = addInstFlag(cmd, "report", "all, or the two of --compare")
	f.StringVar(&o.SourceRoot, "source-root", "", "folder where coverage sources are looked for; only files under it are read")
	f.StringVar(&o.Title, "title", "", "page title (default \"profdb report\")")
	positiveIntVar(f, &o.Top, "top", 200, "entries per list")
	positiveIntVar(f, &o.MaxLines, "max-lines", 20000, "coverage lines embedded per result set")
	positiveIntVar(f, &o.MaxNodes, "max-nodes", 1000, "call tree nodes embedded per result set")
	positiveIntVar(f, &o.MaxDepth, "max-depth", readback.DefaultMaxDepth, "calls along a route the call tree and flame graph show; deeper ones are folded")
	f.BoolVar(&cmpAB, "compare", false, "add a page comparing result set B with A, given as the two arguments A B")
	connFlags(cmd, &conn, rep)
	return cmd
}
