package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize/english"
	"github.com/spf13/cobra"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// defaultDB is where profdb writes when --db is not given: a SQLite file in
// the current folder.
const defaultDB = "sqlite:profdb.db"

// dbFlag adds --db to a command.
func dbFlag(cmd *cobra.Command, dsn *string) {
	cmd.Flags().StringVar(dsn, "db", defaultDB,
		"database `DSN`: sqlite:PATH, postgres://…, mysql://user:pass@host:port/db, sqlserver://user:pass@host:port?database=db")
}

// retriesFlag adds --retries to a command that writes result sets.
func retriesFlag(cmd *cobra.Command, n *int) {
	cmd.Flags().IntVar(n, "retries", exporter.DefaultRetries,
		"times a result set is written again, after a growing pause, when the server aborts it for a conflict with a concurrent transaction (a deadlock, a serialization failure, a Galera certification conflict); 0: never")
}

// exportOptions are the flags of "profdb export".
type exportOptions struct {
	dsn, caption, schema, format, bulk, sourceRoot   string
	noCreate, quiet, asJSON, skipMissing, allowEmpty bool
	retries                                          int
	rowKey                                           bool   // --primary-key, with --sql-out
	sqlOut, dialect                                  string // --sql-out FILE --dialect D: write a script (sqlout.go)
	progress                                         string // --progress
	dbSet                                            bool   // --db was given
	conn                                             connOptions
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
JSON (docs/interchange.md), ProfilerJ XML snapshots, Go coverage profiles,
LCOV tracefiles and Go pprof CPU and heap profiles. "-" reads standard input.

Missing tables are created unless --no-create is given; existing tables are
found case-insensitively and checked: a value that does not fit a column
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
it appends to a database that already holds result sets.`,
		Example: `  profdb export examples/function-trace.json
  profdb export --db postgres://user@db.example.com/prof --schema aqtime run.json
  go test -coverprofile=c.out ./... && profdb export c.out
  profdb export --sql-out run.sql --dialect postgres run.json && psql -v ON_ERROR_STOP=1 -d prof -f run.sql`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.dbSet = cmd.Flags().Changed("db")
			if o.sqlOut != "" || o.dialect != "" || o.rowKey {
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
	f.StringVar(&o.schema, "schema", "", "existing PostgreSQL or SQL Server schema, or MySQL database, to write into")
	progressFlags(cmd, &o.quiet, &o.progress)
	f.BoolVar(&o.asJSON, "json", false, "print the results as JSON")
	f.StringVar(&o.bulk, "bulk", "auto", "write path: auto (the database's native bulk load where available) or off (batched INSERT)")
	f.StringVar(&o.format, "format", "", "input format: "+strings.Join(input.Names(), ", ")+" (default: detected)")
	f.StringVar(&o.sourceRoot, "source-root", "", "where Go coverage profiles find their sources (default: the module in the current folder)")
	f.BoolVar(&o.skipMissing, "skip-missing", false, "warn about, instead of failing on, missing source files of a Go coverage profile")
	retriesFlag(cmd, &o.retries)
	f.BoolVar(&o.allowEmpty, "allow-empty", false, "accept an input holding no result set (it is an error otherwise)")
	connFlags(cmd, &o.conn)
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
	x := exporter.New(db, exporter.Options{Bulk: bulk, Progress: prog.set, Retries: o.retries, Version: versionLine()})
	var target resultset.Target = ledgerTarget{Target: x, r: ledgerFrom(ctx)}
	if o.caption != "" {
		target = &captionTarget{Target: target, caption: o.caption}
	}
	in := input.Options{SourceRoot: o.sourceRoot, SkipMissing: o.skipMissing,
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
			if !o.asJSON {
				prog.clear()
				fmt.Fprintln(stdout, resultLine(r))
			}
		}
		all = append(all, results...)
		if err == nil && len(results) == 0 {
			err = o.empty(stderr, file)
		}
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

// resultLine is the line export prints for a result set.
func resultLine(r resultset.Result) string {
	return fmt.Sprintf("INST_ID %d  %s  %s  %s", r.InstID, termtext.Name(r.Profiler), rows(r.Rows), termtext.Quote(r.Caption))
}

// rows is "1 row" or "N rows".
func rows(n int64) string { return english.Plural(int(n), "row", "") }

// writeJSON writes v as indented JSON. Names keep their exact value; the
// characters of theirs that a terminal would obey are \u escapes
// (termtext.JSON).
func writeJSON(w io.Writer, v any) error {
	if s, ok := v.([]resultset.Result); ok && s == nil {
		v = []resultset.Result{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(termtext.JSON(b.Bytes()))
	return err
}

// readFile reads one input file ("-" for standard input) into the target.
// wrap, if not nil, wraps the reader of the input.
func readFile(ctx context.Context, file, format string, stdin io.Reader, t resultset.Target, o input.Options, wrap func(io.Reader) io.Reader) ([]resultset.Result, error) {
	if wrap == nil {
		wrap = func(r io.Reader) io.Reader { return r }
	}
	if file == "-" {
		return hintFlags(input.Read(ctx, format, wrap(stdin), "<stdin>", t, o))
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory: give the files in it", file)
	}
	return hintFlags(input.Read(ctx, format, wrap(f), file, t, o))
}

// hintFlags names the flags that help with an input error.
func hintFlags(res []resultset.Result, err error) ([]resultset.Result, error) {
	if errors.Is(err, input.ErrSourceNotFound) {
		err = fmt.Errorf("%w (--source-root DIR: the Go module's folder; --skip-missing: warn and go on)", err)
	}
	return res, err
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

func newListCmd() *cobra.Command {
	var dsn, schema string
	var asJSON bool
	var conn connOptions
	cmd := &cobra.Command{
		Use:   "list [--db DSN] [--json]",
		Short: "List the result sets in a database",
		Long: `list prints the result sets in INSTANCES: each one's INST_ID, profiler (found
from its RELATIONS rows), row count and caption, and, where the database has
profdb's own PROFDB_RESULT_SETS table, when it was exported (UTC), on which
host, by which profdb version and from what input ("-" where not recorded).`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := conn.open(cmd.Context(), dsn, store.Options{Schema: schema, ReadOnly: true})
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
					list = []store.Listing{}
				}
				return writeJSON(cmd.OutOrStdout(), list)
			}
			// What PROFDB_RESULT_SETS records is shown when the database
			// has it for any result set.
			recorded := slices.ContainsFunc(list, func(l store.Listing) bool { return l.ExportedAt != "" })
			var lines [][]string
			if recorded {
				lines = append(lines, []string{"INST_ID", "PROFILER", "ROWS", "EXPORTED (UTC)", "HOST", "VERSION", "INPUT", "CAPTION"})
			} else {
				lines = append(lines, []string{"INST_ID", "PROFILER", "ROWS", "CAPTION"})
			}
			name := termtext.Name
			for _, l := range list {
				p := l.Profiler
				if p == "" {
					p = "?"
				}
				id, n, caption := itoa(l.InstID), itoa(l.Rows), termtext.Quote(l.Caption)
				if recorded {
					version, _, _ := strings.Cut(l.Version, " ")
					lines = append(lines, []string{id, name(p), n, name(orDash(strings.TrimSuffix(strings.Replace(l.ExportedAt, "T", " ", 1), "Z"))),
						name(orDash(l.Host)), name(orDash(version)), name(orDash(l.Input)), caption})
					continue
				}
				lines = append(lines, []string{id, name(p), n, caption})
			}
			return writeColumns(cmd.OutOrStdout(), lines)
		},
	}
	dbFlag(cmd, &dsn)
	cmd.Flags().StringVar(&schema, "schema", "", "schema (database on MySQL) holding the tables")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	connFlags(cmd, &conn)
	return cmd
}

func newVerifyCmd() *cobra.Command {
	var dsn, schema string
	var inst int64
	var asJSON bool
	var conn connOptions
	cmd := &cobra.Command{
		Use:   "verify [--db DSN] [--inst N]",
		Short: "Check result sets against the profilers' table graph",
		Long: `verify checks result sets (all, or the one --inst names): their RELATIONS rows
