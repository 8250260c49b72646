package exporter

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// maxBatchBytes bounds the bound values of one INSERT (as
// dialects.RowBytes counts them), so that a batch of long strings stays
// well inside MySQL's max_allowed_packet (16 MiB by default on MariaDB,
// 4 MiB on old MySQL servers) and holds few of them.
const maxBatchBytes = dialects.BatchBytes

// session writes one result set inside one transaction.
type session struct {
	e        *Exporter
	ctx      context.Context
	def      profilers.Definition
	header   resultset.Header
	conn     *sql.Conn
	tx       *sql.Tx
	leave    string // the statement that sets the session back after rows of long values (dialects.LongRowTuner), when due
	release  []string
	indexes  []string // secondary indexes of created tables, built before commit
	tables   map[string]*liveTable
	instID   int64
	started  map[string]bool
	cur      *tableWriter
	result   resultset.Result
	done     bool
	failed   error
	progress int64
	stats    map[string]*idStats // by upper-case table name, see streamcheck.go
}

// Begin starts a result set: it takes the allocation lock, makes sure the
// tables exist (creating them before the transaction where DDL commits, as
// on MySQL), allocates the INST_ID and writes the RELATIONS rows, all inside
// the result set's transaction.
//
// When the dialect recognises conflicts with concurrent transactions
// (dialects.Retrier) and Options.Retries is above 0, the result set is
// written again in a new transaction after such a conflict, up to Retries
// times (see retry.go).
func (e *Exporter) Begin(ctx context.Context, h resultset.Header) (resultset.ResultWriter, error) {
	if err := e.st.Writable(); err != nil {
		return nil, errorf("%w", err)
	}
	if r, ok := e.d.(dialects.Retrier); ok && e.opts.Retries > 0 {
		return e.beginRetrying(ctx, h, r)
	}
	return e.begin(ctx, h)
}

// begin starts one attempt at a result set: one session.
func (e *Exporter) begin(ctx context.Context, h resultset.Header) (*session, error) {
	def, err := profilers.Lookup(h.Profiler)
	if err != nil {
		return nil, errorf("%w", err)
	}
	if _, err := h.Counter.FrequencyValue(); err != nil {
		return nil, errorf("INSTANCES, column COUNTER_FREQUENCY: %w", err)
	}
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return nil, errorf("connect to %s: %w", e.st.String(), err)
	}
	s := &session{e: e, ctx: ctx, def: def, header: h, conn: conn, started: map[string]bool{}}
	if err := s.begin(); err != nil {
		s.abort()
		return nil, e.st.ExplainReadOnly(ctx, err)
	}
	return s, nil
}

func (s *session) begin() error {
	ctx, d := s.ctx, s.e.d
	var acquire []string
	if l, ok := d.(dialects.Locker); ok {
		acquire, s.release = l.Lock(s.e.sopts.Schema)
	}
	all, err := profilers.Tables(s.def)
	if err != nil {
		return errorf("%w", err)
	}
	if d.Facts().DDLCommits {
		// The session lock is taken first so that concurrent exporters do
		// not race to create tables; the tables are made before the data
		// transaction, since DDL would commit it (an empty table is not a
		// result set).
		if err := dialects.ExecAll(ctx, s.conn, acquire); err != nil {
			return errorf("lock: %w", err)
		}
		tables, _, err := s.e.ensureTables(ctx, s.conn, all, false)
		if err != nil {
			return err
		}
		s.tables = tables
	}
	tx, err := s.e.st.BeginWrite(ctx, s.conn)
	if err != nil {
		return errorf("begin transaction: %w", err)
	}
	s.tx = tx
	if !d.Facts().DDLCommits {
		if err := dialects.ExecAll(ctx, tx, acquire); err != nil {
			return errorf("lock: %w", err)
		}
		tables, indexes, err := s.e.ensureTables(ctx, tx, all, true)
		if err != nil {
			return err
		}
		s.tables, s.indexes = tables, indexes
	}
	if p, ok := d.(dialects.FewSetsPlanner); ok {
		// From here on, each statement of the export selects the rows of
		// its INST_ID (or the largest INST_ID and ID, by their indexes).
		if err := dialects.ExecAll(ctx, tx, p.FewSetsSettings()); err != nil {
			return errorf("begin transaction: %w", err)
		}
	}
	return s.allocate()
}

