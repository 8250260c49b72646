package exporter

import (
	"context"
	"iter"
	"time"
)

// Header is what the INSTANCES row of a result set records, plus the
// profiler whose tables it fills.
type Header struct {
	Profiler string   // a registered profiler name, e.g. "function-trace"
	Caption  string   // the result set's name
	Counter  *Counter // nil when the profiler has no counter
}

// Counter describes the counter a result set was measured with.
type Counter struct {
	Name        string // COUNTER_NAME, e.g. "Time"
	Description string // COUNTER_DESCRIPTION, e.g. "Elapsed Time"
	Frequency   any    // COUNTER_FREQUENCY, a Decimal: an integer, json.Number or decimal text; nil for none
}

// Result reports one written result set.
type Result struct {
	InstID   int64            `json:"inst_id"`
	Profiler string           `json:"profiler"`
	Caption  string           `json:"caption"`
	Rows     int64            `json:"rows"`
	Tables   map[string]int64 `json:"tables"` // rows per table, by documented name
}

// Target receives result sets. Begin starts one; the returned ResultWriter
// takes its tables and rows and ends with Commit or Rollback.
type Target interface {
	Begin(ctx context.Context, h Header) (ResultWriter, error)
}

// ResultWriter writes one result set.
type ResultWriter interface {
	// SetHeader replaces the caption and counter given to Begin (readers
	// that meet them after the rows use it). The profiler cannot change.
	SetHeader(h Header) error
	// Table starts the rows of a table, given by its documented name
	// (matched case-insensitively), with the columns each row will carry, in
	// order. INST_ID is never among them: the writer fills it in. A table
	// may be started only once per result set; starting one ends the
	// previous one.
	Table(name string, columns []string) (TableWriter, error)
	// Commit ends the result set and makes it visible.
	Commit() (Result, error)
	// Rollback abandons the result set; nothing of it remains. It is safe to
	// call after Commit (it then does nothing).
	Rollback() error
}

// TableWriter takes the rows of one table.
type TableWriter interface {
	// Write adds a row: one value per column given to Table, in that order.
	// See Convert for the values accepted. The slice may be reused by the
	// caller after Write returns.
	Write(row []any) error
}

// ResultSet is a whole result set whose tables are iterators, for Export.
type ResultSet struct {
	Header
	Tables []TableRows
}

// TableRows is one table of a ResultSet.
type TableRows struct {
	Name    string
	Columns []string
	Rows    iter.Seq2[[]any, error]
}

// BulkMode selects the write path.
type BulkMode int

const (
	// BulkAuto uses the dialect's native bulk path (COPY, LOAD DATA, bulk
	// copy) where the dialect and server offer it, else batched INSERT.
	BulkAuto BulkMode = iota
	// BulkOff always uses batched multi-row INSERT.
	BulkOff
)

// String returns "auto" or "off".
func (m BulkMode) String() string {
	if m == BulkOff {
		return "off"
	}
	return "auto"
}

// The phases Options.Phase reports.
const (
	// PhaseIndexes: the rows are loaded; the indexes of the tables created
	// for the result set are being built.
	PhaseIndexes = "building indexes"
	// PhaseCheck: the result set is checked as verify would check it
	// (parents exist, IDs unique per table, RELATIONS complete).
	PhaseCheck = "checking"
	// PhaseCommit: the INSTANCES row is written and the transaction commits.
	PhaseCommit = "committing"
)

// ParseBulkMode parses "auto" or "off".
func ParseBulkMode(s string) (BulkMode, error) {
	switch s {
	case "auto", "":
		return BulkAuto, nil
	case "off":
		return BulkOff, nil
	}
	return 0, errorf("bulk mode %q: want auto or off", s)
}

// Options tune a DB.
type Options struct {
	// NoCreate forbids creating tables: a missing table is an error. For
	// logins without CREATE rights.
	// On a database that is a file the driver opens itself (SQLite), a
	// missing file is an error too, instead of a new empty database.
	NoCreate bool
	// ReadOnly opens the database for reading only: nothing is created
	// (a missing SQLite file is an error naming it), locked for writing or
	// written, and Begin and Delete fail. List, Verify and Read read in one
	// consistent snapshot whether it is set or not.
	ReadOnly bool
	// Schema is an existing PostgreSQL or SQL Server schema, or MySQL
	// database, to write into; "" means the connection's default.
	Schema string
	// Bulk selects the write path.
	Bulk BulkMode
	// Progress, if set, is called after each batch with the rows written
	// so far in the current result set.
	Progress func(rows int64)
	// Phase, if set, is called when writing a result set enters a phase
	// after its rows are loaded: PhaseIndexes, PhaseCheck, PhaseCommit.
	Phase func(phase string)
	// Logf, if set, receives notes (for example why a bulk path was not
	// used, or that a result set is written again after a conflict).
	Logf func(format string, args ...any)
	// Retries is how many times a result set is written again, each time
	// in a new transaction after a pause that grows, when a concurrent
	// transaction made the server abort it: a deadlock, a serialization
	// failure, a cluster's certification conflict (Galera), or an INST_ID
	// another exporter took first. 0 never retries. The rows are kept (in
	// memory, then in a temporary file) until the result set is committed,
	// so that they can be written again. Dialects that cannot tell such
	// conflicts (dialects.Retrier) never retry.
	Retries int
	// ConnectTimeout bounds opening a connection to a database server: TCP
	// connection, handshake, login and the first ping. 0 means
	// DefaultConnectTimeout; a negative value, none.
	ConnectTimeout time.Duration
	// IOTimeout is how long a server may stay silent while profdb waits for
	// it, or leave unread what profdb sends, before the operation fails. 0
	// means DefaultIOTimeout; a negative value, none. It applies to the
	// dialects that implement dialects.Connector (all but SQLite).
	IOTimeout time.Duration
}

// timeout returns a timeout option's value: the default for 0, none (0)
// for a negative value.
func timeout(v, def time.Duration) time.Duration {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// DefaultRetries is the Retries the command-line tool uses unless told
// otherwise. Eight exporters racing on a three-node Galera cluster took up
// to five attempts for one result set (integration/galera); ten retries,
// whose pauses add up to about half a minute at most, leave room.
const DefaultRetries = 10

// Export writes rs to t: Begin, every table in parent-before-child order,
// Commit. On any error the result set is rolled back.
func Export(ctx context.Context, t Target, rs *ResultSet) (Result, error) {
	w, err := t.Begin(ctx, rs.Header)
	if err != nil {
		return Result{}, err
	}
	ordered, err := orderTables(rs.Profiler, rs.Tables)
	if err != nil {
		w.Rollback()
		return Result{}, err
	}
	for _, tr := range ordered {
		tw, err := w.Table(tr.Name, tr.Columns)
		if err != nil {
			w.Rollback()
			return Result{}, err
		}
		if tr.Rows == nil {
			continue
		}
		for row, err := range tr.Rows {
			if err == nil {
				err = tw.Write(row)
			}
			if err == nil {
				err = ctx.Err()
			}
			if err != nil {
				w.Rollback()
				return Result{}, err
			}
		}
	}
	res, err := w.Commit()
	if err != nil {
		w.Rollback()
		return Result{}, err
	}
	return res, nil
}

// IndexedRows returns the rows of a table held as n items: row(i) builds
// the i-th row, for i from 0 to n-1. It suits TableRows.Rows when a
// builder keeps its data in slices.
func IndexedRows(n int, row func(i int) []any) iter.Seq2[[]any, error] {
	return func(yield func([]any, error) bool) {
		for i := range n {
			if !yield(row(i), nil) {
				return
			}
		}
	}
}
