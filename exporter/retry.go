package exporter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/internal/spool"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/resultset"
)

// Backoff between attempts: the first pause is about retryBase, each next
// one twice as long, at most retryMax; each is drawn at random from its
// upper half so that exporters that conflicted do not meet again.
const (
	retryBase = 100 * time.Millisecond
	retryMax  = 5 * time.Second
)

// conflictError marks an error that means a concurrent exporter took the
// keys this one allocated (a duplicate INST_ID or RELATIONS ID).
type conflictError struct{ err error }

func (e *conflictError) Error() string { return e.err.Error() }
func (e *conflictError) Unwrap() error { return e.err }

// allocConflict wraps err, met writing a key this exporter allocated, as a
// conflict when the dialect calls it a duplicate key.
func (e *Exporter) allocConflict(err error) error {
	if r, ok := e.d.(dialects.Retrier); ok && r.DuplicateKey(err) {
		return &conflictError{err}
	}
	return err
}

// retryWriter is the ResultWriter of a DB whose dialect tells conflicts
// (dialects.Retrier). It writes through to a session and keeps what it
// wrote: the header, the tables started and their rows (in a spool: memory,
// then a temporary file). When the server aborts the session's transaction
// because of a concurrent one, it rolls back, waits, and writes everything
// kept again in a new session, up to Options.Retries times; the caller
// sees none of it unless the last attempt fails.
type retryWriter struct {
	e       *Exporter
	ctx     context.Context
	r       dialects.Retrier
	def     profilers.Definition
	header  resultset.Header
	cur     *session
	curTW   resultset.TableWriter
	tables  []keptTable
	rows    *spool.Spool
	scratch []any
	partial bool  // a row could not be kept: no replay possible
	attempt int   // 1 for the first
	failed  error // sticky
}

// keptTable is a table started in the result set, with the number of its
// rows kept in the spool.
type keptTable struct {
	name    string
	columns []string
	types   []ddl.Type // nil when a column is unknown (the session refuses it)
	rows    int64
}

var _ resultset.ResultWriter = (*retryWriter)(nil)

func (e *Exporter) beginRetrying(ctx context.Context, h resultset.Header, r dialects.Retrier) (resultset.ResultWriter, error) {
	def, err := profilers.Lookup(h.Profiler)
	if err != nil {
		return nil, errorf("%w", err)
	}
	w := &retryWriter{e: e, ctx: ctx, r: r, def: def, header: h, attempt: 1, rows: spool.New(0, "")}
	if err := w.run(w.replay, false); err != nil {
		w.rows.Close()
		return nil, err
	}
	return w, nil
}

// retryable reports whether err is a conflict that a new attempt may not
// meet.
func (w *retryWriter) retryable(err error) bool {
	var c *conflictError
	return errors.As(err, &c) || w.r.Retryable(err)
}

// run runs op on the current session. While it fails with a conflict and
// attempts are left, it rolls back, waits and replays everything kept into
// a new session, and, if redo is set, runs op again (otherwise the replay
// did what op did).
func (w *retryWriter) run(op func() error, redo bool) error {
	if w.failed != nil {
		return w.failed
	}
	err := op()
	for err != nil && w.retryable(err) && !w.partial && w.attempt <= w.e.opts.Retries {
		w.abandon()
		w.attempt++
		if w.e.sopts.Logf != nil {
			w.e.sopts.Logf("retrying result set %s: conflict with a concurrent transaction: %v, attempt %d/%d",
				strconv.Quote(w.header.Caption), err, w.attempt, w.e.opts.Retries+1)
		}
		if err = w.pause(); err != nil {
			break
		}
		if err = w.replay(); err == nil && redo {
			err = op()
		}
	}
	if err != nil {
		if w.retryable(err) && w.attempt > 1 {
			err = fmt.Errorf("%w (gave up after %d attempts)", err, w.attempt)
		}
		w.failed = err
		w.abandon()
	}
	return err
}

// pause waits before the next attempt, or until the context ends.
func (w *retryWriter) pause() error {
	d := retryBase << min(w.attempt-2, 10)
	d = min(d, retryMax)
	d = d/2 + rand.N(d/2+1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-w.ctx.Done():
		return errorf("%w", w.ctx.Err())
	case <-t.C:
		return nil
	}
}

// abandon rolls the current session back.
func (w *retryWriter) abandon() {
	if w.cur != nil {
		w.cur.Rollback()
		w.cur, w.curTW = nil, nil
	}
}