// allocate picks the INST_ID and writes the RELATIONS rows: one per table of
// the profiler, with its parent or NULL (docs/layout.md, "The parent-child
// graph").
func (s *session) allocate() error {
	ctx, d := s.ctx, s.e.d
	inst := s.tables[profilers.InstancesTable]
	rel := s.tables[profilers.RelationsTable]
	instMax, err := s.largest(inst, ddl.InstID)
	if err != nil {
		return errorf("allocate INST_ID: %w", err)
	}
	s.instID = instMax + 1
	if err := s.record(); err != nil {
		return err
	}

	relCols := []string{"COL_CHILD_TABLE", "COL_PARENT_TABLE", ddl.ID, ddl.InstID}
	real, err := rel.realNames(relCols...)
	if err != nil {
		return err
	}
	relMax, err := s.largest(rel, ddl.ID)
	if err != nil {
		return errorf("allocate RELATIONS IDs: %w", err)
	}
	args := make([]any, 0, 4*len(s.def.Tables))
	for i, t := range s.def.Tables {
		var parent any
		if t.Parent != "" {
			parent = t.Parent
		}
		args = append(args, s.bind(ddl.String, t.Name), s.bind(ddl.String, parent), relMax+1+int64(i), s.instID)
	}
	per := dialects.RowsPerInsert(d.Facts().Limits, len(relCols))
	for len(args) > 0 {
		n := min(per, len(args)/len(relCols))
		stmt := dialects.InsertSQL(d, rel.qualified, real, n)
		if _, err := s.tx.ExecContext(ctx, stmt, args[:n*len(relCols)]...); err != nil {
			return errorf("write RELATIONS: %w", s.e.allocConflict(err))
		}
		args = args[n*len(relCols):]
	}
	s.result = resultset.Result{InstID: s.instID, Profiler: s.def.Name, Caption: s.header.Caption, Tables: map[string]int64{}}
	return nil
}

// record allocates the INST_ID past the largest PROFDB_RESULT_SETS ever
// recorded, deleted result sets included, so that no INST_ID is given out
// twice, and records the result set there: when, where, from what input,
// and the run's identity (the header's Run) where the table has its
// columns. Without that table (a
// --no-create export into a database that lacks it) it does nothing.
func (s *session) record() error {
	led, ok := s.tables[profilers.ResultSetsTable]
	if !ok {
		return nil
	}
	real, err := led.realNames(ddl.InstID, profilers.ColExportedAt, profilers.ColHost, profilers.ColInput, profilers.ColVersion)
	if err != nil {
		return err
	}
	recorded, err := s.largest(led, ddl.InstID)
	if err != nil {
		return errorf("allocate INST_ID: %w", err)
	}
	s.instID = max(s.instID, recorded+1)
	host, _ := os.Hostname()
	args := []any{s.instID, s.bind(ddl.String, s.e.st.Now().UTC().Format(store.TimeFormat)), s.bind(ddl.String, nullIfEmpty(host)),
		s.bind(ddl.String, nullIfEmpty(s.header.Input)), s.bind(ddl.String, nullIfEmpty(s.e.opts.Version))}
	run := s.header.Run
	if run == nil {
		run = &resultset.Run{}
	}
	var dirty any
	if run.Dirty != nil {
		dirty = int64(0)
		if *run.Dirty {
			dirty = int64(1)
		}
	}
	identity := map[string]any{
		profilers.ColProfiler: s.def.Name, profilers.ColCommit: strings.ToLower(run.Commit), profilers.ColBranch: run.Branch,
		profilers.ColCI: run.CI, profilers.ColBuildID: run.BuildID, profilers.ColBuildURL: run.BuildURL,
	}
	for _, name := range profilers.IdentityColumns {
		c, ok := led.cols[strings.ToUpper(name)]
		if !ok {
			continue // a PROFDB_RESULT_SETS made before profdb recorded it
		}
		real = append(real, c.info.Name)
		if name == profilers.ColDirty {
			args = append(args, s.bind(ddl.Integer, dirty))
		} else {
			args = append(args, s.bind(ddl.String, nullIfEmpty(identity[name].(string))))
		}
	}
	if _, err := s.tx.ExecContext(s.ctx, dialects.InsertSQL(s.e.d, led.qualified, real, 1), args...); err != nil {
		return errorf("write %s: %w", led.real, s.e.allocConflict(err))
	}
	return nil
}

