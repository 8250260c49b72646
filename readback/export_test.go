package readback

import "context"

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

// GroupedFigures reads the figures of ins, result sets of one profiler,
// by FiguresOf's grouped queries alone: a set they have no row of is left
// out, where FiguresOf would read it by Figures.
func (r *Reader) GroupedFigures(ctx context.Context, profiler string, ins []Instance) (map[int64]*Figures, error) {
	out := map[int64]*Figures{}
	return out, r.figuresBatch(ctx, profiler, ins, false, out)
}
