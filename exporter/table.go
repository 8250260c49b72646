package exporter

import (
	"database/sql"
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/resultset"
)

// tableWriter streams the rows of one table into batched INSERTs (or a
// dialect's bulk path).
type tableWriter struct {
	s        *session
	def      ddl.Table
	lt       *liveTable
	names    []string // documented column names, for messages
	types    []ddl.Type
	checks   []func(any) error
	real     []string // real column names, INST_ID last
	pos      []int    // for each input column, its place in real; -1 for a column the table lacks
	ncols    int      // columns per input row
	rows     int64    // rows written
	buf      []any
	bufRows  int
	bufBytes int
	perStmt  int
	stmt     *sql.Stmt
	bulk     *bulkFeed
	stats    *idStats // see streamcheck.go
	idAt     int      // input column of ID, -1 if not given
	pidAt    int      // input column of PARENT_ID, -1 if not given
	idVal    any      // this row's converted ID and PARENT_ID
	pidVal   any
}

var _ resultset.TableWriter = (*tableWriter)(nil)

func (s *session) newTableWriter(def ddl.Table, columns []string) (*tableWriter, error) {
	lt := s.tables[strings.ToUpper(def.Name)]
	tw := &tableWriter{s: s, def: def, lt: lt, ncols: len(columns)}
	if s.stats == nil {
		s.stats = map[string]*idStats{}
	}
	var parent *idStats
	if def.Parent != "" {
		parent = s.stats[strings.ToUpper(def.Parent)] // written before, or nil
	}
	tw.stats, tw.idAt, tw.pidAt = newIDStats(def, columns, parent)
	s.stats[strings.ToUpper(def.Name)] = tw.stats
	seen := map[string]bool{}
	for _, c := range columns {
		col, ok := def.Column(c)
		if !ok {
			return nil, errorf("table %s has no column %s (columns: %s)", def.Name, c, quoteList(def.ColumnNames()))
		}
		if col.Name == ddl.InstID {
			return nil, errorf("table %s: INST_ID is assigned by profdb and must not be given", def.Name)
		}
		if seen[col.Name] {
			return nil, errorf("table %s: column %s given twice", def.Name, col.Name)
		}
		seen[col.Name] = true
		tw.names = append(tw.names, col.Name)
		tw.types = append(tw.types, col.Type)
		lc, err := lt.column(col.Name)
		if err != nil {
			// A table a DBA made may lack documented columns: rows that
			// leave them NULL are fine, a value for one is an error
			// (see Write).
			tw.checks = append(tw.checks, nil)
			tw.pos = append(tw.pos, -1)
			continue
		}
		tw.checks = append(tw.checks, lc.check)
		tw.pos = append(tw.pos, len(tw.real))
		tw.real = append(tw.real, lc.info.Name)
	}
	inst, err := lt.column(ddl.InstID)
	if err != nil {
		return nil, err
	}
	tw.real = append(tw.real, inst.info.Name)
	tw.perStmt = dialects.RowsPerInsert(s.e.d.Facts().Limits, len(tw.real))
	if err := tw.startBulk(); err != nil {
		return nil, err
	}
	if tw.bulk == nil {
		tw.buf = make([]any, 0, tw.perStmt*len(tw.real))
	}
	return tw, nil
}

// Write implements TableWriter.
func (tw *tableWriter) Write(row []any) error {
	s := tw.s
	if err := s.usable(); err != nil {
		return err
	}
	if s.cur != tw {
		return s.fail(errorf("table %s: rows written after the next table started", tw.def.Name))
	}
	if len(row) != tw.ncols {
		return s.fail(errorf("table %s, row %d: %d values for %d columns", tw.def.Name, tw.rowNo(), len(row), tw.ncols))
	}
	start := len(tw.buf)
	tw.idVal, tw.pidVal = nil, nil
	var vals []any
	if tw.bulk != nil {
		vals = tw.bulk.next()
	}
	for i, v := range row {
		j := tw.pos[i]
		if j < 0 {
			if v != nil {
				tw.buf = tw.buf[:start]
				return s.fail(errorf("table %s, column %s, row %d: the table in the database has no column %s to hold the value",
					tw.def.Name, tw.names[i], tw.rowNo(), tw.names[i]))
			}
			continue
		}
		cv, err := resultset.Convert(tw.types[i], v)
		if err == nil && tw.checks[i] != nil {
			err = tw.checks[i](cv)
		}
		if err != nil {
			tw.buf = tw.buf[:start]
			return s.fail(errorf("table %s, column %s, row %d: %w", tw.def.Name, tw.names[i], tw.rowNo(), err))
		}
		switch i {
		case tw.idAt:
			tw.idVal = cv
		case tw.pidAt:
			tw.pidVal = cv
		}
		if tw.bulk != nil {
			vals[j] = cv
			continue
		}
		tw.buf = append(tw.buf, s.bind(tw.types[i], cv))
	}
	tw.stats.add(tw.def.Parent == "", tw.idVal, tw.pidVal)
	if tw.bulk != nil {
		vals[len(tw.real)-1] = s.instID
		if err := tw.bulk.push(vals); err != nil {
			return s.fail(errorf("table %s: %w", tw.def.Name, err))
		}
		if tw.bulk.queued%bulkBatch == 0 {
			s.progressed(tw.bulk.queued)
		}
		return nil
	}
	tw.buf = append(tw.buf, s.instID)
	tw.bufRows++
	tw.bufBytes += dialects.RowBytes(tw.buf[start:])
	if tw.bufRows == tw.perStmt || tw.bufBytes >= maxBatchBytes {
		return tw.flush()
	}
	return nil
}