// largest returns the largest value of a documented integer column of lt,
// 0 when the table is empty.
func (s *session) largest(lt *liveTable, column string) (int64, error) {
	c, err := lt.column(column)
	if err != nil {
		return 0, err
	}
	var v sql.NullInt64
	q := fmt.Sprintf("SELECT MAX(%s) FROM %s", s.e.d.Quote(c.info.Name), lt.qualified)
	if err := s.tx.QueryRowContext(s.ctx, q).Scan(&v); err != nil {
		return 0, err
	}
	return v.Int64, nil
}

func (s *session) bind(t ddl.Type, v any) any { return s.e.st.Bind(t, v) }

// InstID returns the INST_ID allocated to the result set.
func (s *session) InstID() int64 { return s.instID }

// SetHeader implements ResultWriter.
func (s *session) SetHeader(h resultset.Header) error {
	if h.Profiler != "" && h.Profiler != s.def.Name {
		return errorf("result set of profiler %s cannot become %s", s.def.Name, h.Profiler)
	}
	if _, err := h.Counter.FrequencyValue(); err != nil {
		return errorf("INSTANCES, column COUNTER_FREQUENCY: %w", err)
	}
	h.Profiler = s.def.Name
	// What record wrote when the result set began stays.
	h.Input, h.Run = s.header.Input, s.header.Run
	s.header = h
	s.result.Caption = h.Caption
	return nil
}

// Table implements ResultWriter.
func (s *session) Table(name string, columns []string) (resultset.TableWriter, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	if err := s.endTable(); err != nil {
		return nil, s.fail(err)
	}
	def, ok := s.def.Table(name)
	if !ok {
		return nil, s.fail(errorf("profiler %s has no table %s", s.def.Name, name))
	}
	if s.started[def.Name] {
		return nil, s.fail(errorf("table %s given twice in one result set", def.Name))
	}
	s.started[def.Name] = true
	tw, err := s.newTableWriter(def, columns)
	if err != nil {
		return nil, s.fail(err)
	}
	s.cur = tw
	return tw, nil
}

func (s *session) usable() error {
	if s.done {
		return errorf("result set already ended")
	}
	return s.failed
}

func (s *session) fail(err error) error {
	if s.failed == nil {
		s.failed = err
	}
	return err
}

func (s *session) endTable() error {
	if s.cur == nil {
		return nil
	}
	tw := s.cur
	s.cur = nil
	if err := tw.close(); err != nil {
		return err
	}
	s.result.Tables[tw.def.Name] = tw.rows
	s.result.Rows += tw.rows
	return nil
}

// phase reports a phase to Options.Phase, if set.
func (s *session) phase(p string) {
	if s.e.sopts.Phase != nil {
		s.e.sopts.Phase(p)
	}
}

// Commit implements ResultWriter: it checks the result set as verify
// would, writes the INSTANCES row last, so that everything a reader can see
// is complete, and commits. A result set that fails the checks is rolled
// back.
func (s *session) Commit() (resultset.Result, error) {
	if err := s.usable(); err != nil {
		return resultset.Result{}, err
	}
	if err := s.endTable(); err != nil {
		s.fail(err)
		return resultset.Result{}, err
	}
	if len(s.indexes) > 0 {
		s.phase(store.PhaseIndexes)
	}
	for _, stmt := range s.indexes {
		if _, err := s.tx.ExecContext(s.ctx, stmt); err != nil {
			s.fail(err)
			return resultset.Result{}, errorf("create index: %w", err)
		}
	}
	s.phase(store.PhaseCheck)
	if err := s.check(); err != nil {
		s.fail(err)
		return resultset.Result{}, err
	}
	s.phase(store.PhaseCommit)
	if err := s.writeRun(); err != nil {
		s.fail(err)
		return resultset.Result{}, err
	}
	if err := s.writeInstance(); err != nil {
		s.fail(err)
		return resultset.Result{}, err
	}
	if err := s.tx.Commit(); err != nil {
		s.fail(err)
		return resultset.Result{}, errorf("commit: %w", err)
	}
	s.tx = nil
	s.unlock()
	s.refreshStats()
	s.finish()
	for _, t := range s.def.Tables {
		if _, ok := s.result.Tables[t.Name]; !ok {
			s.result.Tables[t.Name] = 0
		}
	}
	return s.result, nil
}

