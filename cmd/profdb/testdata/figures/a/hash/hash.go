// Package hash has a function of the same short name as b/hash's: two
// routines hash.New that profdb must keep apart.
package hash

// New mixes n a little.
func New(n int) uint64 {
	h := uint64(14695981039346656037)
	for i := range n {
		h = (h ^ uint64(i)) * 1099511628211
	}
	return h
}
