package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// noDistributeFlag adds --no-distribute to a command that creates tables.
func noDistributeFlag(cmd *cobra.Command, v *bool) {
	cmd.Flags().BoolVar(v, "no-distribute", false,
		"on a Citus cluster, keep the tables profdb creates plain (on the coordinator) instead of distributing them by INST_ID")
}

// retriesFlag adds --retries to a command that writes result sets.
func retriesFlag(cmd *cobra.Command, n *int) {
	cmd.Flags().IntVar(n, "retries", exporter.DefaultRetries,
		"times a result set is written again, after a growing pause, when the server aborts it for a conflict with a concurrent transaction (a deadlock, a serialization failure, a Galera certification conflict); 0: never")
}

// maxInflateFlag adds --max-inflate to a command that reads inputs.
func maxInflateFlag(cmd *cobra.Command, n *int64) {
	cmd.Flags().Var((*sizeValue)(n), "max-inflate",
		fmt.Sprintf("the most a compressed input (a gzipped pprof profile) may decompress to, in bytes or with K, M, G (1024s) after the number (default: %d times its compressed size, at least %s)",
			input.InflateRatio, input.Size(input.InflateFloor)))
}

// sizeValue is a flag's size in bytes (input.ParseSize).
type sizeValue int64

func (v *sizeValue) String() string {
	if *v == 0 {
		return ""
	}
	return strconv.FormatInt(int64(*v), 10)
}

func (v *sizeValue) Set(s string) error {
	n, err := input.ParseSize(s)
	if err != nil {
		return err
	}
	*v = sizeValue(n)
	return nil
}

func (v *sizeValue) Type() string { return "SIZE" }

// exportOptions are the flags of "profdb export".
type exportOptions struct {
	dsn, caption, schema, format, bulk, sourceRoot   string
	noCreate, quiet, asJSON, skipMissing, allowEmpty bool
	retries                                          int
	maxInflate                                       int64  // --max-inflate, 0: the default
	rowKey, citus                                    bool   // --primary-key, --citus, with --sql-out
	noDistribute                                     bool   // --no-distribute
	sqlOut, dialect                                  string // --sql-out FILE --dialect D: write a script (sqlout.go)
	progress                                         string // --progress
	dbSet                                            bool   // --db was given
	conn                                             connOptions
	identity                                         identityOptions
}

func newExportCmd(rep *ledger) *cobra.Command {
	var o exportOptions
	cmd := &cobra.Command{
		Use:   "export [--db DSN] [flags] FILE...",
		Short: "Export profiler results into a database",
		Long: `export reads profiler results and writes each result set into the database
as one new INST_ID, in one transaction: a result set that fails leaves no
trace, and one that a reader can see is complete.

Input formats are detected from the content (--format overrides): interchange
JSON (docs/interchange.md), ProfilerJ XML snapshots, Go coverage profiles,
LCOV tracefiles and Go pprof CPU and heap profiles. "-" reads standard input.

Missing tables are created unless --no-create is given; on a Citus
coordinator with workers, the tables export creates are distributed by
INST_ID (the shared ones made reference tables) unless --no-distribute is
given (docs/clusters.md). Existing tables are used as they are, found
case-insensitively and checked: a value that does not fit a column
fails the export, naming table, column and row. Before it commits, export
checks the result set as verify does (parents exist, IDs unique per table,
RELATIONS complete) and refuses one that fails, naming table and row IDs.

When the server aborts a result set's transaction for a conflict with a
concurrent one (a deadlock; a serialization failure; on a Galera cluster,
two exporters on different nodes that took the same INST_ID), the result set
is rolled back and written again after a growing pause, up to --retries
times, with a note on standard error.

With --sql-out FILE --dialect D, export writes a SQL script instead of
touching a database: the tables' DDL, then every result set as INSERTs in
one transaction, with INST_IDs assigned by the script when it runs, so that
it appends to a database that already holds result sets (profdb script
is the same command).`,
		Example: `  profdb export examples/function-trace.json
  profdb export --db postgres://user@db.example.com/prof --schema aqtime run.json
  go test -coverprofile=c.out ./... && profdb export c.out
  profdb export --sql-out run.sql --dialect postgres run.json && psql -v ON_ERROR_STOP=1 -d prof -f run.sql`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.dbSet = cmd.Flags().Changed("db")
			if o.sqlOut != "" || o.dialect != "" || o.rowKey || o.citus {
				return o.runSQLOut(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), cmd.InOrStdin(), args)
			}
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), cmd.InOrStdin(), args)
		},
	}
	dbFlag(cmd, &o.dsn)
	sqlOutFlags(cmd, &o)
	f := cmd.Flags()
	f.StringVar(&o.caption, "caption", "", "caption of every result set exported, in place of the input's (all get the same one)")
	f.BoolVar(&o.noCreate, "no-create", false, "never create tables: a missing table is an error")
	noDistributeFlag(cmd, &o.noDistribute)
	f.StringVar(&o.schema, "schema", "", "existing PostgreSQL or SQL Server schema, or MySQL database, to write into")
	progressFlags(cmd, &o.quiet, &o.progress)
	f.BoolVar(&o.asJSON, "json", false, "print the results as JSON")
	f.StringVar(&o.bulk, "bulk", "auto", "write path: auto (the database's native bulk load where available) or off (batched INSERT)")
	f.StringVar(&o.format, "format", "", "input format: "+strings.Join(input.Names(), ", ")+" (default: detected)")
	f.StringVar(&o.sourceRoot, "source-root", "", "where Go coverage profiles find their sources (default: the module in the current folder); the folder Cobertura and JaCoCo file names are joined to")
	f.BoolVar(&o.skipMissing, "skip-missing", false, "warn about, instead of failing on, missing source files of a Go coverage profile")
	maxInflateFlag(cmd, &o.maxInflate)
	retriesFlag(cmd, &o.retries)
	f.BoolVar(&o.allowEmpty, "allow-empty", false, "accept an input holding no result set (it is an error otherwise)")
	identityFlags(cmd, &o.identity, false)
	connFlags(cmd, &o.conn, rep)
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
	if o.retries < 0 {
		return usageErrorf("--retries: want 0 or more, got %d", o.retries)
	}
	run, err := o.identity.capture(ctx)
	if err != nil {
		return err
	}
	// The total is the size of the input files (unknown for standard input).
	var total int64
	for _, file := range files {
		fi, err := os.Stat(file)
		if file == "-" || err != nil || !fi.Mode().IsRegular() {
			total = -1
			break
		}
		total += fi.Size()
	}
	prog, err := newProgress(stderr, o.progress, o.quiet, true, total)
	if err != nil {
		return err
	}
	defer prog.finish()
	db, err := o.conn.open(ctx, o.dsn, store.Options{NoCreate: o.noCreate, Schema: o.schema, Phase: prog.setPhase,
		Logf: func(format string, args ...any) { prog.log(stderr, format, args...) }})
	if err != nil {
		return err
	}
	defer db.Close()
	x := exporter.New(db, exporter.Options{Bulk: bulk, Progress: prog.set, Retries: o.retries, Version: versionLine(),
		NoDistribute: o.noDistribute})
	var target resultset.Target = runTarget{Target: ledgerTarget{Target: x, r: o.conn.rep}, base: run}
	if o.caption != "" {
		target = &captionTarget{Target: target, caption: o.caption}
	}
	in := input.Options{SourceRoot: o.sourceRoot, SkipMissing: o.skipMissing, MaxInflate: o.maxInflate,
		Warnf: func(format string, args ...any) { prog.log(stderr, "warning: "+format, args...) },
		Notef: func(format string, args ...any) {
			if !o.quiet {
				prog.log(stderr, format, args...)
			}
		}}
	var all []resultset.Result
	for _, file := range files {
		results, err := readFile(ctx, file, o.format, stdin, inputTarget{target, inputName(file)}, in,
			func(r io.Reader) io.Reader { return countingReader{r, prog} })
		for _, r := range results {
			prog.done(r.Rows)
		}
		if !o.asJSON && len(results) > 0 {
			prog.clear()
			resultset.Results(results).WriteText(stdout)
		}
		all = append(all, results...)
		if err == nil && len(results) == 0 {
			err = o.empty(stderr, file)
		}
		if err != nil {
			if o.asJSON {
				resultset.Results(all).WriteJSON(stdout)
			}
			return err
		}
	}
	if o.asJSON {
		return resultset.Results(all).WriteJSON(stdout)
	}
	return nil
}