// check runs the checks verify runs (store.Catalog.Check) on the result set,
// inside its transaction, before INSTANCES lists it: a result set that
// fails them is refused, naming each table and the rows at fault.
func (s *session) check() error {
	tables := make(map[string]string, len(s.tables))
	columns := make(map[string]map[string]string, len(s.tables))
	for key, lt := range s.tables {
		tables[key] = lt.real
		cols := make(map[string]string, len(lt.cols))
		for name, lc := range lt.cols {
			cols[name] = lc.info.Name
		}
		columns[key] = cols
	}
	c := s.e.st.KnownCatalog(s.tx, tables, columns)
	findings, err := c.Check(s.ctx, s.instID, s.proven)
	if err != nil {
		return errorf("check: %w", err)
	}
	if len(findings) == 0 {
		return nil
	}
	if s.aborted() {
		return &conflictError{errorf("check: the server ended the transaction before the check ran (a concurrent transaction on another node won)")}
	}
	msgs := make([]string, len(findings))
	for i, f := range findings {
		msgs[i] = "table " + f.Table + ": " + f.Message
	}
	return errorf("result set refused, nothing written: %s", strings.Join(msgs, "; "))
}

// aborted reports whether the server has ended the session's transaction
// behind its back (see dialects.TxProber), so that what the check saw is
// not what the session wrote. Without the capability, or when the probe
// fails, it reports false and the findings stand.
func (s *session) aborted() bool {
	p, ok := s.e.d.(dialects.TxProber)
	if !ok {
		return false
	}
	var open int64
	if err := s.tx.QueryRowContext(s.ctx, p.TxOpenSQL()).Scan(&open); err != nil {
		return false
	}
	return open == 0
}

// writeRun records what record could not: the run's labels in
// PROFDB_LABELS and what a merge combined in PROFDB_MERGE_SOURCES, where
// the database has those tables.
func (s *session) writeRun() error {
	run := s.header.Run
	if run == nil {
		return nil
	}
	if lt, ok := s.tables[profilers.LabelsTable]; ok && len(run.Labels) > 0 {
		keys := make([]string, 0, len(run.Labels))
		for k := range run.Labels {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		real, err := lt.realNames(ddl.InstID, profilers.ColLabelKey, profilers.ColLabelValue)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if _, err := s.tx.ExecContext(s.ctx, dialects.InsertSQL(s.e.d, lt.qualified, real, 1),
				s.instID, s.bind(ddl.String, k), s.bind(ddl.String, run.Labels[k])); err != nil {
				return errorf("write %s: %w", lt.real, err)
			}
		}
	}
	if mt, ok := s.tables[profilers.MergeSourcesTable]; ok && len(run.MergedFrom) > 0 {
		real, err := mt.realNames(ddl.InstID, profilers.ColSourceInstID)
		if err != nil {
			return err
		}
		for _, src := range run.MergedFrom {
			if _, err := s.tx.ExecContext(s.ctx, dialects.InsertSQL(s.e.d, mt.qualified, real, 1), s.instID, src); err != nil {
				return errorf("write %s: %w", mt.real, err)
			}
		}
	}
	return nil
}