// rowNo is the 1-based number of the row being written.
func (tw *tableWriter) rowNo() int64 { return tw.rows + int64(tw.bufRows) + tw.bulkRows() + 1 }

func (tw *tableWriter) flush() error {
	if tw.bufRows == 0 {
		return nil
	}
	s := tw.s
	if err := tw.longRows(); err != nil {
		return err
	}
	var err error
	if tw.bufRows == tw.perStmt {
		if tw.stmt == nil {
			q := dialects.InsertSQL(s.e.d, tw.lt.qualified, tw.real, tw.perStmt)
			tw.stmt, err = s.tx.PrepareContext(s.ctx, q)
			if err != nil {
				return s.fail(errorf("table %s: prepare insert: %w", tw.def.Name, err))
			}
		}
		_, err = tw.stmt.ExecContext(s.ctx, tw.buf...)
	} else {
		q := dialects.InsertSQL(s.e.d, tw.lt.qualified, tw.real, tw.bufRows)
		_, err = s.tx.ExecContext(s.ctx, q, tw.buf...)
	}
	if err != nil {
		return s.fail(errorf("table %s, rows %d-%d: %w", tw.def.Name, tw.rows+1, tw.rows+int64(tw.bufRows), err))
	}
	tw.rows += int64(tw.bufRows)
	clear(tw.buf) // holds no string until the next rows
	tw.buf = tw.buf[:0]
	tw.bufRows, tw.bufBytes = 0, 0
	s.progressed(tw.rows)
	return nil
}

// longRows sets the session for rows of long values (dialects.LongRowTuner)
// before the first batch of maxBatchBytes or more of the table.
func (tw *tableWriter) longRows() error {
	s := tw.s
	lt, ok := s.e.d.(dialects.LongRowTuner)
	if !ok || tw.bufBytes < maxBatchBytes || s.leave != "" {
		return nil
	}
	enter, leave := lt.LongRowSQL()
	if _, err := s.tx.ExecContext(s.ctx, enter); err != nil {
		return s.fail(errorf("table %s: set the session for long rows: %w", tw.def.Name, err))
	}
	s.leave = leave
	return nil
}

// shortRows sets the session back after rows of long values, if longRows
// set it.
func (tw *tableWriter) shortRows() error {
	s := tw.s
	if s.leave == "" {
		return nil
	}
	if _, err := s.tx.ExecContext(s.ctx, s.leave); err != nil {
		return s.fail(errorf("table %s: set the session back after long rows: %w", tw.def.Name, err))
	}
	s.leave = ""
	return nil
}

func (s *session) progressed(tableRows int64) {
	if s.e.opts.Progress != nil {
		s.e.opts.Progress(s.result.Rows + tableRows)
	}
}

func (tw *tableWriter) close() error {
	defer tw.closeStmt()
	if tw.bulk != nil {
		n, err := tw.bulk.close()
		tw.rows += n
		if err != nil {
			return tw.s.fail(err)
		}
		tw.s.progressed(tw.rows)
		return nil
	}
	if err := tw.flush(); err != nil {
		return err
	}
	return tw.shortRows()
}

func (tw *tableWriter) abort() {
	if tw.bulk != nil {
		tw.bulk.abort()
	}
	tw.closeStmt()
}

func (tw *tableWriter) closeStmt() {
	if tw.stmt != nil {
		tw.stmt.Close()
		tw.stmt = nil
	}
}
