package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/report"
	"github.com/profdb/profdb/selector"
	"github.com/profdb/profdb/store"
	"github.com/profdb/profdb/trend"
)

// reportOptions are the flags of "profdb report".
type reportOptions struct {
	dsn, schema, out string
	page             report.Options
	cmpAB, asTrend   bool
	trend            trend.Options
	ff               *filterFlags
	inst             *instFlag
	conn             connOptions
}

func newReportCmd(rep *ledger) *cobra.Command {
	o := &reportOptions{}
	cmd := &cobra.Command{
		Use:     "report [--db DSN] [--schema S] [--inst N|A-B]... [--source-root DIR] [--compare A B | --trend [filters]] -o FILE.html",
		Short:   "Write an HTML report of result sets",
		Long:    reportLong,
		Example: reportExample,
		Args: usageArgs(func(cmd *cobra.Command, args []string) error {
			if o.cmpAB {
				return cobra.ExactArgs(2)(cmd, args)
			}
			return cobra.NoArgs(cmd, args)
		}),
		RunE: o.run,
	}
	dbFlag(cmd, &o.dsn)
	f := cmd.Flags()
	f.StringVar(&o.schema, "schema", "", "schema (database on MySQL) holding the tables")
	f.StringVarP(&o.out, "output", "o", "", "the HTML file to write")
	o.inst = addInstFlag(cmd, "report", "all, or the two of --compare")
	f.StringVar(&o.page.SourceRoot, "source-root", "", "folder where coverage sources are looked for; only files under it are read")
	f.StringVar(&o.page.Title, "title", "", "page title (default \"profdb report\")")
	positiveIntVar(f, &o.page.Top, "top", 200, "entries per list")
	positiveIntVar(f, &o.page.MaxLines, "max-lines", 20000, "coverage lines embedded per result set")
	positiveIntVar(f, &o.page.MaxNodes, "max-nodes", 1000, "call tree nodes embedded per result set")
	positiveIntVar(f, &o.page.MaxDepth, "max-depth", readback.DefaultMaxDepth, "calls along a route the call tree and flame graph show; deeper ones are folded")
	f.BoolVar(&o.cmpAB, "compare", false, "add a page comparing result set B with A, given as the two arguments A B")
	f.BoolVar(&o.asTrend, "trend", false, "write the page of a trend of the result sets the filters choose instead")
	o.ff = addFilterFlags(cmd, 100)
	for _, name := range []string{"profiler", "branch", "commit", "label", "since", "last"} {
		f.Lookup(name).Usage = "with --trend: " + f.Lookup(name).Usage
	}
	f.StringVar(&o.trend.File, "file", "", "with --trend: add this source file's line coverage per run")
	f.StringVar(&o.trend.Routine, "routine", "", "with --trend: add this routine's figures per run (its full name, as show prints it)")
	connFlags(cmd, &o.conn, rep)
	return cmd
}

// run writes the report the flags ask for.
func (o *reportOptions) run(cmd *cobra.Command, args []string) error {
	if o.out == "" {
		return usageErrorf("report: -o FILE.html is required")
	}
	if _, err := o.inst.items(); err != nil {
		return err
	}
	page := o.page
	if err := o.trendPage(cmd, &page); err != nil {
		return err
	}
	var cmpSels []selector.Selector
	if o.cmpAB {
		for _, s := range args {
			sel, err := parseSelector("report: --compare", s)
			if err != nil {
				return err
			}
			cmpSels = append(cmpSels, sel)
		}
	}
	stderr := cmd.ErrOrStderr()
	page.Warnf = func(format string, args ...any) {
		fmt.Fprintf(stderr, "profdb: warning: %s\n", termtext.Line(fmt.Sprintf(format, args...)))
	}
	ctx := cmd.Context()
	db, err := o.conn.open(ctx, o.dsn, store.Options{Schema: o.schema, ReadOnly: true})
	if err != nil {
		return err
	}
	defer db.Close()
	if o.cmpAB {
		a, err := resolveFirst(ctx, db, "report: --compare: A", cmpSels[0])
		if err != nil {
			return err
		}
		b, err := resolveSecond(ctx, db, "report: --compare: B", cmpSels[1], a)
		if err != nil {
			return err
		}
		page.Compare = []int64{a.InstID, b.InstID}
	}
	if page.Inst, err = o.inst.pick(ctx, db); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if !o.inst.given() {
		page.Inst = page.Compare // nil without --compare: all
	}
	r, err := readback.Begin(ctx, db)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer r.Close()
	// A failed report leaves no half-written file.
	return writeFileAtomic(o.out, func(w io.Writer) error { return report.Write(ctx, r, w, page) })
}

