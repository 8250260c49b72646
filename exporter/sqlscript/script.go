package sqlscript

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// Options tune a Script.
type Options struct {
	// Schema is the existing schema (PostgreSQL, SQL Server), database
	// (MySQL) or attached database (SQLite) the script writes into; ""
	// means the connection's default.
	Schema string
	// NoCreate leaves out the CREATE TABLE and CREATE INDEX statements:
	// the tables must exist when the script runs.
	NoCreate bool
	// PrimaryKey gives every profiler table the script creates
	// dialects.RowKeyColumn as an invisible, auto-numbered primary key, for
	// servers that demand one on every table (dialects.RowKeyer; mysql).
	PrimaryKey bool
	// Distribute adds, after each table the script creates, the calls
	// that spread it over a Citus cluster, as DDLOptions.Distribute does.
	Distribute bool
	// Header lines are written as comments at the top of the script.
	Header []string
	// Version is the profdb version the script records, with the host that
	// wrote it, in PROFDB_RESULT_SETS for each result set ("" records
	// NULL). The script records there only when it creates the tables: a
	// NoCreate script cannot know whether the table exists.
	Version string
}

// Limits of one INSERT statement of a script: at most MaxRows rows (or the
// dialect's own limit on a VALUES list, if smaller), and no more rows once
// the statement holds MaxStatementBytes of SQL (a single row may be
// larger). 4 MiB keeps every statement below the 16 MiB max_allowed_packet
// of the MySQL and MariaDB clients and servers.
const (
	MaxRows           = 1000
	MaxStatementBytes = 4 << 20
)

// Script is an resultset.Target that writes result sets as a SQL script for
// one dialect (see the package documentation). Committed result sets are
// kept in a temporary file; WriteTo writes the whole script, Close removes
// the file. A rolled-back result set leaves nothing in the script. A Script
// takes one result set at a time.
type Script struct {
	d        dialects.Dialect
	f        dialects.ScriptForm
	sep      string // the dialect's batch separator line, or ""
	run      string // how the dialect's client runs the script (Scripter.RunHint)
	opts     Options
	spool    *os.File
	w        *bufio.Writer
	size     int64 // bytes committed to the spool
	sets     int
	used     map[string]bool // profilers exported
	open     *resultWriter
	step     int  // data batches written (see dialects.ScriptForm.Batch)
	nul      bool // some text written holds U+0000 (see dialects.ScriptForm.NULGuard)
	rowLimit int
	closed   bool
}

var _ resultset.Target = (*Script)(nil)

// New returns an empty script for dialect d, which must be a
// dialects.Scripter. Its temporary file lives in os.TempDir(); call Close
// to remove it.
func New(d dialects.Dialect, o Options) (*Script, error) {
	sc, ok := d.(dialects.Scripter)
	if !ok {
		return nil, fmt.Errorf("sqlscript: no script form for dialect %s", d.Name())
	}
	if err := checkSchema(d, o.Schema); err != nil {
		return nil, err
	}
	if err := CheckDialect(d, o.PrimaryKey, o.Distribute); err != nil {
		return nil, fmt.Errorf("sqlscript: %w", err)
	}
	spool, err := os.CreateTemp("", "profdb-script-*.sql")
	if err != nil {
		return nil, fmt.Errorf("sqlscript: %w", err)
	}
	rows := MaxRows
	if l := d.Facts().Limits.MaxRows; l > 0 && l < rows {
		rows = l
	}
	sep := ""
	if bs, ok := d.(ddl.BatchSeparator); ok {
		sep = bs.BatchSeparator()
	}
	return &Script{d: d, f: sc.ScriptForm(o.Schema), sep: sep, run: sc.RunHint(dialects.DataScript), opts: o, spool: spool, w: bufio.NewWriterSize(spool, 256<<10),
		used: map[string]bool{}, rowLimit: rows}, nil
}

// Dialect returns the script's dialect.
func (s *Script) Dialect() dialects.Dialect { return s.d }

