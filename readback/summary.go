package readback

import (
	"context"
	"fmt"

	"github.com/profdb/profdb/internal/textout"
)

// Options say how much a Summary holds.
type Options struct {
	// Top is the most entries each list holds (routines, files, classes,
	// objects); 0 means 20. The lists record how many entries there were.
	Top int
}

func (o Options) top() int {
	if o.Top <= 0 {
		return 20
	}
	return o.Top
}

// Summary is what `profdb show` prints about one result set: its
// description and the figures of its profiler (exactly one of the profiler
// fields is set).
type Summary struct {
	Instance       Instance        `json:"instance"`
	Coverage       *Coverage       `json:"light_coverage,omitempty"`
	Trace          *Trace          `json:"function_trace,omitempty"`
	Resource       *Resource       `json:"resource,omitempty"`
	ReferenceCount *ReferenceCount `json:"reference_count,omitempty"`
}

// Summarize reads the figures of result set inst, and the identity of its
// run (Instance.Run).
func (r *Reader) Summarize(ctx context.Context, inst int64, o Options) (*Summary, error) {
	in, err := r.Instance(ctx, inst)
	if err != nil {
		return nil, err
	}
	runs, err := r.Runs(ctx, inst)
	if err != nil {
		return nil, err
	}
	in.Run = runs[inst]
	s := &Summary{Instance: in}
	switch in.Profiler {
	case "light-coverage":
		s.Coverage, err = r.coverage(ctx, in, o)
	case "function-trace":
		s.Trace, err = r.trace(ctx, in, o)
	case "resource":
		s.Resource, err = r.resource(ctx, in, o)
	case "reference-count":
		s.ReferenceCount, err = r.referenceCount(ctx, in, o)
	default:
		err = fmt.Errorf("read: result set %d: profiler %s has no summary in this build", inst, in.Profiler)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Headline is the one figure that sums a result set up: % of lines
// covered, total time, live objects.
func (s *Summary) Headline() string {
	switch {
	case s.Coverage != nil:
		return coverageHeadline(s.Coverage.Lines)
	case s.Trace != nil:
		return traceHeadline(s.Trace, s.Trace.TotalTime)
	case s.Resource != nil:
		return resourceHeadline(s.Resource.LiveCount, s.Resource.LiveSize)
	case s.ReferenceCount != nil:
		return refHeadline(s.ReferenceCount.Alive.Total, s.ReferenceCount.Objects.Total)
	}
	return ""
}

// Headline is Summary.Headline of the result set whose figures f are:
// the same text from the same figures, without the lists.
func (f *Figures) Headline() string {
	switch {
	case f.Lines != nil:
		return coverageHeadline(*f.Lines)
	case f.TotalTime != nil:
		return traceHeadline(&Trace{Counter: f.Counter, Frequency: f.Frequency}, *f.TotalTime)
	case f.LiveCount != nil && f.LiveSize != nil:
		return resourceHeadline(*f.LiveCount, *f.LiveSize)
	case f.Objects != nil && f.Alive != nil:
		return refHeadline(*f.Alive, *f.Objects)
	}
	return ""
}

func coverageHeadline(lines Ratio) string {
	return fmt.Sprintf("%s of lines covered", Percent(lines.Covered, lines.Total))
}

func traceHeadline(t *Trace, total int64) string { return t.Format(total) + " in all" }

func resourceHeadline(count, size NullDec) string {
	return fmt.Sprintf("%s live objects, %s bytes", count, size)
}

func refHeadline(alive, objects int64) string {
	return fmt.Sprintf("%d of %d objects alive at the end", alive, objects)
}

// Ratio is a count of covered items out of a total.
type Ratio struct {
	Covered int64 `json:"covered" db:"covered"`
	Total   int64 `json:"total" db:"total"`
}

// Percent returns covered/total as a percentage; 0 for an empty total.
func (r Ratio) Percent() float64 {
	if r.Total == 0 {
		return 0
	}
	return float64(r.Covered) * 100 / float64(r.Total)
}

// PointChange is the change of coverage from a to b in percentage points,
// b's % less a's, as compare's difference style and trend give it; ok is
// false when either counts nothing (Total 0), whose % is no measure (the
// difference is then of the 0 Percent gives it). check's --max-drop and
// the files it lists take it (a drop is the change from b back to a).
func PointChange(a, b Ratio) (points float64, ok bool) {
	return b.Percent() - a.Percent(), a.Total > 0 && b.Total > 0
}

// PercentChange is the change from a to b in percent of a, (b − a) / a ×
// 100; ok is false when a is 0, from which no percentage measures a
// change. It is the one computation of a relative change: compare's
// percent style, check's --max-time-increase and the routines it lists.
// textout.PointsChange and textout.PercentChange print the two.
func PercentChange(a, b float64) (pct float64, ok bool) {
	if a == 0 {
		return 0, false
	}
	return (b - a) / a * 100, true
}

// Percent formats covered/total as "12.3%" ("-" for an empty total).
func Percent(covered, total int64) string {
	if total == 0 {
		return "-"
	}
	return textout.Percent(Ratio{covered, total}.Percent())
}
