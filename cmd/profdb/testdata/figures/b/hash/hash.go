// Package hash has a function of the same short name as a/hash's.
package hash

// New mixes n three times as long as a/hash.New.
func New(n int) uint64 {
	h := uint64(2166136261)
	for i := range 3 * n {
		h = (h ^ uint64(i)) * 16777619
	}
	return h
}
