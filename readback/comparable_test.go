package readback_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/profdb/profdb/readback"
)

// One rule for compare, check and merge: one profiler, one counter name,
// one frequency; the description does not count.
func TestComparable(t *testing.T) {
	ft := func(id int64, name, desc, freq string) readback.Instance {
		return readback.Instance{InstID: id, Profiler: "function-trace", CounterName: name, CounterDescription: desc,
			CounterFrequency: readback.NullDec(freq)}
	}
	for _, tc := range []struct {
		name string
		a, b readback.Instance
		want string // "" when they compare
	}{
		{"one counter", ft(1, "Time", "Elapsed", "1000"), ft(2, "Time", "Elapsed", "1000"), ""},
		{"descriptions differ", ft(1, "Time", "Elapsed", "1000"), ft(2, "Time", "Wall clock", "1000"), ""},
		{"no frequency in both", ft(1, "Ticks", "", ""), ft(2, "Ticks", "", ""), ""},
		{"coverage", readback.Instance{InstID: 1, Profiler: "light-coverage"}, readback.Instance{InstID: 2, Profiler: "light-coverage"}, ""},
		{"profilers differ", readback.Instance{InstID: 1, Profiler: "light-coverage"}, ft(2, "Time", "", ""),
			"result set 1 is light-coverage, result set 2 is function-trace"},
		{"counter names differ", ft(1, "Time", "", "1000"), ft(2, "CPU Cycles", "", "1000"),
			`different counters: "Time" (result set 1) and "CPU Cycles" (result set 2)`},
		{"frequencies differ", ft(1, "Time", "", "1000"), ft(2, "Time", "", "2000"),
			`different frequencies: 1000 (result set 1) and 2000 (result set 2)`},
		{"one frequency unknown", ft(1, "Time", "", "1000"), ft(2, "Time", "", ""),
			`different frequencies: 1000 (result set 1) and none (result set 2)`},
	} {
		err := readback.Comparable(tc.a, tc.b)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, readback.ErrIncomparable)):
			t.Errorf("%s: error %v, want ErrIncomparable with %q", tc.name, err, tc.want)
		}
	}
}
