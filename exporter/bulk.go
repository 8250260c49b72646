package exporter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/profdb/profdb/dialects"
)

// bulkBatch is how many rows travel together from Write to the loader, at
// most: a batch also ends at dialects.BatchBytes of values.
const bulkBatch = 1024

// maxInFlight bounds the bytes of values (dialects.RowBytes) in the
// batches the loader has been handed and not finished: once they reach
// it, Write waits for the loader. Batches of ordinary rows end at
// their row count (bulkBatch), far below it, so converting rows and
// loading them overlap; a batch that ended at dialects.BatchBytes, long
// strings, is loaded before the next row is read, so that the reader and
// the loader do not each hold a row of them (and the loader's driver its
// copies of one more).
const maxInFlight = dialects.BatchBytes

// bulkFeed runs a dialect's BulkLoad in a goroutine and feeds it the rows
// that Write receives, in batches through a channel, so that converting
// rows and sending them to the server overlap.
type bulkFeed struct {
	ch       chan feedBatch
	cur      [][]any
	curBytes int // dialects.RowBytes of cur's rows
	pool     chan [][]any
	done     chan struct{}
	stopped  chan struct{} // closed once the loader has returned (f.n and f.err set)
	finished chan struct{} // a token when the loader has finished a batch
	inFlight atomic.Int64  // bytes of the batches sent and not finished
	n        int64
	err      error
	width    int
	queued   int64
	cancel   context.CancelFunc
}

// feedBatch is a batch of rows and the bytes of their values.
type feedBatch struct {
	rows  [][]any
	bytes int
}

// startBulk starts the bulk path when the options, the dialect and the
// server allow it.
func (tw *tableWriter) startBulk() error {
	s := tw.s
	if s.e.opts.Bulk == BulkOff {
		return nil
	}
	bl, ok := s.e.d.(dialects.BulkLoader)
	if !ok {
		return nil
	}
	target := dialects.Target{Schema: s.e.sopts.Schema, Table: tw.lt.real, Columns: tw.real, New: tw.lt.created}
	for i, j := range tw.pos {
		if j >= 0 {
			target.Types = append(target.Types, tw.types[i])
		}
	}
	target.Types = append(target.Types, tw.lt.def.Columns[tw.lt.def.ColumnIndex("INST_ID")].Type)
	ctx, cancel := context.WithCancel(s.ctx)
	f := &bulkFeed{
		ch:       make(chan feedBatch, 4),
		pool:     make(chan [][]any, 8),
		done:     make(chan struct{}),
		stopped:  make(chan struct{}),
		finished: make(chan struct{}, 1),
		width:    len(tw.real),
		cancel:   cancel,
	}
	rows := &feedRows{f: f, asked: make(chan struct{})}
	skipped := make(chan error, 1) // the ErrSkip, or nil when the loader ran
	go func() {
		defer close(f.done)
		n, err := bl.BulkLoad(ctx, dialects.Tx{Tx: s.tx, Conn: s.conn}, target, rows)
		if errors.Is(err, dialects.ErrSkip) && !rows.started {
			skipped <- err
			close(f.stopped)
			return
		}
		skipped <- nil
		f.n, f.err = n, err
		// A feeder waiting for the loader sees that it stopped; what it
		// sends meanwhile is drained, so that no send blocks.
		close(f.stopped)
		for range f.ch {
		}
	}()
	// A loader that cannot serve says so before it asks for the first row.
	select {
	case skip := <-skipped:
		if skip != nil {
			cancel()
			if s.e.sopts.Logf != nil {
				s.e.sopts.Logf("%s: native bulk path not available for table %s%s; using batched INSERT", s.e.d.Name(), tw.lt.real, skipReason(skip))
			}
			return nil
		}
		// The loader finished (or failed) without asking for rows.
		tw.bulk = f
		return nil
	case <-rows.asked:
		tw.bulk = f
		return nil
	}
}