// replay starts a new session and writes into it everything kept.
func (w *retryWriter) replay() error {
	s, err := w.e.begin(w.ctx, w.header)
	if err != nil {
		return err
	}
	w.cur = s
	next, stop := iter.Pull2(w.rows.Rows())
	defer stop()
	for _, kt := range w.tables {
		tw, err := s.Table(kt.name, kt.columns)
		if err != nil {
			return err
		}
		w.curTW = tw
		for range kt.rows {
			row, err, ok := next()
			if !ok {
				return errorf("table %s: the kept rows ended early", kt.name)
			}
			if err == nil {
				err = tw.Write(row)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// SetHeader implements ResultWriter.
func (w *retryWriter) SetHeader(h resultset.Header) error {
	return w.run(func() error {
		if err := w.cur.SetHeader(h); err != nil {
			return err
		}
		w.header = w.cur.header
		return nil
	}, true)
}

// Table implements ResultWriter.
func (w *retryWriter) Table(name string, columns []string) (resultset.TableWriter, error) {
	kt := keptTable{name: name, columns: append([]string(nil), columns...)}
	if def, ok := w.def.Table(name); ok {
		kt.types = make([]ddl.Type, len(columns))
		for i, c := range columns {
			col, ok := def.Column(c)
			if !ok {
				kt.types = nil
				break
			}
			kt.types[i] = col.Type
		}
	}
	w.tables = append(w.tables, kt)
	idx := len(w.tables) - 1
	err := w.run(func() error {
		tw, err := w.cur.Table(name, columns)
		w.curTW = tw
		return err
	}, false)
	if err != nil {
		return nil, err
	}
	return &retryTable{w: w, idx: idx}, nil
}

// retryTable is the TableWriter of a retryWriter.
type retryTable struct {
	w   *retryWriter
	idx int
}

// Write implements TableWriter: the row is kept, then written.
func (t *retryTable) Write(row []any) error {
	w := t.w
	if w.failed != nil {
		return w.failed
	}
	kt := &w.tables[t.idx]
	if t.idx != len(w.tables)-1 {
		// The session says what is wrong.
		return w.curTW.Write(row)
	}
	if !w.partial {
		if err := w.keep(kt, row); err != nil {
			return w.run(func() error { return err }, false)
		}
	}
	return w.run(func() error { return w.curTW.Write(row) }, false)
}

// keep appends row to the spool, in values the spool holds; a row it
// cannot hold (wrong width, a value no column type accepts) is left to the
// session to refuse, and ends replaying.
func (w *retryWriter) keep(kt *keptTable, row []any) error {
	if kt.types == nil || len(row) != len(kt.types) {
		w.partial = true
		return nil
	}
	vals, copied := row, false // the values as the spool holds them: row's own, mostly
	for i, v := range row {
		switch x := v.(type) {
		case nil, int64, string, float64, json.Number:
			continue
		case ddl.Dec:
			v = json.Number(x)
		default:
			cv, err := resultset.Convert(kt.types[i], v)
			if err != nil {
				w.partial = true
				return nil
			}
			if d, ok := cv.(ddl.Dec); ok {
				cv = json.Number(d)
			}
			v = cv
		}
		if !copied {
			vals = append(w.scratch[:0], row...)
			w.scratch, copied = vals, true
		}
		vals[i] = v
	}
	err := w.rows.Append(vals)
	if copied {
		clear(vals)
	}
	if err != nil {
		return errorf("table %s: keep rows for a retry: %w", kt.name, err)
	}
	kt.rows++
	return nil
}

// Commit implements ResultWriter.
func (w *retryWriter) Commit() (resultset.Result, error) {
	var res resultset.Result
	err := w.run(func() error {
		var err error
		res, err = w.cur.Commit()
		return err
	}, true)
	w.cur, w.curTW = nil, nil
	w.rows.Close()
	if err != nil {
		return resultset.Result{}, err
	}
	w.failed = errorf("result set already ended")
	return res, nil
}

// Rollback implements ResultWriter.
func (w *retryWriter) Rollback() error {
	var err error
	if w.cur != nil {
		err = w.cur.Rollback()
		w.cur, w.curTW = nil, nil
	}
	w.rows.Close()
	if w.failed == nil {
		w.failed = errorf("result set already ended")
	}
	return err
}

// InstID returns the INST_ID the current attempt allocated (0 when none
// is under way).
func (w *retryWriter) InstID() int64 {
	if w.cur == nil {
		return 0
	}
	return w.cur.instID
}
