package merge

import (
	"context"
	"fmt"

	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// inputs is the snapshot the inputs are read in, through readback.
type inputs struct {
	r        *readback.Reader
	first    readback.Instance
	profiler string
	counter  *resultset.Counter
}

// begin opens a snapshot of db, checks that the result sets exist and
// compare (readback.Comparable: one profiler and, for profilers with a
// counter, one counter).
func begin(ctx context.Context, db *store.DB, insts []int64) (*inputs, error) {
	r, err := readback.Begin(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	fail := func(err error) (*inputs, error) {
		r.Close()
		return nil, err
	}
	var ids []int64
	seen := map[int64]bool{}
	for _, id := range insts {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	list, err := r.Instances(ctx, ids...)
	if err != nil {
		return fail(err)
	}
	byID := map[int64]readback.Instance{}
	for _, l := range list {
		byID[l.InstID] = l
	}
	first := byID[insts[0]]
	for _, id := range insts[1:] {
		if err := readback.Comparable(first, byID[id]); err != nil {
			return fail(fmt.Errorf("only result sets that compare merge: %w", err))
		}
	}
	return &inputs{r: r, first: first, profiler: first.Profiler, counter: first.Counter}, nil
}

func (in *inputs) close() { in.r.Close() }

// readAll checks that the database has the tables a merge reads, then
// reads the result sets insts, in order, by read (of input i, result set
// inst).
func (in *inputs) readAll(ctx context.Context, insts []int64, read func(ctx context.Context, in *inputs, i int, inst int64) error,
	tables ...string) error {
	if err := in.r.Need(in.first, tables...); err != nil {
		return err
	}
	for i, inst := range insts {
		if err := read(ctx, in, i, inst); err != nil {
			return fmt.Errorf("result set %d: %w", inst, err)
		}
	}
	return nil
}
