package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/report"
	"github.com/profdb/profdb/store"
)

func newReportCmd() *cobra.Command {
	var dsn, schema, out string
	var o report.Options
	cmd := &cobra.Command{
		Use:   "report [--db DSN] [--schema S] [--inst N]... [--source-root DIR] -o FILE.html",
		Short: "Write an HTML report of result sets",
		Long: `report writes one self-contained HTML file (inline CSS, JavaScript and SVG; it
loads nothing from the network) about the result sets (all, or those --inst
names): an index with each one's caption, profiler, rows and headline
figure, and per result set the figures of show as sortable, filterable
tables; for coverage the sources with covered and uncovered lines marked
when --source-root finds them, else the line table; for a function trace a
call tree and a flame graph. Lists hold --top entries, coverage lines
--max-lines and the call tree --max-nodes; the page says what it leaves out.`,
		Example: `  profdb report -o report.html
  profdb report --db postgres://me@db/prof --inst 12 --source-root ~/src/app -o run12.html`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usageErrorf("report: -o FILE.html is required")
			}
			ctx := cmd.Context()
			r, err := readback.Open(ctx, dsn, store.Options{Schema: schema, ReadOnly: true})
			if err != nil {
				return fmt.Errorf("report: %w", err)
			}
			defer r.Close()
			// Write next to the target and rename, so that a failed
			// report leaves no half-written file.
			tmp, err := os.CreateTemp(filepath.Dir(out), ".profdb-report-*")
			if err != nil {
				return fmt.Errorf("report: %w", err)
			}
			defer os.Remove(tmp.Name())
			if err := report.Write(ctx, r, tmp, o); err != nil {
				tmp.Close()
				return err
			}
			if err := tmp.Close(); err != nil {
				return fmt.Errorf("report: %w", err)
			}
			if err := os.Chmod(tmp.Name(), 0o644); err != nil {
				return fmt.Errorf("report: %w", err)
			}
			if err := os.Rename(tmp.Name(), out); err != nil {
				return fmt.Errorf("report: %w", err)
			}
			return nil
		},
	}
	dbFlag(cmd, &dsn)
	f := cmd.Flags()
	f.StringVar(&schema, "schema", "", "schema (database on MySQL) holding the tables")
	f.StringVarP(&out, "output", "o", "", "the HTML file to write")
	f.Int64SliceVar(&o.Inst, "inst", nil, "INST_ID of a result set to report (repeat; default all)")
	f.StringVar(&o.SourceRoot, "source-root", "", "folder where coverage sources are looked for")
	f.StringVar(&o.Title, "title", "", "page title (default \"profdb report\")")
	f.IntVar(&o.Top, "top", 200, "entries per list")
	f.IntVar(&o.MaxLines, "max-lines", 20000, "coverage lines embedded per result set")
	f.IntVar(&o.MaxNodes, "max-nodes", 1000, "call tree nodes embedded per result set")
	return cmd
}
