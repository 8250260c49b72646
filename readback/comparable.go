package readback

import (
	"errors"
	"fmt"
)

// ErrIncomparable is matched by errors.Is in the error of Comparable, and
// so in the errors of compare, check and merge for result sets that do not
// compare.
var ErrIncomparable = errors.New("the result sets cannot be compared")

// Comparable is the one rule for which two result sets compare (compare,
// check's baseline rules) and merge (merge): they are of one profiler and,
// when they were measured with a counter (Function Trace), of one counter:
// the same counter name and the same frequency (both unknown, or equal).
// Their times are then in one unit, so that they add up and subtract as
// they are. The counter's description is text for people and does not
// count. It returns nil when a and b compare, else an error that says why
// (errors.Is ErrIncomparable).
func Comparable(a, b Instance) error {
	if a.Profiler != b.Profiler {
		return fmt.Errorf("%w: result set %d is %s, result set %d is %s", ErrIncomparable, a.InstID, a.Profiler, b.InstID, b.Profiler)
	}
	if a.CounterName != b.CounterName {
		return fmt.Errorf("%w: they were measured with different counters: %q (result set %d) and %q (result set %d)",
			ErrIncomparable, a.CounterName, a.InstID, b.CounterName, b.InstID)
	}
	if a.CounterFrequency.Float() != b.CounterFrequency.Float() {
		return fmt.Errorf("%w: their counter %q has different frequencies: %s (result set %d) and %s (result set %d)",
			ErrIncomparable, a.CounterName, orNone(a.CounterFrequency.String()), a.InstID, orNone(b.CounterFrequency.String()), b.InstID)
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
