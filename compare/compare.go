package compare

import (
	"context"
	"fmt"
	"math"

	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/profilers/referencecount"
	"github.com/profdb/profdb/profilers/resource"
	"github.com/profdb/profdb/readback"
)

// Style is how a change from A to B is expressed.
type Style string

// The difference styles of AQTime's "Comparing Results".
const (
	Difference Style = "difference" // B − A
	Ratio      Style = "ratio"      // B / A
	Percent    Style = "percent"    // (B − A) / A × 100
)

// Styles lists the styles, the default first.
var Styles = []Style{Difference, Ratio, Percent}

// ParseStyle returns the style a name names ("" is Difference).
func ParseStyle(s string) (Style, error) {
	if s == "" {
		return Difference, nil
	}
	for _, st := range Styles {
		if string(st) == s {
			return st, nil
		}
	}
	return "", fmt.Errorf("compare: unknown style %q (difference, ratio or percent)", s)
}

// Of returns the change from a to b in style s; ok is false when it is not
// defined (ratio and percent of a zero a).
func (s Style) Of(a, b float64) (v float64, ok bool) {
	switch s {
	case Ratio:
		if a == 0 {
			return 0, false
		}
		return b / a, true
	case Percent:
		return readback.PercentChange(a, b)
	}
	return b - a, true
}

// Options say how a comparison is expressed and how long its lists are.
type Options struct {
	// Style is how changes are expressed; "" is Difference.
	Style Style
	// Top is the most entries each list holds, largest change first; 0
	// means 20. The lists record how many entries there were in all.
	Top int
	// Rank is what "largest change" means; "" is Magnitude.
	Rank Rank
}

// Rank is the order of a comparison's lists, by the change B − A of the
// figure each list is sorted by.
type Rank string

// The orders of lists.
const (
	Magnitude Rank = "magnitude" // the largest |B − A| first: growth and shrinkage alike
	Increase  Rank = "increase"  // the largest B − A first: what grew (slowed, gained) most
	Decrease  Rank = "decrease"  // the smallest B − A first: what shrank (lost coverage) most
)

// key is the sort key of a change d under the rank: larger first.
func (o Options) key(d float64) float64 {
	if math.IsNaN(d) {
		return math.Inf(-1)
	}
	switch o.Rank {
	case Increase:
		return d
	case Decrease:
		return -d
	}
	return math.Abs(d)
}

func (o Options) top() int {
	if o.Top <= 0 {
		return 20
	}
	return o.Top
}

func (o Options) style() Style {
	if o.Style == "" {
		return Difference
	}
	return o.Style
}

// Figure is one figure in A and in B, and its change in the comparison's
// style: null in JSON (nil) when the style does not define it (ratio or
// percent of a figure that is 0 in A).
type Figure struct {
	A      float64  `json:"a"`
	B      float64  `json:"b"`
	Change *float64 `json:"change"`
}

func figure(s Style, a, b float64) Figure {
	f := Figure{A: a, B: b}
	if v, ok := s.Of(a, b); ok {
		f.Change = &v
	}
	return f
}

// Delta is B − A, whatever the style: what lists are sorted by.
func (f Figure) Delta() float64 { return f.B - f.A }

// Presence says in which result sets an item is.
type Presence string

// Where an item is.
const (
	Both  Presence = "both"
	OnlyA Presence = "a"
	OnlyB Presence = "b"
)

func presence(inA, inB bool) Presence {
	switch {
	case inA && inB:
		return Both
	case inA:
		return OnlyA
	}
	return OnlyB
}

// ErrIncomparable is wrapped by the errors of result sets that cannot be
// compared (readback.Comparable): of different profilers, or measured
// with different counters.
var ErrIncomparable = readback.ErrIncomparable

// Result is a comparison of two result sets: exactly one of the profiler
// fields is set.
type Result struct {
	A        readback.Instance `json:"a"`
	B        readback.Instance `json:"b"`
	Style    Style             `json:"style"`
	Coverage *CoverageDiff     `json:"light_coverage,omitempty"`
	Trace    *TraceDiff        `json:"function_trace,omitempty"`
	Classes  *ClassDiff        `json:"classes,omitempty"` // resource and reference-count
}

// Compare compares result sets a and b with the comparison their profiler
// has (Coverage, Trace or Classes). A and B carry the identity of their
// runs (readback.Instance.Run).
func Compare(ctx context.Context, r *readback.Reader, a, b int64, o Options) (*Result, error) {
	ia, ib, err := pair(ctx, r, a, b, "")
	if err != nil {
		return nil, err
	}
	runs, err := r.Runs(ctx, a, b)
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	ia.Run, ib.Run = runs[a], runs[b]
	res := &Result{A: ia, B: ib, Style: o.style()}
	switch ia.Profiler {
	case lightcoverage.Name:
		res.Coverage, err = coverage(ctx, r, ia, ib, o)
	case functiontrace.Name:
		res.Trace, err = trace(ctx, r, ia, ib, o)
	case resource.Name, referencecount.Name:
		res.Classes, err = classes(ctx, r, ia, ib, o)
	default:
		err = fmt.Errorf("compare: profiler %s has no comparison in this build", ia.Profiler)
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// pair reads the descriptions of a and b and checks that they compare
// (readback.Comparable) and are of the profiler want (when not "";
// "classes" for Resource or Reference Count).
func pair(ctx context.Context, r *readback.Reader, a, b int64, want string) (ia, ib readback.Instance, err error) {
	list, err := r.Instances(ctx, a, b)
	if err != nil {
		return ia, ib, fmt.Errorf("compare: %w", err)
	}
	ia, ib = list[0], list[len(list)-1] // one entry when a == b
	if ia.InstID != a {
		ia, ib = ib, ia
	}
	if err := readback.Comparable(ia, ib); err != nil {
		return ia, ib, fmt.Errorf("compare: %w", err)
	}
	if want != "" && !(ia.Profiler == want || want == "classes" && (ia.Profiler == resource.Name || ia.Profiler == referencecount.Name)) {
		return ia, ib, fmt.Errorf("compare: %w: result sets %d and %d are %s, not %s", ErrIncomparable, a, b, ia.Profiler, want)
	}
	return ia, ib, nil
}

// List is a bounded list: the entries with the largest change, largest
// first, and how many there were in all (readback.List).
type List[T any] = readback.List[T]