// ResultSets returns the number of result sets committed so far.
func (s *Script) ResultSets() int { return s.sets }

// Close removes the temporary file. The script cannot be used afterwards.
func (s *Script) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	name := s.spool.Name()
	err := s.spool.Close()
	if rerr := os.Remove(name); err == nil {
		err = rerr
	}
	return err
}

// Begin implements resultset.Target: it starts a result set of the script.
func (s *Script) Begin(_ context.Context, h resultset.Header) (resultset.ResultWriter, error) {
	if s.closed {
		return nil, errors.New("sqlscript: script closed")
	}
	if s.open != nil {
		return nil, errors.New("sqlscript: a script takes one result set at a time")
	}
	def, err := profilers.Lookup(h.Profiler)
	if err != nil {
		return nil, fmt.Errorf("sqlscript: %w", err)
	}
	if _, err := h.Counter.FrequencyValue(); err != nil {
		return nil, fmt.Errorf("sqlscript: INSTANCES, column COUNTER_FREQUENCY: %w", err)
	}
	h.Profiler = def.Name
	rw := &resultWriter{s: s, def: def, header: h, started: map[string]bool{}, start: s.size, step: s.step,
		result: resultset.Result{Profiler: def.Name, Caption: h.Caption, Tables: map[string]int64{}}}
	if err := rw.begin(); err != nil {
		rw.Rollback()
		return nil, err
	}
	s.open = rw
	return rw, nil
}

// WriteTo writes the whole script to w: the header, session settings, the
// transaction's start and lock, the DDL of INSTANCES, RELATIONS,
// PROFDB_RESULT_SETS and the tables of the profilers exported (unless
// Options.NoCreate), every committed result set and the commit. It fails
// while a result set is open, and, writing nothing, when two of the
// profilers exported define a table differently (see profilers.Tables).
func (s *Script) WriteTo(w io.Writer) (int64, error) {
	if s.closed {
		return 0, errors.New("sqlscript: script closed")
	}
	if s.open != nil {
		return 0, errors.New("sqlscript: a result set is still open")
	}
	tables, err := s.tables()
	if err != nil {
		return 0, err
	}
	if err := s.w.Flush(); err != nil {
		return 0, fmt.Errorf("sqlscript: %w", err)
	}
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 256<<10)
	s.writeHead(bw, tables)
	if err := bw.Flush(); err != nil {
		return cw.n, err
	}
	if _, err := s.spool.Seek(0, io.SeekStart); err != nil {
		return cw.n, fmt.Errorf("sqlscript: %w", err)
	}
	if _, err := io.Copy(bw, io.LimitReader(s.spool, s.size)); err != nil {
		return cw.n, err
	}
	if _, err := s.spool.Seek(s.size, io.SeekStart); err != nil {
		return cw.n, fmt.Errorf("sqlscript: %w", err)
	}
	bw.WriteString("\n-- end of the result sets\n")
	s.writeAll(bw, s.f.Batch(s.step+1, s.f.End(), true))
	err = bw.Flush()
	return cw.n, err
}

type countWriter struct {
	w io.Writer
	n int64
}

// Write implements io.Writer, counting the bytes written.
func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeAll writes statements, each ended by ";" and a line break; the
// batch separator is written as a line of its own.
func (s *Script) writeAll(w *bufio.Writer, stmts []string) {
	s.writeAllWith(w, stmts, nil)
}

// streamed stands, among the statements given to ScriptForm.Batch, for
// the one that writeAllWith writes with its function: a statement that
// is written straight into the script, never built as a string. Batch
// only puts statements around the ones it is given, and no statement
// profdb writes holds U+0000.
const streamed = "\x00profdb: the statement written straight\x00"

