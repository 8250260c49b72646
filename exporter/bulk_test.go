package exporter

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/profdb/profdb/dialects"
)

// TestBulkFeedBounds: rows of long strings travel in batches of at most
// dialects.BatchBytes of values (or one row), Write waits while the loader
// holds maxInFlight of them or more, and a batch the loader is done with
// holds no value; rows of short values still go 1024 at a time.
func TestBulkFeedBounds(t *testing.T) {
	long := strings.Repeat("x", 5<<20)
	for _, tc := range []struct {
		name      string
		row       []any
		rows      int
		wantBatch int // rows in a full batch
	}{
		{"long strings", []any{int64(1), long, nil}, 20, 1},
		{"strings of 1 MiB", []any{int64(1), long[:1<<20], nil}, 40, 3},
		{"short values", []any{int64(1), "x", 2.5}, 3000, bulkBatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, cancel := context.WithCancel(context.Background())
			f := &bulkFeed{ch: make(chan feedBatch, 4), pool: make(chan [][]any, 8), done: make(chan struct{}),
				finished: make(chan struct{}, 1), width: len(tc.row), cancel: cancel}
			rows := &feedRows{f: f, asked: make(chan struct{})}
			var maxFlight, batches, got atomic.Int64
			var loaderErr error
			go func() { // a loader that checks what it is handed
				defer close(f.done)
				for {
					row, err := rows.Next()
					if errors.Is(err, io.EOF) {
						break
					}
					if rows.i == 1 { // the first row of a batch
						batches.Add(1)
						if b := rows.batch; b.bytes > dialects.BatchBytes+dialects.RowBytes(tc.row) || len(b.rows) > bulkBatch {
							loaderErr = errors.New("a batch too large")
						}
						maxFlight.Store(max(maxFlight.Load(), f.inFlight.Load()))
					}
					if row[1] == nil {
						loaderErr = errors.New("a row cleared before it was loaded")
					}
					got.Add(1)
				}
				f.n = got.Load()
			}()
			for range tc.rows {
				vals := f.next()
				copy(vals, tc.row)
				if err := f.push(vals); err != nil {
					t.Fatal(err)
				}
			}
			if n, err := f.close(); err != nil || n != int64(tc.rows) || loaderErr != nil {
				t.Fatalf("%d rows of %d, %v, %v", n, tc.rows, err, loaderErr)
			}
			if want := (tc.rows + tc.wantBatch - 1) / tc.wantBatch; batches.Load() != int64(want) {
				t.Errorf("%d batches, want %d", batches.Load(), want)
			}
			if most := int64(maxInFlight + dialects.BatchBytes + dialects.RowBytes(tc.row)); maxFlight.Load() > most {
				t.Errorf("%d bytes in flight, want at most %d", maxFlight.Load(), most)
			}
			for len(f.pool) > 0 {
				for _, row := range <-f.pool {
					for _, v := range row {
						if v != nil {
							t.Fatalf("a pooled batch holds %T", v)
						}
					}
				}
			}
		})
	}
}
