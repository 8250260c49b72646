package gate

import "sort"

// topList keeps the n best items of a stream by less (best first) and
// counts them all: memory grows with n, not with the stream.
type topList[T any] struct {
	n     int
	less  func(a, b T) bool
	items []T
	total int64
}

func newTop[T any](n int, less func(a, b T) bool) *topList[T] {
	return &topList[T]{n: n, less: less}
}

func (t *topList[T]) add(v T) {
	t.total++
	i := sort.Search(len(t.items), func(i int) bool { return t.less(v, t.items[i]) })
	if i >= t.n {
		return
	}
	if len(t.items) < t.n {
		t.items = append(t.items, v)
	}
	copy(t.items[i+1:], t.items[i:len(t.items)-1])
	t.items[i] = v
}

// omitted is the number of items added and not kept.
func (t *topList[T]) omitted() int64 { return t.total - int64(len(t.items)) }
