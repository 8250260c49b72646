package readback

import (
	"container/heap"
	"context"
	"fmt"
	"sort"

	"github.com/jmoiron/sqlx"
)

// Node is a node of a merged call tree: the calls of one routine reached
// by the same route (sequence of routines) from the top of a thread.
type Node struct {
	Routine   string  `json:"routine"`
	Calls     int64   `json:"calls"`
	Own       int64   `json:"own_time"`
	WithChild int64   `json:"time_with_children"`
	Children  []*Node `json:"children,omitempty"`
	// Rest is set on a node standing for the children a cap left out.
	Rest  int64 `json:"rest,omitempty"`
	index map[int64]*Node
}

type callRow struct {
	Thread, Rec, Parent, Routine, Own, WithChild int64
}

// CallTree builds the merged call tree of a Function Trace result set from
// CALL_TRACE: one root per thread, calls of the same routine along the same
// route merged. Rows stream from the database in each thread's call order
// (REC_ID, a pre-order of the tree, COL_PARENT_NO naming the caller), so
// memory grows with the number of distinct routes and the depth, not with
// the number of calls. The tree is then cut to at most maxNodes nodes,
// keeping the heaviest (by time with children); what is cut is summed in a
// "Rest" node under its parent.
func (r *Reader) CallTree(ctx context.Context, in Instance, t *Trace, maxNodes int) (*Node, error) {
	if err := r.need(in, ftThreads, ftCallTrace); err != nil {
		return nil, err
	}
	root := &Node{Routine: "all threads", index: map[int64]*Node{}}
	type frame struct {
		rec  int64
		node *Node
	}
	var stack []frame
	thread := int64(-1 << 62)
	var threadNode *Node
	var row callRow
	err := scan(ctx, r, in.InstID, `SELECT {c.`+ftCallTrace+`.PARENT_ID} AS thread, {c.`+ftCallTrace+`.REC_ID} AS rec,
		COALESCE({c.`+ftCallTrace+`.COL_PARENT_NO}, -1) AS parent, COALESCE({c.`+ftCallTrace+`.COL_ROUTINE_NAME}, -1) AS rid,
		COALESCE({c.`+ftCallTrace+`.COL__S}, 0) AS own, COALESCE({c.`+ftCallTrace+`.COL__S_WITH_CHILDREN}, 0) AS total
		FROM {c:`+ftCallTrace+`} WHERE {c.`+ftCallTrace+`.INST_ID} = {?}
		ORDER BY {c.`+ftCallTrace+`.PARENT_ID}, {c.`+ftCallTrace+`.REC_ID}`,
		func(rows *sqlx.Rows) error {
			c := &row
			if err := rows.Scan(&c.Thread, &c.Rec, &c.Parent, &c.Routine, &c.Own, &c.WithChild); err != nil {
				return fmt.Errorf("scan: %w", err)
			}
			if c.Thread != thread || threadNode == nil {
				thread = c.Thread
				threadNode = &Node{Routine: fmt.Sprintf("thread %d", thread), index: map[int64]*Node{}}
				root.Children = append(root.Children, threadNode)
				stack = stack[:0]
			}
			for len(stack) > 0 && stack[len(stack)-1].rec != c.Parent {
				stack = stack[:len(stack)-1]
			}
			parent := threadNode
			if len(stack) > 0 {
				parent = stack[len(stack)-1].node
			} else {
				threadNode.WithChild += c.WithChild
			}
			n := parent.index[c.Routine]
			if n == nil {
				n = &Node{Routine: t.names[c.Routine].FullName(), index: map[int64]*Node{}}
				if _, ok := t.names[c.Routine]; !ok {
					n.Routine = RoutineTime{RecID: c.Routine}.FullName()
				}
				parent.index[c.Routine] = n
				parent.Children = append(parent.Children, n)
			}
			n.Calls++
			n.Own += c.Own
			n.WithChild += c.WithChild
			stack = append(stack, frame{c.Rec, n})
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("read: result set %d: call tree: %w", in.InstID, err)
	}
	for _, th := range root.Children {
		root.WithChild += th.WithChild
	}
	prune(root, maxNodes)
	return root, nil
}

// prune keeps at most max nodes, the heaviest first (a node is kept only
// with its parent), and sums the cut children of a node into one Rest node.
func prune(root *Node, max int) {
	if max <= 0 {
		max = 1
	}
	keep := map[*Node]bool{}
	// Best-first expansion by time with children.
	h := &nodeHeap{root}
	for h.Len() > 0 && len(keep) < max {
		n := heap.Pop(h).(*Node)
		keep[n] = true
		for _, c := range n.Children {
			heap.Push(h, c)
		}
	}
	var walk func(n *Node)
	walk = func(n *Node) {
		n.index = nil
		var kids []*Node
		rest := &Node{Routine: "(other calls)"}
		for _, c := range n.Children {
			if keep[c] {
				kids = append(kids, c)
				walk(c)
			} else {
				rest.Rest++
				rest.Calls += c.Calls
				rest.Own += c.Own
				rest.WithChild += c.WithChild
			}
		}
		sort.SliceStable(kids, func(i, j int) bool { return kids[i].WithChild > kids[j].WithChild })
		if rest.Rest > 0 {
			kids = append(kids, rest)
		}
		n.Children = kids
	}
	walk(root)
}

// nodeHeap pops the heaviest node first.
type nodeHeap []*Node

func (h nodeHeap) Len() int           { return len(h) }
func (h nodeHeap) Less(i, j int) bool { return h[i].WithChild > h[j].WithChild }
func (h nodeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *nodeHeap) Push(x any)        { *h = append(*h, x.(*Node)) }
func (h *nodeHeap) Pop() any {
	old := *h
	n := old[len(old)-1]
	*h = old[:len(old)-1]
	return n
}