// empty handles an input that held no result set: an error, or with
// --allow-empty a note.
func (o *exportOptions) empty(stderr io.Writer, file string) error {
	if file == "-" {
		file = "<stdin>"
	}
	if !o.allowEmpty {
		return fmt.Errorf("%s: holds no result set, nothing written (--allow-empty accepts that)", file)
	}
	fmt.Fprintf(stderr, "profdb: %s: holds no result set\n", termtext.Line(file))
	return nil
}

// readFile reads one input file ("-" for standard input) into the target.
// wrap, if not nil, wraps the reader of the input.
func readFile(ctx context.Context, file, format string, stdin io.Reader, t resultset.Target, o input.Options, wrap func(io.Reader) io.Reader) ([]resultset.Result, error) {
	if wrap == nil {
		wrap = func(r io.Reader) io.Reader { return r }
	}
	if file == "-" {
		return input.Read(ctx, format, wrap(stdin), "<stdin>", t, o)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory: give the files in it", file)
	}
	return input.Read(ctx, format, wrap(f), file, t, o)
}

// inputTarget records input as the Input of every result set it passes on
// that names none.
type inputTarget struct {
	resultset.Target
	input string
}

func (t inputTarget) Begin(ctx context.Context, h resultset.Header) (resultset.ResultWriter, error) {
	if h.Input == "" {
		h.Input = t.input
	}
	return t.Target.Begin(ctx, h)
}

// inputName is how PROFDB_RESULT_SETS names an input file: its absolute
// path, or "-" for standard input.
func inputName(file string) string {
	if file == "-" {
		return file
	}
	if abs, err := filepath.Abs(file); err == nil {
		return abs
	}
	return file
}

// captionTarget gives every result set it passes on the caption of
// --caption, in place of the input's.
type captionTarget struct {
	resultset.Target
	caption string
}

func (c *captionTarget) Begin(ctx context.Context, h resultset.Header) (resultset.ResultWriter, error) {
	h.Caption = c.caption
	w, err := c.Target.Begin(ctx, h)
	if err != nil {
		return nil, err
	}
	return captionWriter{w, c.caption}, nil
}

type captionWriter struct {
	resultset.ResultWriter
	caption string
}

func (w captionWriter) SetHeader(h resultset.Header) error {
	h.Caption = w.caption
	return w.ResultWriter.SetHeader(h)
}
