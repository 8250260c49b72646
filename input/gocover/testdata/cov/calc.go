// Package cov is test data for the gocover reader: a small module whose
// coverage profile is made by make.sh (and again by the tests).
package cov

// Sum adds xs up in a loop.
func Sum(xs []int) int {
	total := 0
	for _, x := range xs {
		total += x
	}
	return total
}

// Never is not called by any test.
func Never() int {
	a := 1
	b := 2
	return a + b
}

// Acc accumulates.
type Acc struct{ n int }

// Add is a pointer method.
func (a *Acc) Add(v int) {
	if v < 0 {
		return
	}
	a.n += v
}

// Value is a value method.
func (a Acc) Value() int { return a.n }

// Stack is generic.
type Stack[T any] struct{ items []T }

// Push is a method of a generic type.
func (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }

// Pair has two type parameters.
type Pair[K comparable, V any] struct {
	k K
	v V
}

// Key is a method of a type with two type parameters.
func (p Pair[K, V]) Key() K { return p.k }

// Apply calls f via a closure.
func Apply(xs []int, f func(int) int) []int {
	out := make([]int, 0, len(xs))
	each := func(x int) {
		out = append(out, f(x))
	}
	for _, x := range xs {
		each(x)
	}
	return out
}

// Empty does nothing.
func Empty() {}

var double = func(x int) int {
	return 2 * x
}