// writeAllWith is writeAll, with write writing the statement streamed
// stands for.
func (s *Script) writeAllWith(w *bufio.Writer, stmts []string, write func(w *bufio.Writer) error) error {
	sep := s.sep
	for _, st := range stmts {
		if sep != "" && st == sep {
			w.WriteString(sep + "\n")
			continue
		}
		if st == streamed && write != nil {
			if err := write(w); err != nil {
				return err
			}
		} else {
			w.WriteString(st)
		}
		w.WriteString(";\n")
	}
	return nil
}

// note notes a canonical value that is text holding U+0000 (see
// dialects.ScriptForm.NULGuard).
func (s *Script) note(v any) {
	if str, ok := v.(string); ok && strings.IndexByte(str, 0) >= 0 {
		s.nul = true
	}
}

// literal returns the SQL literal of a canonical value of type t, noting
// text that holds U+0000.
func (s *Script) literal(t ddl.Type, v any) (string, error) {
	s.note(v)
	return s.f.Literal(t, v)
}

// emit writes statements of the data part that run together.
func (s *Script) emit(stmts ...string) {
	s.step++
	s.writeAll(s.w, s.f.Batch(s.step, stmts, false))
}

// emitWith writes, as a batch of its own, the statement that write writes
// straight into the script.
func (s *Script) emitWith(write func(w *bufio.Writer) error) error {
	s.step++
	return s.writeAllWith(s.w, s.f.Batch(s.step, []string{streamed}, false), write)
}

// writeHead writes everything before the first result set, with the DDL
// of tables.
func (s *Script) writeHead(w *bufio.Writer, tables []ddl.Table) {
	var names []string
	for _, n := range profilers.Names() {
		if s.used[n] {
			names = append(names, n)
		}
	}
	header := append([]string{}, s.opts.Header...)
	header = append(header,
		"dialect: "+s.d.Name(),
		fmt.Sprintf("result sets: %d (profilers: %s)", s.sets, orNone(strings.Join(names, ", "))),
	)
	if s.opts.Schema != "" {
		header = append(header, "schema: "+s.opts.Schema)
	}
	header = append(header,
		"run: "+s.run,
		"INST_IDs and RELATIONS IDs are assigned when the script runs: it appends to",
		"a database that already holds result sets. Everything is one transaction.")
	for _, h := range header {
		w.WriteString("-- ")
		w.WriteString(dialects.CommentText(h))
		w.WriteByte('\n')
	}
	w.WriteByte('\n')
	sep := s.sep
	s.writeAll(w, s.f.Begin())
	if sep != "" {
		w.WriteString(sep + "\n")
	}
	if guard := s.f.NULGuard(); s.nul && len(guard) > 0 {
		w.WriteString("\n-- the text below holds U+0000 (NUL): stop here if the server cannot store it\n")
		s.writeAll(w, guard)
		if sep != "" {
			w.WriteString(sep + "\n")
		}
	}
	if !s.opts.NoCreate {
		w.WriteString("\n-- tables (each statement does nothing when its object exists)\n")
		for _, t := range tables {
			for _, st := range createAll(s.d, s.opts.Schema, s.opts.PrimaryKey, s.opts.Distribute, t) {
				s.writeAll(w, []string{st})
				if sep != "" {
					w.WriteString(sep + "\n")
				}
			}
		}
	}
	w.WriteByte('\n')
	s.writeAll(w, s.f.AfterDDL())
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// tables returns the tables the script creates: profilers.Tables of the
// profilers used, in registry order.
func (s *Script) tables() ([]ddl.Table, error) {
	var used []profilers.Definition
	for _, def := range profilers.All() {
		if s.used[def.Name] {
			used = append(used, def)
		}
	}
	tables, err := profilers.Tables(used...)
	if err != nil {
		return nil, fmt.Errorf("sqlscript: %w", err)
	}
	return tables, nil
}

// resultWriter writes one result set into the spool.
type resultWriter struct {
	s       *Script
	def     profilers.Definition
	header  resultset.Header
	started map[string]bool
	cur     *tableWriter
	start   int64 // spool size before the result set
	step    int   // Script.step before the result set
	result  resultset.Result
	failed  error
	done    bool
}

func (rw *resultWriter) qualified(table string) string {
	return dialects.Qualify(rw.s.d, rw.s.opts.Schema, rw.s.d.StoredName(table))
}

func (rw *resultWriter) col(name string) string {
	return rw.s.d.Quote(rw.s.d.StoredName(name))
}

func (rw *resultWriter) cols(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = rw.col(n)
	}
	return out
}

