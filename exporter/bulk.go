package exporter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/profdb/profdb/dialects"
)

// bulkBatch is how many rows travel together from Write to the loader.
const bulkBatch = 1024

// bulkFeed runs a dialect's BulkLoad in a goroutine and feeds it the rows
// that Write receives, in batches through a channel, so that converting
// rows and sending them to the server overlap.
type bulkFeed struct {
	ch     chan [][]any
	cur    [][]any
	pool   chan [][]any
	done   chan struct{}
	n      int64
	err    error
	width  int
	queued int64
	cancel context.CancelFunc
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
		ch:     make(chan [][]any, 4),
		pool:   make(chan [][]any, 8),
		done:   make(chan struct{}),
		width:  len(tw.real),
		cancel: cancel,
	}
	rows := &feedRows{f: f, asked: make(chan struct{})}
	skipped := make(chan error, 1) // the ErrSkip, or nil when the loader ran
	go func() {
		defer close(f.done)
		n, err := bl.BulkLoad(ctx, dialects.Tx{Tx: s.tx, Conn: s.conn}, target, rows)
		if errors.Is(err, dialects.ErrSkip) && !rows.started {
			skipped <- err
			return
		}
		skipped <- nil
		f.n, f.err = n, err
		// Drain what the loader did not take, so that push never blocks.
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
func (f *bulkFeed) push([]any) error {
	f.queued++
	if len(f.cur) >= bulkBatch {
		return f.send()
	}
	return nil
}

func (f *bulkFeed) send() error {
	if len(f.cur) == 0 {
		return nil
	}
	select {
	case f.ch <- f.cur:
		f.cur = nil
		return nil
	case <-f.done:
		if f.err != nil {
			return f.err
		}
		return errors.New("bulk load ended early")
	}
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
	batch   [][]any
	i       int
	started bool
	asked   chan struct{} // closed when the loader asks for its first row
}

func (r *feedRows) Next() ([]any, error) {
	if !r.started {
		r.started = true
		close(r.asked)
	}
	for r.i >= len(r.batch) {
		if r.batch != nil {
			select {
			case r.f.pool <- r.batch:
			default:
			}
		}
		b, ok := <-r.f.ch
		if !ok {
			r.batch = nil
			return nil, io.EOF
		}
		r.batch, r.i = b, 0
	}
	row := r.batch[r.i]
	r.i++
	return row, nil
}
