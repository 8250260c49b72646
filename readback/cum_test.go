package readback_test

import (
	"context"
	"testing"

	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/store"
)

// cum is each routine's time with children the way go tool pprof computes
// cum, from the plan: the time of its calls with no call of the same
// routine above them.
func cum(threads [][]*call) map[string]int64 {
	m := map[string]int64{}
	open := map[int]bool{}
	var walk func(c *call)
	walk = func(c *call) {
		outer := !open[c.routine]
		if outer {
			m[routineName(c.routine)] += c.total()
			open[c.routine] = true
		}
		for _, k := range c.callees {
			walk(k)
		}
		if outer {
			open[c.routine] = false
		}
	}
	for _, top := range threads {
		for _, c := range top {
			walk(c)
		}
	}
	return m
}

// TestTimeWithChildrenIsCum checks show's time with children per routine
// (Summarize) and compare's (TimesByRoutine) against cum computed from the
// plans: a chain recursing through three routines 300 calls deep, where
// the plain sum over the calls counts the nested calls about a hundred
// times, and trees whose routines recur along a route.
func TestTimeWithChildrenIsCum(t *testing.T) {
	dsn := dbtest.Fresh(t, "sqlite")
	ctx := context.Background()
	for name, threads := range shapes() {
		inst := exportPlan(t, dsn, threads)
		want := cum(threads)
		var sum int64
		for _, v := range want {
			sum += v
		}
		r, err := readback.Open(ctx, dsn, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := r.Summarize(ctx, inst, readback.Options{Top: 1000})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		for _, x := range s.Trace.ByTotal.Items {
			got[x.FullName()] = x.WithChild
		}
		byID, err := r.TimesByRoutine(ctx, s.Instance)
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		if len(got) != len(want) || len(byID) != len(want) {
			t.Errorf("%s: %d routines shown, %d by identity, want %d", name, len(got), len(byID), len(want))
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s: %s: time with children %d, want %d", name, k, got[k], w)
			}
			if g := byID[readback.RoutineID{Module: "m.exe", Name: k}].WithChild; g != w {
				t.Errorf("%s: %s: time with children by identity %d, want %d", name, k, g, w)
			}
		}
	}
}