// begin writes the allocation and the RELATIONS rows.
func (rw *resultWriter) begin() error {
	s := rw.s
	w := s.w
	fmt.Fprintf(w, "\n-- result set %d: %s %s\n", s.sets+1, rw.def.Name, dialects.CommentText(fmt.Sprintf("%q", rw.header.Caption)))
	inst := rw.qualified(profilers.InstancesTable)
	if !s.opts.NoCreate {
		// No INST_ID is given out twice: not those of deleted result sets,
		// which PROFDB_RESULT_SETS keeps.
		inst = "(SELECT " + rw.col(ddl.InstID) + " FROM " + inst + " UNION ALL SELECT " + rw.col(ddl.InstID) +
			" FROM " + rw.qualified(profilers.ResultSetsTable) + ") profdb_all"
	}
	s.emit(s.f.Allocate(inst, rw.col(ddl.InstID), rw.qualified(profilers.RelationsTable), rw.col(ddl.ID))...)
	if !s.opts.NoCreate {
		vals := []string{s.f.InstID(), s.f.UTCNow()}
		host, _ := os.Hostname()
		run := rw.header.Run
		if run == nil {
			run = &resultset.Run{}
		}
		dirty := "NULL"
		if run.Dirty != nil {
			dirty = "0"
			if *run.Dirty {
				dirty = "1"
			}
		}
		// The columns in profilers.IdentityColumns' order.
		for _, v := range []string{host, rw.header.Input, s.opts.Version, rw.def.Name, strings.ToLower(run.Commit), run.Branch,
			"", run.CI, run.BuildID, run.BuildURL} {
			lit, err := rw.text(v)
			if err != nil {
				return err
			}
			vals = append(vals, lit)
		}
		vals[8] = dirty // VCS_DIRTY, an Integer
		led := newInsert(rw, profilers.ResultSetsTable, rw.cols(append([]string{ddl.InstID, profilers.ColExportedAt,
			profilers.ColHost, profilers.ColInput, profilers.ColVersion}, profilers.IdentityColumns...)))
		led.add(strings.Join(vals, ", "))
		led.flush()
		if err := rw.writeRun(run); err != nil {
			return err
		}
	}
	ins := newInsert(rw, profilers.RelationsTable, rw.cols(relationCols))
	for i, t := range rw.def.Tables {
		parent := "NULL"
		if t.Parent != "" {
			p, err := s.f.Literal(ddl.String, t.Parent)
			if err != nil {
				return err
			}
			parent = p
		}
		child, err := s.f.Literal(ddl.String, t.Name)
		if err != nil {
			return err
		}
		ins.add(child + ", " + parent + ", " + s.f.RelID(i+1) + ", " + s.f.InstID())
	}
	ins.flush()
	return nil
}

// text is the literal of a String value, NULL for "".
func (rw *resultWriter) text(v string) (string, error) {
	if v == "" {
		return "NULL", nil
	}
	return rw.s.f.Literal(ddl.String, v)
}