// trendPage sets page.Trend with --trend, from the filter flags, which
// are refused without it.
func (o *reportOptions) trendPage(cmd *cobra.Command, page *report.Options) error {
	if !o.asTrend {
		for _, name := range []string{"profiler", "branch", "commit", "label", "since", "last", "file", "routine"} {
			if cmd.Flags().Changed(name) {
				return usageErrorf("report: --%s chooses the result sets of a trend: give --trend with it", name)
			}
		}
		return nil
	}
	if o.cmpAB || o.inst.given() || page.SourceRoot != "" {
		return usageErrorf("report: --trend makes a page of its own: give no --compare, --inst or --source-root with it")
	}
	if err := o.trend.Check(); err != nil {
		return usageErrorf("report: %w", err)
	}
	f, err := o.ff.filter(time.Now())
	if err != nil {
		return err
	}
	to := o.trend
	to.Filter, to.Top = f, page.Top
	page.Trend = &to
	return nil
}

const reportLong = `report writes one self-contained HTML file (inline CSS, JavaScript and SVG; it
loads nothing from the network) about the result sets (all, or those --inst
names): an index with each one's caption, profiler, rows and headline
figure, and per result set its run's identity as show gives it (the build
linked when its URL is http or https) and the figures of show as sortable,
filterable tables; for coverage the sources with covered and uncovered lines marked
when --source-root finds them (only files under it are read: no .., link
or absolute name leads out of it, and a file refused is a warning), else
the line table; for a function trace a
call tree and a flame graph. Lists hold --top entries, coverage lines
--max-lines and the call tree --max-nodes, --max-depth calls deep (deeper
calls are summed under the call at that depth); the page says what it
leaves out.

--inst and --compare's A and B take INST_IDs and selectors (latest,
branch:NAME, commit:SHA, label:KEY=VALUE, each with an optional ~N, or
ancestor:REV, ancestor~N:REV; docs/selectors.md); a selector for B picks
among the result sets of A's profiler, newest first, A counted among them
(--compare latest latest~1: the newest and the one before it), passing
over A when it has no ~N and A is its newest match; one with ~N that names
A itself is a usage error. --compare A B adds a page comparing result set B with
A, as profdb compare does (the report then holds A and B unless --inst says otherwise): its
tables, and for two function traces a differential flame graph, the shape
of B coloured by the change of each call route from A (red slower, blue
faster).

--trend makes the page a trend instead, as profdb trend prints it: the
result sets the filters choose (--branch, --commit, --label, --profiler,
--since, --last N, as in trend; the newest 100 unless --last says
otherwise), with a line chart per unit of their figures over the runs (line
and routine coverage; total time and calls; live objects and size), drawn
as inline SVG. Each point is a run: its title names the INST_ID, commit,
branch, build and value, and it links to the run's row in the table below,
which links to the build's page when its URL is http or https. --file and
--routine add one file's or routine's figures; the movers table lists the
--top items whose figure changed most from the first run to the last.`

const reportExample = `  profdb report -o report.html
  profdb report --db postgres://me@db/prof --inst 12 --source-root ~/src/app -o run12.html
  profdb report --compare 12 14 -o before-after.html
  profdb report --compare branch:main latest -o change.html
  profdb report --trend --branch main --profiler light-coverage -o coverage-trend.html`
