package compare

import (
	"container/heap"
	"sort"
)

// topN keeps the n entries that come first by before, seeing entries one
// at a time: memory is bounded by n, not by how many it sees.
type topN[T any] struct {
	n      int
	before func(x, y T) bool // x comes before y
	h      worstFirst[T]
	total  int64
}

func newTop[T any](n int, before func(x, y T) bool) *topN[T] {
	return &topN[T]{n: n, before: before, h: worstFirst[T]{before: before}}
}

func (t *topN[T]) add(v T) {
	t.total++
	if len(t.h.items) < t.n {
		heap.Push(&t.h, v)
		return
	}
	if t.n > 0 && t.before(v, t.h.items[0]) {
		t.h.items[0] = v
		heap.Fix(&t.h, 0)
	}
}

// list returns the kept entries in order and the count of all seen.
func (t *topN[T]) list() List[T] {
	items := append([]T{}, t.h.items...)
	sort.SliceStable(items, func(i, j int) bool { return t.before(items[i], items[j]) })
	return List[T]{Items: items, Total: t.total}
}

// worstFirst is a heap whose root is the entry that comes last.
type worstFirst[T any] struct {
	items  []T
	before func(x, y T) bool
}

func (h worstFirst[T]) Len() int           { return len(h.items) }
func (h worstFirst[T]) Less(i, j int) bool { return h.before(h.items[j], h.items[i]) }
func (h worstFirst[T]) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *worstFirst[T]) Push(x any)        { h.items = append(h.items, x.(T)) }
func (h *worstFirst[T]) Pop() any {
	n := len(h.items)
	v := h.items[n-1]
	h.items = h.items[:n-1]
	return v
}

// firstN keeps the first n entries in the order they come, counting all.
type firstN[T any] struct {
	n int
	l List[T]
}

func (f *firstN[T]) add(v T) {
	f.l.Total++
	if len(f.l.Items) < f.n {
		f.l.Items = append(f.l.Items, v)
	}
}

func (f *firstN[T]) list() List[T] {
	if f.l.Items == nil {
		f.l.Items = []T{}
	}
	return f.l
}
