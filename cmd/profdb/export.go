package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/input"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// defaultDB is where profdb writes when --db is not given: a SQLite file in
// the current folder.
const defaultDB = "sqlite:profdb.db"

// dbFlag adds --db to a command.
func dbFlag(cmd *cobra.Command, dsn *string) {
	cmd.Flags().StringVar(dsn, "db", defaultDB,
		"database `DSN`: sqlite:PATH, postgres://…, mysql://user:pass@host:port/db, sqlserver://user:pass@host:port?database=db")
}

// exportOptions are the flags of "profdb export".
type exportOptions struct {
	dsn, caption, schema, format, bulk, sourceRoot string
	noCreate, quiet, asJSON, skipMissing           bool
	sqlOut, dialect                                string // --sql-out FILE --dialect D: write a script (sqlout.go)
	dbSet                                          bool   // --db was given
}

func newExportCmd() *cobra.Command {
	var o exportOptions
	cmd := &cobra.Command{
		Use:   "export [--db DSN] [flags] FILE...",
		Short: "Export profiler results into a database",
		Long: `export reads profiler results and writes each result set into the database
as one new INST_ID, in one transaction: a result set that fails leaves no
trace, and one that a reader can see is complete.

Input formats are detected from the content (--format overrides): interchange
JSON (docs/interchange.md), ProfilerJ XML snapshots, Go coverage profiles and
LCOV tracefiles. "-" reads standard input.

Missing tables are created unless --no-create is given; existing tables are
found case-insensitively and checked: a value that does not fit a column
fails the export, naming table, column and row.

With --sql-out FILE --dialect D, export writes a SQL script instead of
touching a database: the tables' DDL, then every result set as INSERTs in
one transaction, with INST_IDs assigned by the script when it runs, so that
it appends to a database that already holds result sets.`,
		Example: `  profdb export examples/function-trace.json
  profdb export --db postgres://user@db.example.com/prof --schema aqtime run.json
  go test -coverprofile=c.out ./... && profdb export c.out
  profdb export --sql-out run.sql --dialect postgres run.json && psql -v ON_ERROR_STOP=1 -d prof -f run.sql`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.dbSet = cmd.Flags().Changed("db")
			if o.sqlOut != "" || o.dialect != "" {
				return o.runSQLOut(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), cmd.InOrStdin(), args)
			}
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), cmd.InOrStdin(), args)
		},
	}
	dbFlag(cmd, &o.dsn)
	sqlOutFlags(cmd, &o)
	f := cmd.Flags()
	f.StringVar(&o.caption, "caption", "", "caption of the result set (only for input holding one result set)")
	f.BoolVar(&o.noCreate, "no-create", false, "never create tables: a missing table is an error")
	f.StringVar(&o.schema, "schema", "", "existing PostgreSQL or SQL Server schema, or MySQL database, to write into")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress bar")
	f.BoolVar(&o.asJSON, "json", false, "print the results as JSON")
	f.StringVar(&o.bulk, "bulk", "auto", "write path: auto (the database's native bulk load where available) or off (batched INSERT)")
	f.StringVar(&o.format, "format", "", "input format: "+strings.Join(input.Names(), ", ")+" (default: detected)")
	f.StringVar(&o.sourceRoot, "source-root", "", "where Go coverage profiles find their sources (default: the module in the current folder)")
	f.BoolVar(&o.skipMissing, "skip-missing", false, "warn about, instead of failing on, missing source files of a Go coverage profile")
	return cmd
}

func (o *exportOptions) run(ctx context.Context, stdout, stderr io.Writer, stdin io.Reader, files []string) error {
	bulk, err := exporter.ParseBulkMode(o.bulk)
	if err != nil {
		return usageErrorf("--bulk: want auto or off, got %q", o.bulk)
	}
	if o.format != "" {
		if _, err := input.Lookup(o.format); err != nil {
			return usageErrorf("--format %q: want one of %s", o.format, strings.Join(input.Names(), ", "))
		}
	}
	prog := newProgress(stderr, o.quiet)
	defer prog.finish()
	opts := exporter.Options{NoCreate: o.noCreate, Schema: o.schema, Bulk: bulk, Progress: prog.set,
		Logf: func(format string, args ...any) { prog.log(stderr, format, args...) }}
	db, err := exporter.Open(ctx, o.dsn, opts)
	if err != nil {
		return err
	}
	defer db.Close()
	var target exporter.Target = db
	if o.caption != "" {
		target = &captionTarget{Target: target, caption: o.caption}
	}
	in := input.Options{SourceRoot: o.sourceRoot, SkipMissing: o.skipMissing,
		Warnf: func(format string, args ...any) { prog.log(stderr, "warning: "+format, args...) }}
	var all []exporter.Result
	for _, file := range files {
		results, err := readFile(ctx, file, o.format, stdin, target, in)
		for _, r := range results {
			prog.done(r.Rows)
			if !o.asJSON {
				prog.clear()
				fmt.Fprintln(stdout, resultLine(r))
			}
		}
		all = append(all, results...)
		if err != nil {
			if o.asJSON {
				writeJSON(stdout, all)
			}
			return err
		}
	}
	if o.asJSON {
		return writeJSON(stdout, all)
	}
	return nil
}

// resultLine is the line export prints for a result set.
func resultLine(r exporter.Result) string {
	return fmt.Sprintf("INST_ID %d  %s  %d rows  %s", r.InstID, r.Profiler, r.Rows, strconv.Quote(r.Caption))
}