match the registered parent graph, every child row's PARENT_ID names an
existing parent row of the same INST_ID, top-level rows hold -1 there, no two
rows of a table share an ID, and no table holds rows of a result set
INSTANCES does not list (export refuses a result set that fails these
checks). It prints what it
finds, with the IDs of the rows at fault, and exits non-zero if it finds
anything. --json prints the findings as a JSON array of {"inst_id", "table",
"message", "ids"} ([] when all is well). Everything is read in one
consistent snapshot, so result sets that are being exported or deleted
meanwhile are seen whole or not at all.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := conn.open(cmd.Context(), dsn, store.Options{Schema: schema, ReadOnly: true})
			if err != nil {
				return err
			}
			defer db.Close()
			findings, err := db.Verify(cmd.Context(), inst)
			if err != nil {
				return err
			}
			if asJSON {
				if findings == nil {
					findings = []store.Finding{}
				}
				if err := writeJSON(cmd.OutOrStdout(), findings); err != nil {
					return err
				}
				if len(findings) > 0 {
					return fmt.Errorf("verify: %s", english.Plural(len(findings), "finding", ""))
				}
				return nil
			}
			for _, f := range findings {
				fmt.Fprintln(cmd.OutOrStdout(), termtext.Line(f.String()))
			}
			if len(findings) > 0 {
				return fmt.Errorf("verify: %s", english.Plural(len(findings), "finding", ""))
			}
			fmt.Fprintln(cmd.OutOrStdout(), "ok")
			return nil
		},
	}
	dbFlag(cmd, &dsn)
	cmd.Flags().StringVar(&schema, "schema", "", "schema (database on MySQL) holding the tables")
	cmd.Flags().Int64Var(&inst, "inst", 0, "check only this INST_ID")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the findings as JSON")
	connFlags(cmd, &conn)
	return cmd
}

