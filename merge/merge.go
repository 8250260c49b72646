package merge

import (
	"context"
	"fmt"
	"strings"

	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/profilers/referencecount"
	"github.com/profdb/profdb/profilers/resource"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// Op is how the counts of one item in the inputs combine.
type Op int

// The operations, AQTime's "sum, average, maximum or minimum".
const (
	// Sum adds the counts.
	Sum Op = iota
	// Avg is the mean count over the inputs that hold the item, rounded up
	// to a whole count, so that an item that ran in any input ran.
	Avg
	// Max is the largest count.
	Max
	// Min is the smallest non-zero count, 0 when the item ran in no input:
	// an item that ran in any input ran (a line covered in any input is
	// covered).
	Min
)

var opNames = [...]string{Sum: "sum", Avg: "avg", Max: "max", Min: "min"}

// String returns the operation's name: sum, avg, max or min.
func (o Op) String() string {
	if o < 0 || int(o) >= len(opNames) {
		return fmt.Sprintf("Op(%d)", int(o))
	}
	return opNames[o]
}

// ParseOp returns the operation a name (sum, avg, max, min) stands for.
func ParseOp(s string) (Op, error) {
	for i, n := range opNames {
		if strings.EqualFold(s, n) {
			return Op(i), nil
		}
	}
	return 0, fmt.Errorf("merge: unknown operation %q: want sum, avg, max or min", s)
}

// Merge writes to t a new result set whose figures combine those of the
// result sets insts names (at least one; one may be named more than once,
// and then counts once per mention), item by item, by op. caption is the
// new set's caption ("" for one naming the inputs and the operation).
//
// The inputs must be of one profiler. The new result set is written in one
// transaction by resultset.Export; its INST_ID is the Result's.
func Merge(ctx context.Context, db *store.DB, insts []int64, op Op, caption string, t resultset.Target) (resultset.Result, error) {
	if op < 0 || int(op) >= len(opNames) {
		return resultset.Result{}, fmt.Errorf("merge: unknown operation %d", int(op))
	}
	if len(insts) == 0 {
		return resultset.Result{}, fmt.Errorf("merge: no result set to merge")
	}
	if caption == "" {
		ids := make([]string, len(insts))
		for i, id := range insts {
			ids[i] = fmt.Sprint(id)
		}
		caption = fmt.Sprintf("merge (%s) of %s", op, strings.Join(ids, ", "))
	}
	in, err := begin(ctx, db, insts)
	if err != nil {
		return resultset.Result{}, fmt.Errorf("merge: %w", err)
	}
	var rs func() (*resultset.ResultSet, error)
	closeB := func() error { return nil }
	switch in.profiler {
	case lightcoverage.Name:
		m := &coverage{}
		err = in.readAll(ctx, insts, m.read, lcTables...)
		rs = func() (*resultset.ResultSet, error) { return m.resultSet(op, caption), nil }
	case functiontrace.Name:
		m := newTrace(in.counter)
		err = in.readAll(ctx, insts, m.read, ftTables...)
		rs = func() (*resultset.ResultSet, error) {
			set, b, err := m.resultSet(op, caption)
			if b != nil {
				closeB = b.Close
			}
			return set, err
		}
	case resource.Name:
		m := &resources{}
		err = in.readAll(ctx, insts, m.read, rsTables...)
		rs = func() (*resultset.ResultSet, error) { return m.resultSet(op, caption), nil }
	case referencecount.Name:
		m := &refcounts{nodes: map[rcNodeKey]*rcNode{}}
		err = in.readAll(ctx, insts, m.read, rcTables...)
		rs = func() (*resultset.ResultSet, error) { return m.resultSet(op, caption), nil }
	default:
		err = fmt.Errorf("result sets of profiler %s: merging them is not supported yet (supported: %s, %s, %s, %s)",
			in.profiler, lightcoverage.Name, functiontrace.Name, resource.Name, referencecount.Name)
	}
	in.close()
	if err != nil {
		return resultset.Result{}, fmt.Errorf("merge: %w", err)
	}
	set, err := rs()
	if err != nil {
		return resultset.Result{}, fmt.Errorf("merge: %w", err)
	}
	// The new result set records what it combined (PROFDB_MERGE_SOURCES).
	set.Run = &resultset.Run{MergedFrom: append([]int64(nil), insts...)}
	res, err := resultset.Export(ctx, t, set)
	if cerr := closeB(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return resultset.Result{}, fmt.Errorf("merge: %w", err)
	}
	return res, nil
}

// keyed is the merged items of one kind, in order of first mention, each
// matched by its key.
type keyed[K comparable, V any] struct {
	items []V
	idx   map[K]int32
}

// at returns the index of the item of key k, first appending the item add
// makes when k is new.
func (l *keyed[K, V]) at(k K, add func() V) int32 {
	j, ok := l.idx[k]
	if !ok {
		if l.idx == nil {
			l.idx = map[K]int32{}
		}
		j = int32(len(l.items))
		l.idx[k] = j
		l.items = append(l.items, add())
	}
	return j
}

// acc combines one item's counts: the count of the input being read (an
// input that names the item twice counts the larger, as the builders do),
// and the aggregates of the inputs read before.
type acc struct {
	sum, max, minPos, cur int64
	n, last               int32 // inputs holding the item; 1 + index of the input cur is from
}

// add records count v of the item in input i (inputs come in order).
func (a *acc) add(i int, v int64) {
	if v < 0 {
		v = 0
	}
	if a.last == int32(i+1) {
		a.cur = max(a.cur, v)
		return
	}
	a.fold()
	a.last, a.cur = int32(i+1), v
}

// fold moves the current input's count into the aggregates.
func (a *acc) fold() {
	if a.last <= 0 {
		return
	}
	a.n++
	a.sum += a.cur
	a.max = max(a.max, a.cur)
	if a.cur > 0 && (a.minPos == 0 || a.cur < a.minPos) {
		a.minPos = a.cur
	}
	a.last, a.cur = -a.last, 0
}

// value returns the combined count.
func (a *acc) value(op Op) int64 {
	a.fold()
	switch op {
	case Avg:
		if a.n == 0 {
			return 0
		}
		return (a.sum + int64(a.n) - 1) / int64(a.n)
	case Max:
		return a.max
	case Min:
		return a.minPos
	}
	return a.sum
}