func writeJSON(w io.Writer, v any) error {
	if s, ok := v.([]exporter.Result); ok && s == nil {
		v = []exporter.Result{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// readFile reads one input file ("-" for standard input) into the target.
func readFile(ctx context.Context, file, format string, stdin io.Reader, t exporter.Target, o input.Options) ([]exporter.Result, error) {
	if file == "-" {
		return input.Read(ctx, format, stdin, "<stdin>", t, o)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return input.Read(ctx, format, f, file, t, o)
}

// captionTarget gives the one result set it passes on the caption of
// --caption.
type captionTarget struct {
	exporter.Target
	caption string
	begun   bool
}

func (c *captionTarget) Begin(ctx context.Context, h exporter.Header) (exporter.ResultWriter, error) {
	if c.begun {
		return nil, fmt.Errorf("--caption names a single result set, and the input holds more than one")
	}
	c.begun = true
	h.Caption = c.caption
	w, err := c.Target.Begin(ctx, h)
	if err != nil {
		return nil, err
	}
	return captionWriter{w, c.caption}, nil
}

type captionWriter struct {
	exporter.ResultWriter
	caption string
}

func (w captionWriter) SetHeader(h exporter.Header) error {
	h.Caption = w.caption
	return w.ResultWriter.SetHeader(h)
}

// progress shows rows written and rows per second on a terminal.
type progress struct {
	bar  *progressbar.ProgressBar
	base int64 // rows of result sets already finished
}

func newProgress(stderr io.Writer, quiet bool) *progress {
	p := &progress{}
	f, ok := stderr.(*os.File)
	if quiet || !ok || !term.IsTerminal(int(f.Fd())) {
		return p
	}
	p.bar = progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetDescription("exporting"),
		progressbar.OptionSetItsString("rows"),
		progressbar.OptionShowIts(),
		progressbar.OptionShowCount(),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionClearOnFinish(),
	)
	return p
}

func (p *progress) set(rows int64) {
	if p.bar != nil {
		p.bar.Set64(p.base + rows)
	}
}

func (p *progress) done(rows int64) { p.base += rows }

func (p *progress) clear() {
	if p.bar != nil {
		p.bar.Clear()
	}
}

func (p *progress) log(w io.Writer, format string, args ...any) {
	p.clear()
	fmt.Fprintf(w, "profdb: "+format+"\n", args...)
}

func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}

func newListCmd() *cobra.Command {
	var dsn, schema string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [--db DSN] [--json]",
		Short: "List the result sets in a database",
		Long: `list prints the result sets in INSTANCES: each one's INST_ID, profiler (found
from its RELATIONS rows), row count and caption.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := exporter.Open(cmd.Context(), dsn, exporter.Options{Schema: schema})
			if err != nil {
				return err
			}
			defer db.Close()
			list, err := db.List(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				if list == nil {
					list = []exporter.Listing{}
				}
				return writeJSON(cmd.OutOrStdout(), list)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "INST_ID\tPROFILER\tROWS\tCAPTION")
			for _, l := range list {
				p := l.Profiler
				if p == "" {
					p = "?"
				}
				fmt.Fprintf(tw, "%d\t%s\t%d\t%s\n", l.InstID, p, l.Rows, strconv.Quote(l.Caption))
			}
			return tw.Flush()
		},
	}
	dbFlag(cmd, &dsn)
	cmd.Flags().StringVar(&schema, "schema", "", "schema (database on MySQL) holding the tables")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newVerifyCmd() *cobra.Command {
	var dsn, schema string
	var inst int64
	cmd := &cobra.Command{
		Use:   "verify [--db DSN] [--inst N]",
		Short: "Check result sets against the profilers' table graph",
		Long: `verify checks result sets (all, or the one --inst names): their RELATIONS rows
match the registered parent graph, every child row's PARENT_ID names an
existing parent row of the same INST_ID, top-level rows hold -1 there, and no
table holds rows of a result set INSTANCES does not list. It prints what it
finds and exits non-zero if it finds anything.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := exporter.Open(cmd.Context(), dsn, exporter.Options{Schema: schema})
			if err != nil {
				return err
			}
			defer db.Close()
			findings, err := db.Verify(cmd.Context(), inst)
			if err != nil {
				return err
			}
			for _, f := range findings {
				fmt.Fprintln(cmd.OutOrStdout(), f)
			}
			if len(findings) > 0 {
				return fmt.Errorf("verify: %d finding(s)", len(findings))
			}
			fmt.Fprintln(cmd.OutOrStdout(), "ok")
			return nil
		},
	}
	dbFlag(cmd, &dsn)
	cmd.Flags().StringVar(&schema, "schema", "", "schema (database on MySQL) holding the tables")
	cmd.Flags().Int64Var(&inst, "inst", 0, "check only this INST_ID")
	return cmd
}

func newDeleteCmd() *cobra.Command {
	var dsn, schema string
	var inst int64
	cmd := &cobra.Command{
		Use:   "delete [--db DSN] --inst N",
		Short: "Remove one result set from every table",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if inst == 0 {
				return usageErrorf("--inst is required")
			}
			db, err := exporter.Open(cmd.Context(), dsn, exporter.Options{Schema: schema})
			if err != nil {
				return err
			}
			defer db.Close()
			n, err := db.Delete(cmd.Context(), inst)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "deleted INST_ID %d (%d rows)\n", inst, n)
			return nil
		},
	}
	dbFlag(cmd, &dsn)
	cmd.Flags().StringVar(&schema, "schema", "", "schema (database on MySQL) holding the tables")
	cmd.Flags().Int64Var(&inst, "inst", 0, "the INST_ID to delete (required)")
	return cmd
}