func newDeleteCmd() *cobra.Command {
	var dsn, schema string
	var specs []string
	var asJSON, dryRun bool
	var olderThan string
	var conn connOptions
	cmd := &cobra.Command{
		Use:   "delete [--db DSN] (--inst N|A-B... | --older-than AGE) [--dry-run]",
		Short: "Remove result sets from every table",
		Long: `delete removes the result sets --inst names from every table, all in one
transaction: when one of them cannot be removed, none is. --inst takes an
INST_ID or a range A-B (the result sets between A and B, both included, that
the database holds); repeat it or separate values with commas. --dry-run
prints what would be removed and removes nothing. The rows counted are those
of the profiler's tables, as list counts them.

--older-than AGE selects the result sets exported longer ago than AGE (a Go
duration such as 90m or 36h, or days and weeks: 30d, 2w), by the export time
profdb records in its PROFDB_RESULT_SETS table; result sets without one are
left, and said so. With --inst too, both selections go.

A deleted result set's INST_ID is never given out again: PROFDB_RESULT_SETS
keeps its row, marked deleted.`,
		Example: `  profdb delete --inst 7
  profdb delete --inst 3,5 --inst 10-20 --dry-run
  profdb delete --older-than 30d`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(specs) == 0 && olderThan == "" {
				return usageErrorf("--inst or --older-than is required")
			}
			ids, ranges, err := parseInstSpecs(specs)
			if err != nil {
				return err
			}
			var age time.Duration
			if olderThan != "" {
				if age, err = parseAge(olderThan); err != nil {
					return usageErrorf("--older-than: %v", err)
				}
			}
			ctx := cmd.Context()
			// NoCreate: deleting from a database file that does not exist
			// must not create it.
			// The ledger learns when the delete commits: an interruption
			// from then on leaves the outcome to the server, and says so.
			rep := ledgerFrom(ctx)
			db, err := conn.open(ctx, dsn, store.Options{Schema: schema, NoCreate: true, Phase: func(p string) {
				if p == store.PhaseCommit {
					rep.committing()
				}
			}})
			if err != nil {
				return err
			}
			defer db.Close()
			list, err := db.List(ctx)
			if err != nil {
				return err
			}
			insts, err := selectInsts(list, ids, ranges)
			if err != nil {
				return err
			}
			if olderThan != "" {
				cutoff := time.Now().Add(-age).UTC()
				old, unknown := exportedBefore(list, cutoff)
				insts = append(insts, old...)
				slices.Sort(insts)
				insts = slices.Compact(insts)
				if unknown > 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "profdb: delete: %s no export time (exported before PROFDB_RESULT_SETS existed, or by a script with --no-create): --older-than leaves %s\n",
						english.Plural(unknown, "result set has", "result sets have"), english.PluralWord(unknown, "it", "them"))
				}
				if len(insts) == 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "profdb: delete: no result set exported before %s: nothing deleted\n", cutoff.Format(store.TimeFormat))
					if asJSON {
						return writeJSON(cmd.OutOrStdout(), []store.Deleted{})
					}
					return nil
				}
			}
			var done []store.Deleted
			if dryRun {
				for _, l := range list {
					if slices.Contains(insts, l.InstID) {
						done = append(done, store.Deleted{InstID: l.InstID, Rows: l.Rows})
					}
				}
			} else {
				what := "delete of INST_ID " + joinInsts(insts)
				rep.start(what, "nothing deleted")
				if done, err = db.DeleteAll(ctx, insts); err != nil {
					return err
				}
				rep.finish(what)
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), done)
			}
			verb := "deleted"
			if dryRun {
				verb = "would delete"
			}
			for _, d := range done {
				fmt.Fprintf(cmd.OutOrStdout(), "%s INST_ID %d (%s)\n", verb, d.InstID, rows(d.Rows))
			}
			return nil
		},
	}
	dbFlag(cmd, &dsn)
	f := cmd.Flags()
	f.StringVar(&schema, "schema", "", "schema (database on MySQL) holding the tables")
	f.StringSliceVar(&specs, "inst", nil, "`INST_ID` or range A-B to delete; repeat or separate with commas (required)")
	f.StringVar(&olderThan, "older-than", "", "also delete the result sets exported longer ago than `AGE` (90m, 36h, 30d, 2w)")
	f.BoolVar(&dryRun, "dry-run", false, "print what would be deleted; delete nothing")
	f.BoolVar(&asJSON, "json", false, `print what was (or would be) deleted as JSON: [{"inst_id", "rows"}]`)
	connFlags(cmd, &conn)
	return cmd
}