// skipReason is the reason a loader gave with its ErrSkip, as ": reason",
// or "" when it gave none.
func skipReason(err error) string {
	msg := strings.TrimSuffix(err.Error(), dialects.ErrSkip.Error())
	msg = strings.TrimSuffix(strings.TrimSpace(msg), ":")
	if msg == "" {
		return ""
	}
	return ": " + msg
}

// next returns a row slice to fill (ncols+1 values).
func (f *bulkFeed) next() []any {
	if f.cur == nil {
		select {
		case b := <-f.pool:
			f.cur = b[:0]
		default:
			f.cur = make([][]any, 0, bulkBatch)
		}
	}
	if len(f.cur) < cap(f.cur) {
		f.cur = f.cur[:len(f.cur)+1]
		if f.cur[len(f.cur)-1] == nil {
			f.cur[len(f.cur)-1] = make([]any, f.width)
		}
		return f.cur[len(f.cur)-1]
	}
	f.cur = append(f.cur, make([]any, f.width))
	return f.cur[len(f.cur)-1]
}

// push hands the filled row on; full batches go to the loader.
func (f *bulkFeed) push(row []any) error {
	f.queued++
	f.curBytes += dialects.RowBytes(row)
	if len(f.cur) >= bulkBatch || f.curBytes >= dialects.BatchBytes {
		return f.send()
	}
	return nil
}

// send hands the current batch to the loader, then waits while the
// batches it has not finished hold maxInFlight or more.
func (f *bulkFeed) send() error {
	if len(f.cur) == 0 {
		return nil
	}
	b := feedBatch{f.cur, f.curBytes}
	f.inFlight.Add(int64(b.bytes))
	select {
	case f.ch <- b:
		f.cur, f.curBytes = nil, 0
	case <-f.stopped:
		return f.ended()
	}
	for f.inFlight.Load() >= maxInFlight {
		select {
		case <-f.finished:
		case <-f.stopped:
			return f.ended()
		}
	}
	return nil
}

// ended is the error of a loader that ended before it took every row.
func (f *bulkFeed) ended() error {
	if f.err != nil {
		return f.err
	}
	return errors.New("bulk load ended early")
}

func (f *bulkFeed) close() (int64, error) {
	err := f.send()
	close(f.ch)
	<-f.done
	f.cancel()
	if f.err != nil {
		return f.n, f.err
	}
	if err != nil {
		return f.n, err
	}
	if f.n != f.queued {
		return f.n, fmt.Errorf("bulk load wrote %d rows of %d", f.n, f.queued)
	}
	return f.n, nil
}

func (f *bulkFeed) abort() {
	f.cancel()
	select {
	case <-f.done:
	default:
		close(f.ch)
		<-f.done
	}
}

func (tw *tableWriter) bulkRows() int64 {
	if tw.bulk == nil {
		return 0
	}
	return tw.bulk.queued
}

// feedRows is the dialects.Rows the loader pulls from.
type feedRows struct {
	f       *bulkFeed
	batch   feedBatch
	i       int
	started bool
	asked   chan struct{} // closed when the loader asks for its first row
}

func (r *feedRows) Next() ([]any, error) {
	if !r.started {
		r.started = true
		close(r.asked)
	}
	for r.i >= len(r.batch.rows) {
		if r.batch.rows != nil {
			r.finish()
		}
		b, ok := <-r.f.ch
		if !ok {
			return nil, io.EOF
		}
		r.batch, r.i = b, 0
	}
	row := r.batch.rows[r.i]
	r.i++
	return row, nil
}

// finish hands the batch the loader is done with back to the feed: its
// values cleared, so that a batch in the pool holds no string, and its
// bytes no longer in flight.
func (r *feedRows) finish() {
	for _, row := range r.batch.rows {
		clear(row)
	}
	select {
	case r.f.pool <- r.batch.rows:
	default:
	}
	r.f.inFlight.Add(-int64(r.batch.bytes))
	select {
	case r.f.finished <- struct{}{}:
	default:
	}
	r.batch = feedBatch{}
}
