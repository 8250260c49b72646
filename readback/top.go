package readback

import (
	"container/heap"
	"slices"
)

// List is a capped list: the first entries, best first, and how many
// there were in all.
type List[T any] struct {
	Items []T   `json:"items"`
	Total int64 `json:"total"`
}

// Omitted is the number of entries the list leaves out.
func (l List[T]) Omitted() int64 { return l.Total - int64(len(l.Items)) }

// Top keeps the n entries that come first by before out of a stream it
// sees one entry at a time, and counts them all: memory grows with n, not
// with the stream. With a nil before it keeps the first n in the order
// they come. It is the one top-N of the read side: show's, compare's and
// check's lists are kept by it.
type Top[T any] struct {
	n      int
	before func(x, y T) bool // x comes before y
	h      lastFirst[T]
	total  int64
}

// NewTop returns a Top that keeps n entries (none when n <= 0).
func NewTop[T any](n int, before func(x, y T) bool) *Top[T] {
	return &Top[T]{n: n, before: before, h: lastFirst[T]{before: before}}
}

// Add sees one entry.
func (t *Top[T]) Add(v T) {
	t.total++
	switch {
	case len(t.h.items) < t.n && t.before == nil:
		t.h.items = append(t.h.items, v)
	case len(t.h.items) < t.n:
		heap.Push(&t.h, v)
	case t.n > 0 && t.before != nil && t.before(v, t.h.items[0]):
		t.h.items[0] = v
		heap.Fix(&t.h, 0)
	}
}

// List returns the kept entries in order (never a nil Items) and the
// count of all seen.
func (t *Top[T]) List() List[T] {
	items := append([]T{}, t.h.items...)
	if t.before != nil {
		slices.SortStableFunc(items, func(x, y T) int {
			switch {
			case t.before(x, y):
				return -1
			case t.before(y, x):
				return 1
			}
			return 0
		})
	}
	return List[T]{Items: items, Total: t.total}
}

// lastFirst is a heap whose root is the kept entry that comes last.
type lastFirst[T any] struct {
	items  []T
	before func(x, y T) bool
}

func (h lastFirst[T]) Len() int           { return len(h.items) }
func (h lastFirst[T]) Less(i, j int) bool { return h.before(h.items[j], h.items[i]) }
func (h lastFirst[T]) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *lastFirst[T]) Push(x any)        { h.items = append(h.items, x.(T)) }
func (h *lastFirst[T]) Pop() any {
	n := len(h.items)
	v := h.items[n-1]
	h.items = h.items[:n-1]
	return v
}
