package readback_test

import (
	"testing"

	"github.com/profdb/profdb/readback"
)

// TestChanges: the one computation of a change of coverage in percentage
// points and of a change in percent of where it started, with what each
// cannot measure.
func TestChanges(t *testing.T) {
	for _, c := range []struct {
		a, b   readback.Ratio
		points float64
		ok     bool
	}{
		{readback.Ratio{Covered: 1, Total: 2}, readback.Ratio{Covered: 3, Total: 4}, 25, true},
		{readback.Ratio{Covered: 3, Total: 4}, readback.Ratio{Covered: 1, Total: 2}, -25, true},
		{readback.Ratio{Covered: 1, Total: 2}, readback.Ratio{Covered: 2, Total: 4}, 0, true},
		{readback.Ratio{}, readback.Ratio{Covered: 1, Total: 2}, 50, false},
		{readback.Ratio{Covered: 1, Total: 2}, readback.Ratio{}, -50, false},
	} {
		if got, ok := readback.PointChange(c.a, c.b); got != c.points || ok != c.ok {
			t.Errorf("PointChange(%v, %v) = %v, %v; want %v, %v", c.a, c.b, got, ok, c.points, c.ok)
		}
	}
	for _, c := range []struct {
		a, b, pct float64
		ok        bool
	}{
		{100, 150, 50, true},
		{200, 150, -25, true},
		{60, 60, 0, true},
		{0, 5, 0, false},
		{0, 0, 0, false},
	} {
		if got, ok := readback.PercentChange(c.a, c.b); got != c.pct || ok != c.ok {
			t.Errorf("PercentChange(%v, %v) = %v, %v; want %v, %v", c.a, c.b, got, ok, c.pct, c.ok)
		}
	}
	for _, c := range []struct {
		v          float64
		unit, want string
	}{
		{12.5, "ms", "12.500"},
		{42, "ticks", "42"},
		{-1.5, "cycles", "-1.5"},
	} {
		if got := readback.TimeNumber(c.v, c.unit); got != c.want {
			t.Errorf("TimeNumber(%v, %q) = %q, want %q", c.v, c.unit, got, c.want)
		}
		if got, want := readback.FormatTime(c.v, c.unit), c.want+" "+c.unit; got != want {
			t.Errorf("FormatTime(%v, %q) = %q, want %q", c.v, c.unit, got, want)
		}
	}
}
