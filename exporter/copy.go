package exporter

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// Copied is a result set Copy wrote: its INST_ID at the source and, as the
// target reports it, its INST_ID and figures there.
type Copied struct {
	SourceInstID int64 `json:"source_inst_id"`
	resultset.Result
}

// Line is the line profdb copy prints for a result set it copied:
// `INST_ID 3 -> INST_ID 7  light-coverage  64 rows  "caption"`, the
// source's INST_ID, then the Line of the result set written.
func (c Copied) Line() string {
	return "INST_ID " + strconv.FormatInt(c.SourceInstID, 10) + " -> " + c.Result.Line()
}

// CopyError is the error of copying one result set. Source tells the side
// that failed: reading the source (true) or writing the target (false),
// including the rows of the source read while the target writes them.
type CopyError struct {
	InstID int64 // the result set's INST_ID at the source
	Source bool
	Err    error
}

func (e *CopyError) Error() string {
	if e.Source {
		return fmt.Sprintf("copy: reading source INST_ID %d: %v", e.InstID, e.Err)
	}
	return fmt.Sprintf("copy: writing INST_ID %d to the target: %v", e.InstID, e.Err)
}

func (e *CopyError) Unwrap() error { return e.Err }

// CopyObserver hears of each result set Copy copies, in Copy's goroutine.
type CopyObserver interface {
	// Reading: the result set is about to be read from the source.
	Reading(inst int64)
	// Committing: its transaction at the target is committing; an
	// interruption from now on leaves the outcome to the server.
	Committing(inst int64)
	// Committed: it is committed at the target.
	Committed(c Copied)
	// RolledBack: its transaction at the target ended without commit.
	RolledBack(inst int64)
}

// CopyOptions tune Copy.
type CopyOptions struct {
	// Input, when not nil, gives the Input recorded at the target for the
	// result set of INST_ID inst at the source (e.g. "INST_ID 3 of
	// sqlite:prof.db"); nil keeps the one the source records.
	Input func(inst int64) string
	// Observer, when not nil, hears of every result set's progress.
	Observer CopyObserver
}

// Copy copies the result sets of src that insts names, in that order,
// into dst (an Exporter, or a Target that wraps one), each as a new result
// set of its own transaction. Each is read in a snapshot of its own that
// ends when its rows have been read, before the target commits (src and
// dst may be the same SQLite file). Copy stops at the first failure, which
// is a *CopyError, and returns what was copied until then. src.List lists
// the INST_IDs there are.
func Copy(ctx context.Context, src *store.DB, dst resultset.Target, insts []int64, o CopyOptions) ([]Copied, error) {
	obs := o.Observer
	if obs == nil {
		obs = nopObserver{}
	}
	out := []Copied{}
	for _, inst := range insts {
		c, err := copyOne(ctx, src, dst, inst, o, obs)
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
	return out, nil
}

// copyOne copies one result set in a snapshot of its own, which ends when
// its rows have been read or at the latest when copyOne returns.
func copyOne(ctx context.Context, src *store.DB, dst resultset.Target, inst int64, o CopyOptions, obs CopyObserver) (Copied, error) {
	obs.Reading(inst)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rs, err := src.ReadUnordered(ctx, inst)
	if err != nil {
		return Copied{}, &CopyError{InstID: inst, Source: true, Err: err}
	}
	markSourceErrors(rs)
	if rs.Run == nil {
		if rs.Run, err = runOf(ctx, src, inst); err != nil {
			return Copied{}, &CopyError{InstID: inst, Source: true, Err: err}
		}
	}
	if o.Input != nil {
		rs.Input = o.Input(inst)
	}
	res, err := resultset.Export(ctx, observedTarget{dst, inst, obs}, rs)
	if err != nil {
		// Export reads the source's rows while it writes: name the side
		// the error came from.
		var se sourceError
		if errors.As(err, &se) {
			return Copied{}, &CopyError{InstID: inst, Source: true, Err: se.err}
		}
		return Copied{}, &CopyError{InstID: inst, Err: err}
	}
	return Copied{SourceInstID: inst, Result: res}, nil
}

// runOf returns the identity src records of the result set inst (its
// commit, branch, CI, build and labels), nil where it records none. What a
// merge combined is not carried: those INST_IDs are the source's.
func runOf(ctx context.Context, src *store.DB, inst int64) (*resultset.Run, error) {
	l, err := src.Select(ctx, store.Filter{InstID: inst})
	if err != nil {
		return nil, err
	}
	if len(l) == 1 && l[0].InstID == inst && l[0].Run != nil {
		r := *l[0].Run
		r.MergedFrom = nil
		return &r, nil
	}
	return nil, nil
}

// sourceError marks an error of reading the source's rows.
type sourceError struct{ err error }

func (e sourceError) Error() string { return e.err.Error() }
func (e sourceError) Unwrap() error { return e.err }

// markSourceErrors makes the row iterators of rs wrap their errors in
// sourceError.
func markSourceErrors(rs *resultset.ResultSet) {
	for i := range rs.Tables {
		rows := rs.Tables[i].Rows
		if rows == nil {
			continue
		}
		rs.Tables[i].Rows = func(yield func([]any, error) bool) {
			for row, err := range rows {
				if err != nil {
					err = sourceError{err}
				}
				if !yield(row, err) {
					return
				}
			}
		}
	}
}

type nopObserver struct{}

func (nopObserver) Reading(int64)    {}
func (nopObserver) Committing(int64) {}
func (nopObserver) Committed(Copied) {}
func (nopObserver) RolledBack(int64) {}

// observedTarget tells an observer of the commit and roll-back of the
// result set inst.
type observedTarget struct {
	resultset.Target
	inst int64
	obs  CopyObserver
}

func (t observedTarget) Begin(ctx context.Context, h resultset.Header) (resultset.ResultWriter, error) {
	w, err := t.Target.Begin(ctx, h)
	if err != nil {
		return nil, err
	}
	return observedWriter{w, t}, nil
}

type observedWriter struct {
	resultset.ResultWriter
	t observedTarget
}

func (w observedWriter) Commit() (resultset.Result, error) {
	w.t.obs.Committing(w.t.inst)
	res, err := w.ResultWriter.Commit()
	if err == nil {
		w.t.obs.Committed(Copied{SourceInstID: w.t.inst, Result: res})
	}
	return res, err
}

func (w observedWriter) Rollback() error {
	err := w.ResultWriter.Rollback()
	w.t.obs.RolledBack(w.t.inst)
	return err
}