func (s *session) writeInstance() error {
	inst := s.tables[profilers.InstancesTable]
	cols := []string{"CAPTION", "COUNTER_DESCRIPTION", "COUNTER_FREQUENCY", "COUNTER_NAME", ddl.InstID}
	var name, desc, freq any
	if c := s.header.Counter; c != nil {
		name, desc = nullIfEmpty(c.Name), nullIfEmpty(c.Description)
		freq, _ = c.FrequencyValue()
	}
	vals := []any{s.header.Caption, desc, freq, name, s.instID}
	types := []ddl.Type{ddl.String, ddl.String, ddl.Decimal, ddl.String, ddl.Integer}
	real := make([]string, len(cols))
	for i, c := range cols {
		lc, err := inst.column(c)
		if err != nil {
			return err
		}
		real[i] = lc.info.Name
		if lc.check != nil {
			if err := lc.check(vals[i]); err != nil {
				return errorf("table INSTANCES, column %s: %w", c, err)
			}
		}
		vals[i] = s.bind(types[i], vals[i])
	}
	stmt := dialects.InsertSQL(s.e.d, inst.qualified, real, 1)
	if _, err := s.tx.ExecContext(s.ctx, stmt, vals...); err != nil {
		return errorf("write INSTANCES: %w", s.e.allocConflict(err))
	}
	return nil
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Rollback implements ResultWriter.
func (s *session) Rollback() error {
	if s.done {
		return nil
	}
	return s.abort()
}

func (s *session) abort() error {
	var err error
	if s.cur != nil {
		s.cur.abort()
		s.cur = nil
	}
	if s.tx != nil {
		err = s.tx.Rollback()
		if errors.Is(err, sql.ErrTxDone) {
			err = nil
		}
		s.tx = nil
	}
	if s.leave != "" && s.conn != nil {
		// The connection goes back to the pool: as it was.
		if _, lerr := s.conn.ExecContext(context.WithoutCancel(s.ctx), s.leave); lerr != nil && err == nil {
			err = errorf("set the session back after long rows: %w", lerr)
		}
		s.leave = ""
	}
	s.finish()
	return err
}

// finish releases a session lock and the connection.
func (s *session) finish() {
	s.done = true
	if s.conn == nil {
		return
	}
	s.unlock()
	s.conn.Close()
	s.conn = nil
}

// unlock releases a session lock, once.
func (s *session) unlock() {
	if len(s.release) > 0 {
		// A fresh context: the export's may be cancelled, and the lock
		// must be given back all the same (a closed connection gives it
		// back too).
		_ = dialects.ExecAll(context.Background(), s.conn, s.release)
		s.release = nil
	}
}

// refreshStats has the dialect refresh the statistics of each table the
// committed result set wrote rows into, where they are stale
// (dialects.StatsRefresher), so that the next command is planned with
// estimates that know the rows: docs/performance.md, "Plans and
// statistics". Tables this export created are left alone: all their rows
// are the result set's, a statement about it is planned from the table's
// real size, and the next export into them finds them never analysed. The
// result set is committed: a failure is a note (store.Options.Logf), never
// the export's error.
func (s *session) refreshStats() {
	r, ok := s.e.d.(dialects.StatsRefresher)
	if !ok {
		return
	}
	written := map[string]int64{
		profilers.InstancesTable: 1,
		profilers.RelationsTable: int64(len(s.def.Tables)),
	}
	if _, ok := s.tables[profilers.ResultSetsTable]; ok {
		written[profilers.ResultSetsTable] = 1
	}
	for name, n := range s.result.Tables {
		written[name] = n
	}
	names := make([]string, 0, len(written))
	for name, n := range written {
		if t := s.tables[name]; n > 0 && t != nil && !t.created {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return
	}
	sort.Strings(names)
	s.phase(store.PhaseStatistics)
	for _, name := range names {
		if s.ctx.Err() != nil {
			return
		}
		if _, err := r.RefreshStats(s.ctx, s.conn, s.e.sopts.Schema, s.tables[name].real, written[name]); err != nil && s.e.sopts.Logf != nil {
			s.e.sopts.Logf("INST_ID %d is committed; the statistics of table %s were not updated: %v", s.instID, name, err)
		}
	}
}

// quoteList quotes names for messages.
func quoteList(names []string) string { return strings.Join(names, ", ") }