// instRange is an INST_ID range A-B of delete --inst, both ends included.
type instRange struct{ from, to int64 }

// parseInstSpecs parses delete's --inst values: INST_IDs and ranges A-B.
func parseInstSpecs(specs []string) ([]int64, []instRange, error) {
	var ids []int64
	var ranges []instRange
	for _, s := range specs {
		s = strings.TrimSpace(s)
		a, b, isRange := strings.Cut(s, "-")
		from, err1 := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
		to, err2 := from, error(nil)
		if isRange {
			to, err2 = strconv.ParseInt(strings.TrimSpace(b), 10, 64)
		}
		if err1 != nil || err2 != nil || from <= 0 || to < from {
			return nil, nil, usageErrorf("--inst %q: want an INST_ID (1, 2, ...) or a range A-B with A <= B", s)
		}
		if isRange {
			ranges = append(ranges, instRange{from, to})
		} else {
			ids = append(ids, from)
		}
	}
	return ids, ranges, nil
}

// selectInsts returns the INST_IDs to delete, ascending, each once: every
// one of ids, which must be listed, and the listed ones in ranges, each of
// which must hold at least one.
// parseAge parses --older-than: a Go duration (90m, 36h), or a whole
// number of days or weeks (30d, 2w).
func parseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			v, err := strconv.ParseUint(n, 10, 31)
			if err != nil {
				return 0, fmt.Errorf("%q is not an age (90m, 36h, 30d, 2w)", s)
			}
			return time.Duration(v) * unit, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not an age (90m, 36h, 30d, 2w)", s)
	}
	return d, nil
}

// exportedBefore returns the INST_IDs of the listed result sets exported
// before cutoff, and how many have no export time recorded.
func exportedBefore(list []store.Listing, cutoff time.Time) (old []int64, unknown int) {
	for _, l := range list {
		t, err := time.Parse(store.TimeFormat, l.ExportedAt)
		switch {
		case err != nil:
			unknown++
		case t.Before(cutoff):
			old = append(old, l.InstID)
		}
	}
	return old, unknown
}

func selectInsts(list []store.Listing, ids []int64, ranges []instRange) ([]int64, error) {
	listed := map[int64]bool{}
	for _, l := range list {
		listed[l.InstID] = true
	}
	var out []int64
	for _, id := range ids {
		if !listed[id] {
			return nil, fmt.Errorf("no result set %d in INSTANCES: nothing deleted", id)
		}
		out = append(out, id)
	}
	for _, r := range ranges {
		found := false
		for _, l := range list {
			if l.InstID >= r.from && l.InstID <= r.to {
				out = append(out, l.InstID)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("no result set in %d-%d: nothing deleted", r.from, r.to)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
