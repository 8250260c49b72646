package readback

import (
	"fmt"
	"testing"
)

// BenchmarkTreeBuilder feeds the call tree builder the rows of a trace of
// 1M calls of three shapes, without a database: the time and allocations
// per call of merging, folding and compacting (go test -bench
// TreeBuilder -benchmem ./readback/).
func BenchmarkTreeBuilder(b *testing.B) {
	const n = 1_000_000
	names := map[int64]RoutineTime{}
	for i := range int64(1000) {
		names[i] = RoutineTime{RecID: i, Name: fmt.Sprintf("Routine%03d", i), Class: fmt.Sprintf("Class%02d", i%40)}
	}
	t := &Trace{names: names}
	for _, shape := range []string{"flat", "chain", "fanout"} {
		b.Run(shape, func(b *testing.B) {
			for b.Loop() {
				tb := &treeBuilder{t: t, limits: TreeLimits{}.norm(), root: &Node{Routine: "all threads"},
					index: map[childKey]*Node{}}
				var c callRow
				// fanout: complete trees of fan-out 8, 7 calls deep, each
				// call a route of its own.
				type open struct{ rec, routine, left int64 }
				var stack []open
				var top int64
				for i := range int64(n) {
					c = callRow{Rec: i, Own: 2, WithChild: 2}
					switch shape {
					case "flat":
						c.Parent, c.Routine = -1, i%1000
					case "chain":
						c.Parent, c.Routine, c.WithChild = i-1, i%1000, 2*(n-i)
					case "fanout":
						for len(stack) > 0 && stack[len(stack)-1].left == 0 {
							stack = stack[:len(stack)-1]
						}
						c.Parent, c.Routine = -1, top%1000
						if len(stack) == 0 {
							top++
						} else {
							p := &stack[len(stack)-1]
							c.Parent, c.Routine = p.rec, (p.routine*8+(8-p.left)+1)%1000
							p.left--
						}
						c.WithChild = int64(2*(7-len(stack))) * (i%13 + 1)
						if len(stack) < 6 {
							stack = append(stack, open{i, c.Routine, 8})
						}
					}
					tb.add(&c)
				}
				tb.finish()
			}
		})
	}
}