// writeRun writes the run's labels into PROFDB_LABELS and what a merge
// combined into PROFDB_MERGE_SOURCES, as the exporter does.
func (rw *resultWriter) writeRun(run *resultset.Run) error {
	if len(run.Labels) > 0 {
		keys := make([]string, 0, len(run.Labels))
		for k := range run.Labels {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		ins := newInsert(rw, profilers.LabelsTable, rw.cols([]string{ddl.InstID, profilers.ColLabelKey, profilers.ColLabelValue}))
		for _, k := range keys {
			key, err := rw.text(k)
			if err != nil {
				return err
			}
			value, err := rw.text(run.Labels[k])
			if err != nil {
				return err
			}
			ins.add(rw.s.f.InstID() + ", " + key + ", " + value)
		}
		ins.flush()
	}
	if len(run.MergedFrom) > 0 {
		ins := newInsert(rw, profilers.MergeSourcesTable, rw.cols([]string{ddl.InstID, profilers.ColSourceInstID}))
		for _, src := range run.MergedFrom {
			ins.add(rw.s.f.InstID() + ", " + strconv.FormatInt(src, 10))
		}
		ins.flush()
	}
	return nil
}

// SetHeader implements resultset.ResultWriter.
func (rw *resultWriter) SetHeader(h resultset.Header) error {
	if err := rw.usable(); err != nil {
		return err
	}
	if h.Profiler != "" && h.Profiler != rw.def.Name {
		return fmt.Errorf("sqlscript: result set of profiler %s cannot become %s", rw.def.Name, h.Profiler)
	}
	if _, err := h.Counter.FrequencyValue(); err != nil {
		return fmt.Errorf("sqlscript: INSTANCES, column COUNTER_FREQUENCY: %w", err)
	}
	h.Profiler = rw.def.Name
	// What begin wrote of the result set stays.
	h.Input, h.Run = rw.header.Input, rw.header.Run
	rw.header = h
	rw.result.Caption = h.Caption
	return nil
}

func (rw *resultWriter) usable() error {
	if rw.done {
		return errors.New("sqlscript: result set already ended")
	}
	return rw.failed
}

func (rw *resultWriter) fail(err error) error {
	if rw.failed == nil {
		rw.failed = err
	}
	return err
}

// Table implements resultset.ResultWriter.
func (rw *resultWriter) Table(name string, columns []string) (resultset.TableWriter, error) {
	if err := rw.usable(); err != nil {
		return nil, err
	}
	rw.endTable()
	def, ok := rw.def.Table(name)
	if !ok {
		return nil, rw.fail(fmt.Errorf("sqlscript: profiler %s has no table %s", rw.def.Name, name))
	}
	if rw.started[def.Name] {
		return nil, rw.fail(fmt.Errorf("sqlscript: table %s given twice in one result set", def.Name))
	}
	rw.started[def.Name] = true
	tw := &tableWriter{rw: rw, name: def.Name}
	seen := map[string]bool{}
	var quoted []string
	for _, c := range columns {
		col, ok := def.Column(c)
		if !ok {
			return nil, rw.fail(fmt.Errorf("sqlscript: table %s has no column %s (columns: %s)", def.Name, c, strings.Join(def.ColumnNames(), ", ")))
		}
		if col.Name == ddl.InstID {
			return nil, rw.fail(fmt.Errorf("sqlscript: table %s: INST_ID is assigned by profdb and must not be given", def.Name))
		}
		if seen[col.Name] {
			return nil, rw.fail(fmt.Errorf("sqlscript: table %s: column %s given twice", def.Name, col.Name))
		}
		seen[col.Name] = true
		tw.names = append(tw.names, col.Name)
		tw.types = append(tw.types, col.Type)
		quoted = append(quoted, rw.col(col.Name))
	}
	quoted = append(quoted, rw.col(ddl.InstID))
	tw.ins = newInsert(rw, def.Name, quoted)
	rw.cur = tw
	return tw, nil
}

func (rw *resultWriter) endTable() {
	if rw.cur == nil {
		return
	}
	tw := rw.cur
	rw.cur = nil
	tw.ins.flush()
	rw.result.Tables[tw.name] = tw.rows
	rw.result.Rows += tw.rows
}

// Commit implements resultset.ResultWriter: it writes the INSTANCES row and
// keeps the result set in the script. The Result's InstID is 0: the script
// assigns it when it runs.
func (rw *resultWriter) Commit() (resultset.Result, error) {
	if err := rw.usable(); err != nil {
		return resultset.Result{}, err
	}
	rw.endTable()
	s := rw.s
	var name, desc, freq any
	if c := rw.header.Counter; c != nil {
		if c.Name != "" {
			name = c.Name
		}
		if c.Description != "" {
			desc = c.Description
		}
		freq, _ = c.FrequencyValue()
	}
	vals := []any{rw.header.Caption, desc, freq, name}
	types := []ddl.Type{ddl.String, ddl.String, ddl.Decimal, ddl.String}
	lits := make([]string, 0, 5)
	for i, v := range vals {
		lit, err := s.literal(types[i], v)
		if err != nil {
			rw.Rollback()
			return resultset.Result{}, fmt.Errorf("sqlscript: table INSTANCES, column %s: %w", instanceCols[i], err)
		}
		lits = append(lits, lit)
	}
	lits = append(lits, s.f.InstID())
	rw.refusals()
	ins := newInsert(rw, profilers.InstancesTable, rw.cols(instanceCols))
	ins.add(strings.Join(lits, ", "))
	ins.flush()
	if err := s.w.Flush(); err != nil {
		rw.Rollback()
		return resultset.Result{}, fmt.Errorf("sqlscript: %w", err)
	}
	size, err := s.spool.Seek(0, io.SeekCurrent)
	if err != nil {
		rw.Rollback()
		return resultset.Result{}, fmt.Errorf("sqlscript: %w", err)
	}
	s.size = size
	s.sets++
	s.used[rw.def.Name] = true
	rw.done = true
	s.open = nil
	for _, t := range rw.def.Tables {
		if _, ok := rw.result.Tables[t.Name]; !ok {
			rw.result.Tables[t.Name] = 0
		}
	}
	return rw.result, nil
}

// Rollback implements resultset.ResultWriter: the result set is cut from the
// script. It does nothing after Commit.
func (rw *resultWriter) Rollback() error {
	if rw.done {
		return nil
	}
	rw.done = true
	s := rw.s
	if s.open == rw {
		s.open = nil
	}
	s.w.Reset(s.spool)
	s.step = rw.step
	if err := s.spool.Truncate(rw.start); err != nil {
		return fmt.Errorf("sqlscript: %w", err)
	}
	if _, err := s.spool.Seek(rw.start, io.SeekStart); err != nil {
		return fmt.Errorf("sqlscript: %w", err)
	}
	return nil
}

// refusals writes the checks that profdb's export runs before it commits
// (store.TableChecks), each of which stops the script, rolled back, when
// it finds a row at fault: the message names the result set, the table and
// the row's ID.
func (rw *resultWriter) refusals() {
	s := rw.s
	col := func(_, name string) string { return rw.col(name) }
	for _, t := range rw.def.Tables {
		for _, chk := range store.TableChecks(t, s.f.CheckInstID(), rw.qualified, col) {
			// What matters first: MySQL quotes only the first 128
			// characters of the message.
			before, after := "profdb: table "+t.Name+", row ID ", ": "
			switch chk.Kind {
			case store.DuplicateIDs:
				before, after = "profdb: table "+t.Name+": ID ", " held by more than one row"
			case store.DanglingParents:
				after += "PARENT_ID names no row of " + t.Parent
			default:
				after += "PARENT_ID is not -1 (a top-level table)"
			}
			after += fmt.Sprintf("; result set %d refused, nothing written", s.sets+1)
			s.emit(s.f.Refuse(chk.Query, before, after)...)
		}
	}
}

// longRow is the size of a row's values (dialects.RowBytes) from which
// the row is an INSERT of its own, its literals written straight into the
// script (Script.emitWith): a text of 16 MiB was copied five times on its
// way there (its literal, the row's, the INSERT's, the statement's).
const longRow = 64 << 10

// tableWriter writes the rows of one table as multi-row INSERTs.
type tableWriter struct {
	rw    *resultWriter
	name  string
	names []string
	types []ddl.Type
	ins   *insert
	rows  int64
	row   strings.Builder
	vals  []any // the row's canonical values
}

// Write implements resultset.TableWriter. Values are converted and checked
// as for a database (resultset.Convert); an error names table, column and
// row.
func (tw *tableWriter) Write(row []any) error {
	rw := tw.rw
	if err := rw.usable(); err != nil {
		return err
	}
	if rw.cur != tw {
		return rw.fail(fmt.Errorf("sqlscript: table %s: rows written after the next table started", tw.name))
	}
	rowNo := tw.rows + 1
	if len(row) != len(tw.types) {
		return rw.fail(fmt.Errorf("sqlscript: table %s, row %d: %d values for %d columns", tw.name, rowNo, len(row), len(tw.types)))
	}
	vals := tw.vals[:0]
	defer func() { clear(vals) }() // holds no text once written
	for i, v := range row {
		cv, err := resultset.Convert(tw.types[i], v)
		if err != nil {
			return rw.fail(tw.columnErr(i, rowNo, err))
		}
		rw.s.note(cv)
		vals = append(vals, cv)
	}
	tw.vals = vals
	// values writes the row's literals, each followed by ", ", to w.
	values := func(w io.StringWriter) error {
		for i, cv := range vals {
			if err := rw.s.f.WriteLiteral(w, tw.types[i], cv); err != nil {
				return tw.columnErr(i, rowNo, err)
			}
			w.WriteString(", ")
		}
		_, err := w.WriteString(rw.s.f.InstID())
		return err
	}
	if dialects.RowBytes(vals) >= longRow {
		tw.ins.flush()
		err := rw.s.emitWith(func(w *bufio.Writer) error {
			w.WriteString(tw.ins.head)
			w.WriteByte('(')
			if err := values(w); err != nil {
				return err
			}
			return w.WriteByte(')')
		})
		if err != nil {
			return rw.fail(err)
		}
		tw.rows++
		return nil
	}
	b := &tw.row
	b.Reset()
	if err := values(b); err != nil {
		return rw.fail(err)
	}
	tw.ins.add(b.String())
	tw.rows++
	return nil
}

// columnErr is err of column i of row rowNo.
func (tw *tableWriter) columnErr(i int, rowNo int64, err error) error {
	return fmt.Errorf("sqlscript: table %s, column %s, row %d: %w", tw.name, tw.names[i], rowNo, err)
}

// insert accumulates the rows of one multi-row INSERT and writes it when
// it is full.
type insert struct {
	rw    *resultWriter
	head  string
	rows  int
	bytes int
	buf   strings.Builder
}

func newInsert(rw *resultWriter, table string, quotedCols []string) *insert {
	return &insert{rw: rw, head: "INSERT INTO " + rw.qualified(table) + " (" + strings.Join(quotedCols, ", ") + ") VALUES\n"}
}

func (in *insert) add(values string) {
	if in.rows > 0 && (in.rows >= in.rw.s.rowLimit || in.bytes+len(values) > MaxStatementBytes) {
		in.flush()
	}
	if in.rows > 0 {
		in.buf.WriteString(",\n")
	}
	in.buf.WriteByte('(')
	in.buf.WriteString(values)
	in.buf.WriteByte(')')
	in.rows++
	in.bytes += len(values) + 4
}

// flush writes the INSERT, its head and rows straight into the script.
func (in *insert) flush() {
	if in.rows == 0 {
		return
	}
	in.rw.s.emitWith(func(w *bufio.Writer) error {
		w.WriteString(in.head)
		_, err := w.WriteString(in.buf.String())
		return err
	})
	in.buf.Reset()
	in.rows, in.bytes = 0, 0
}

// The columns of INSTANCES and RELATIONS the script writes, in the
// exporter's order.
var (
	instanceCols = []string{"CAPTION", "COUNTER_DESCRIPTION", "COUNTER_FREQUENCY", "COUNTER_NAME", ddl.InstID}
	relationCols = []string{"COL_CHILD_TABLE", "COL_PARENT_TABLE", ddl.ID, ddl.InstID}
)
