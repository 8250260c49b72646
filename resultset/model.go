package resultset

import (
	"context"
	"fmt"
	"iter"

	"github.com/profdb/profdb/ddl"
)

// Header is what the INSTANCES row of a result set records, plus the
// profiler whose tables it fills.
type Header struct {
	Profiler string   // a registered profiler name, e.g. "function-trace"
	Caption  string   // the result set's name
	Counter  *Counter // nil when the profiler has no counter
	// Input is what the result set was read from (a file name, "-" for
	// standard input), recorded in profdb's own PROFDB_RESULT_SETS table,
	// not in INSTANCES; "" when unknown.
	Input string
	// Run is what the result set was a run of, recorded in profdb's own
	// tables; nil when nothing is known.
	Run *Run
}

// Run is a run's identity: where its code came from, which build made
// it, and the labels it was given. Every field is optional.
type Run struct {
	Commit   string `json:"commit,omitempty"`    // the commit's full hexadecimal object name
	Branch   string `json:"branch,omitempty"`    // the branch, without refs/heads/
	Dirty    *bool  `json:"dirty,omitempty"`     // whether the working tree had changes not committed; nil when unknown
	CI       string `json:"ci,omitempty"`        // the CI system: github-actions, gitlab-ci, jenkins, azure-pipelines, teamcity, circleci, buildkite, bitbucket-pipelines; "git" when read from git alone
	BuildID  string `json:"build_id,omitempty"`  // the CI's number or ID of the build
	BuildURL string `json:"build_url,omitempty"` // the address of the build's page
	// Labels are KEY=VALUE pairs the user gave (suite, os, shard…).
	Labels map[string]string `json:"labels,omitempty"`
	// MergedFrom are the INST_IDs of the result sets a merge combined,
	// as numbered in the database it read them from.
	MergedFrom []int64 `json:"merged_from,omitempty"`
}

// Counter describes the counter a result set was measured with.
type Counter struct {
	Name        string // COUNTER_NAME, e.g. "Time"
	Description string // COUNTER_DESCRIPTION, e.g. "Elapsed Time"
	Frequency   any    // COUNTER_FREQUENCY, a Decimal: an integer, json.Number or decimal text; nil for none
}

// FrequencyValue returns the counter's frequency converted as a Decimal
// (nil for none, or for a nil counter).
func (c *Counter) FrequencyValue() (any, error) {
	if c == nil || c.Frequency == nil {
		return nil, nil
	}
	return Convert(ddl.Decimal, c.Frequency)
}

// errorf makes a write error, as the exporter's own.
func errorf(format string, args ...any) error {
	return fmt.Errorf("write: "+format, args...)
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

// Export writes rs to t: Begin, every table in parent-before-child order,
// Commit. On any error the result set is rolled back.
func Export(ctx context.Context, t Target, rs *ResultSet) (Result, error) {
	w, err := t.Begin(ctx, rs.Header)
	if err != nil {
		return Result{}, err
	}
	ordered, err := OrderTables(rs.Profiler, rs.Tables)
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

// ChildRows returns the rows of a child table held as lists under its
// parents: for each parent p, in order, row(p, pos, c, id) builds the row
// of its pos-th child c (children(p)[pos]), id counting the table's rows
// from 0 in that order, as a builder numbers a child table's IDs. It suits
// TableRows.Rows as IndexedRows does.
func ChildRows[P, C any](parents []P, children func(p P) []C, row func(p P, pos int, c C, id int64) []any) iter.Seq2[[]any, error] {
	return func(yield func([]any, error) bool) {
		id := int64(0)
		for _, p := range parents {
			for pos, c := range children(p) {
				if !yield(row(p, pos, c, id), nil) {
					return
				}
				id++
			}
		}
	}
}
