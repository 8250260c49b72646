package profilerj_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/profdb/profdb/resultset"
)

// recorder is a Target that records what happens to it and keeps nothing
// but row counts: Begin, Table, Write, Commit and Rollback calls. It can fail
// the Nth Begin, to test what a failed write leaves behind.
type recorder struct {
	mu         sync.Mutex
	begun      int
	committed  []resultset.Header
	rolledBack int
	rows       map[string]int64
	failBegin  int // fail the Begin with this number (1-based); 0 never
}

func (r *recorder) Begin(_ context.Context, h resultset.Header) (resultset.ResultWriter, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.begun++
	if r.rows == nil {
		r.rows = map[string]int64{}
	}
	if r.begun == r.failBegin {
		return nil, fmt.Errorf("recorder: Begin %d fails", r.begun)
	}
	return &recWriter{r: r, h: h, rows: map[string]int64{}}, nil
}

type recWriter struct {
	r    *recorder
	h    resultset.Header
	rows map[string]int64
	done bool
}

func (w *recWriter) SetHeader(h resultset.Header) error { w.h = h; return nil }

func (w *recWriter) Table(name string, columns []string) (resultset.TableWriter, error) {
	return &recTable{w: w, name: name, ncol: len(columns)}, nil
}

func (w *recWriter) Commit() (resultset.Result, error) {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	w.done = true
	w.r.committed = append(w.r.committed, w.h)
	var total int64
	for t, n := range w.rows {
		w.r.rows[t] += n
		total += n
	}
	return resultset.Result{Profiler: w.h.Profiler, Caption: w.h.Caption, Rows: total, Tables: w.rows}, nil
}

func (w *recWriter) Rollback() error {
	if !w.done {
		w.done = true
		w.r.mu.Lock()
		w.r.rolledBack++
		w.r.mu.Unlock()
	}
	return nil
}

type recTable struct {
	w    *recWriter
	name string
	ncol int
}

func (t *recTable) Write(row []any) error {
	if len(row) != t.ncol {
		return fmt.Errorf("%s: %d values for %d columns", t.name, len(row), t.ncol)
	}
	t.w.rows[t.name]++
	return nil
}
