package readback

import (
	"fmt"
	"testing"
)

// TestCompactKeepsTheHeaviest: when the tree outgrows its working size
// while reading, the routes cut are the lightest, so routes that stay the
// heaviest throughout come out exact, and the Rest node holds exactly the
// others; routes of equal weight are cut as well (the working size holds
// whatever the times).
func TestCompactKeepsTheHeaviest(t *testing.T) {
	for _, equal := range []bool{false, true} {
		t.Run(fmt.Sprintf("equal-%v", equal), func(t *testing.T) {
			const routines, rounds, work = 40, 100, 16
			var peak int
			b := &treeBuilder{t: &Trace{}, root: &Node{Routine: "all threads"}, index: map[childKey]*Node{},
				limits: TreeLimits{MaxNodes: 7, work: work, peak: &peak}.norm()}
			var rec, total int64
			weight := func(r int64) int64 {
				if equal {
					return 5
				}
				return r + 1
			}
			for range rounds {
				for r := range int64(routines) {
					b.add(&callRow{Rec: rec, Parent: -1, Routine: r, Own: weight(r), WithChild: weight(r)})
					total += weight(r)
					rec++
				}
			}
			root := b.finish()
			if peak > work {
				t.Errorf("held %d nodes while reading, want at most %d", peak, work)
			}
			if len(root.Children) != 1 {
				t.Fatalf("%d threads, want 1", len(root.Children))
			}
			th := root.Children[0]
			if th.WithChild != total || root.WithChild != total {
				t.Errorf("thread time %d, root %d; want %d", th.WithChild, root.WithChild, total)
			}
			// MaxNodes 7: the root, the thread, 5 routines and the Rest.
			if len(th.Children) != 6 || th.Children[5].Routine != RestName {
				t.Fatalf("%d children under the thread, want 5 and the Rest", len(th.Children))
			}
			var calls, own int64
			for i, c := range th.Children {
				calls += c.Calls
				own += c.Own
				if i == 5 || equal {
					continue
				}
				r := int64(routines - 1 - i)
				if want := (RoutineTime{RecID: r}).FullName(); c.Routine != want || c.Calls != rounds || c.Own != rounds*weight(r) {
					t.Errorf("child %d: %s, %d calls, own %d; want %s, %d, %d", i, c.Routine, c.Calls, c.Own, want, rounds, rounds*weight(r))
				}
			}
			if calls != routines*rounds || own != total {
				t.Errorf("children and Rest: %d calls, own %d; want %d, %d", calls, own, routines*rounds, total)
			}
		})
	}
}
