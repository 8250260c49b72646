package readback

// WithWork sets the most nodes a call tree keeps while it reads, so that
// tests reach the bound with small trees.
func WithWork(l TreeLimits, n int) TreeLimits {
	l.work = n
	return l
}

// WithPeak has the call tree store in *peak the most nodes it held while
// reading.
func WithPeak(l TreeLimits, peak *int) TreeLimits {
	l.peak = peak
	return l
}
