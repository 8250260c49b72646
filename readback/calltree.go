package readback

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"slices"
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
	// Rest is set on a node standing for the children a cap left out: how
	// many routes it sums.
	Rest int64 `json:"rest,omitempty"`
	// Folded is set on a "(deeper calls)" node, which stands for the calls
	// below the depth cap under its parent: how many calls it sums (its
	// Calls and Own count them all; its WithChild is the time of the
	// parent's callees, which holds the rest). On the root it is the number
	// of folded calls in the whole tree.
	Folded int64  `json:"folded_calls,omitempty"`
	key    int64  // the routine, for the builder's index
	mark   uint32 // the builder's prune that last kept it
}

// Names of the nodes that stand for what the caps leave out.
const (
	RestName   = "(other calls)"
	FoldedName = "(deeper calls)"
)

// DefaultMaxDepth is the depth cap CallTree applies: calls deeper than 128
// routines below the top of their thread are folded. A deeper tree would
// not show on a page either: an HTML parser nests at most a few hundred
// elements (Chromium 512), and the report's call tree takes three per
// level.
const DefaultMaxDepth = 128

// TreeLimits bound a call tree.
type TreeLimits struct {
	// MaxNodes is the most nodes the tree keeps (0: 1000), the heaviest by
	// time with children; the children a cap cuts are summed in one Rest
	// node under their parent.
	MaxNodes int
	// MaxDepth is the most calls along a route (0: DefaultMaxDepth); the
	// calls below are folded into one "(deeper calls)" node under the call
	// at that depth.
	MaxDepth int
	// work is the most nodes kept while reading (0: max(4*MaxNodes, 16384,
	// 4*MaxDepth)): past it, the lightest routes are summed into Rest nodes
	// on the way.
	work int
	peak *int // if set, receives the most nodes held while reading (tests)
}

func (l TreeLimits) norm() TreeLimits {
	if l.MaxNodes <= 0 {
		l.MaxNodes = 1000
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.work <= 0 {
		// At least four times the route being read, which compact never
		// cuts, so that compact always frees a good part of the tree.
		l.work = max(4*l.MaxNodes, 1<<14, 4*l.MaxDepth)
	}
	return l
}

// CallTree builds the merged call tree of a Function Trace result set with
// at most maxNodes nodes and the default depth cap: CallTreeLimited with
// TreeLimits{MaxNodes: maxNodes}.
func (r *Reader) CallTree(ctx context.Context, in Instance, t *Trace, maxNodes int) (*Node, error) {
	return r.CallTreeLimited(ctx, in, t, TreeLimits{MaxNodes: maxNodes})
}

// foldKey is the routine key of a "(deeper calls)" node among its parent's
// children.
const foldKey = math.MinInt64

type childKey struct {
	parent  *Node
	routine int64
}

type callRow struct {
	Thread, Rec, Parent, Routine, Own, WithChild int64
}

// CallTreeLimited builds the merged call tree of a Function Trace result
// set from CALL_TRACE: one root per thread, calls of the same routine along
// the same route merged. Rows stream from the database in each thread's
// call order (REC_ID, a pre-order of the tree, COL_PARENT_NO naming the
// caller), and memory is bounded whatever the number of calls and the
// shape of the tree:
//
//   - the route being read is kept only MaxDepth calls deep; calls below
//     are summed into a "(deeper calls)" node under the call at that depth,
//     so a deep recursion takes no more than a shallow one;
//   - the tree holds at most a working number of nodes (four times
//     MaxNodes, at least 16384: a few MB); past it, the lightest routes
//     so far (by time with children, never one being read) are summed
//     into a Rest node under their parent, and a route cut that way that
//     is called again starts afresh. A tree of no more routes than that
//     is exactly the unbounded one.
//
// The tree is then cut to at most MaxNodes nodes, keeping the heaviest (by
// time with children); what is cut is summed in a Rest node under its
// parent. The root's time is the threads' time, and each level's times
// add up: no call's time is lost to a cap, only its route.
func (r *Reader) CallTreeLimited(ctx context.Context, in Instance, t *Trace, l TreeLimits) (*Node, error) {
	if err := r.need(in, ftThreads, ftCallTrace); err != nil {
		return nil, err
	}
	l = l.norm()
	b := &treeBuilder{t: t, limits: l, root: &Node{Routine: "all threads"}, index: map[childKey]*Node{},
		stack: make([]frame, 0, l.MaxDepth)}
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
			b.add(c)
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("read: result set %d: call tree: %w", in.InstID, err)
	}
	return b.finish(), nil
}

type frame struct {
	rec  int64
	node *Node
}

// treeBuilder merges the rows of CALL_TRACE into a call tree.
type treeBuilder struct {
	t          *Trace
	limits     TreeLimits
	root       *Node
	index      map[childKey]*Node // the children of every node by routine
	threadNode *Node
	thread     int64
	stack      []frame // the calls of the route being read, at most MaxDepth
	folded     int64
	peak       int              // the most nodes in index
	names      map[int64]string // the routines' names, made once
	epoch      uint32           // the last prune
	times      []int64          // markHeaviest's buffer
}

func (b *treeBuilder) add(c *callRow) {
	if c.Thread != b.thread || b.threadNode == nil {
		b.thread = c.Thread
		b.threadNode = &Node{Routine: fmt.Sprintf("thread %d", c.Thread)}
		b.root.Children = append(b.root.Children, b.threadNode)
		b.stack = b.stack[:0]
	}
	for len(b.stack) > 0 && b.stack[len(b.stack)-1].rec != c.Parent {
		// Below a full route, a parent after the deepest call kept (in
		// REC_ID order) is a call folded below it.
		if top := b.stack[len(b.stack)-1]; len(b.stack) == b.limits.MaxDepth && top.rec < c.Parent {
			b.fold(top.node, c, false)
			return
		}
		b.stack = b.stack[:len(b.stack)-1]
	}
	parent := b.threadNode
	if len(b.stack) > 0 {
		parent = b.stack[len(b.stack)-1].node
	} else {
		b.threadNode.WithChild += c.WithChild
	}
	if len(b.stack) == b.limits.MaxDepth {
		b.fold(parent, c, true)
		return
	}
	n := b.child(parent, c.Routine)
	n.Calls++
	n.Own += c.Own
	n.WithChild += c.WithChild
	b.stack = append(b.stack, frame{c.Rec, n})
}

// fold adds a call below the depth cap to the "(deeper calls)" node under
// parent; direct is true for a callee of parent itself, whose time with
// children is the time of all the calls below.
func (b *treeBuilder) fold(parent *Node, c *callRow, direct bool) {
	n := b.child(parent, foldKey)
	n.Calls++
	n.Folded++
	n.Own += c.Own
	if direct {
		n.WithChild += c.WithChild
	}
	b.folded++
}

// child returns the child of parent for a routine, adding it.
func (b *treeBuilder) child(parent *Node, routine int64) *Node {
	k := childKey{parent, routine}
	if n := b.index[k]; n != nil {
		return n
	}
	if len(b.index) >= b.limits.work {
		b.compact()
	}
	n := &Node{key: routine, Routine: b.name(routine)}
	b.index[k] = n
	b.peak = max(b.peak, len(b.index))
	parent.Children = append(parent.Children, n)
	return n
}

// name returns a routine's name as the tree shows it.
func (b *treeBuilder) name(routine int64) string {
	if routine == foldKey {
		return FoldedName
	}
	if s, ok := b.names[routine]; ok {
		return s
	}
	rt, ok := b.t.names[routine]
	if !ok {
		rt = RoutineTime{RecID: routine}
	}
	if b.names == nil {
		b.names = map[int64]string{}
	}
	b.names[routine] = rt.FullName()
	return b.names[routine]
}

// compact cuts the tree to half its working size, keeping the route being
// read, and removes the nodes cut from the index.
func (b *treeBuilder) compact() {
	b.prune(b.limits.work/2, true)
}

func (b *treeBuilder) finish() *Node {
	root := b.root
	for _, th := range root.Children {
		root.WithChild += th.WithChild
	}
	b.index = nil
	b.prune(b.limits.MaxNodes, false)
	root.Folded = b.folded
	if b.limits.peak != nil {
		*b.limits.peak = b.peak
	}
	return root
}

// prune keeps at most max nodes, the root included, the heaviest first (a
// node is kept only with its parent), and sums the cut children of a node,
// with any Rest node it had, into one Rest node, its last child. While
// reading (reading true) it keeps the route being read besides and removes
// the nodes cut from the index; at the end it sorts each node's children,
// heaviest first.
func (b *treeBuilder) prune(max int, reading bool) {
	b.epoch++
	e := b.epoch
	root := b.root
	root.mark = e
	if reading {
		b.threadNode.mark = e
		for _, f := range b.stack {
			f.node.mark = e
		}
	}
	if reading {
		b.markHeaviest(max, e)
	} else {
		// Best-first expansion by time with children.
		h := &nodeHeap{root}
		for kept := 1; h.Len() > 0 && kept < max; { // the root counts
			n := heap.Pop(h).(*Node)
			if n.mark != e {
				n.mark = e
				kept++
			}
			for _, c := range n.Children {
				if c.Rest == 0 {
					heap.Push(h, c)
				}
			}
		}
	}
	var walk func(n *Node)
	walk = func(n *Node) {
		kids := n.Children[:0]
		var rest Node
		for _, c := range n.Children {
			switch {
			case c.Rest > 0:
				rest.Rest += c.Rest
			case c.mark == e:
				kids = append(kids, c)
				walk(c)
				continue
			default:
				rest.Rest++
				b.drop(n, c)
			}
			rest.Calls += c.Calls
			rest.Own += c.Own
			rest.WithChild += c.WithChild
		}
		if !reading {
			sort.SliceStable(kids, func(i, j int) bool { return kids[i].WithChild > kids[j].WithChild })
		}
		if rest.Rest > 0 {
			rest.Routine = RestName
			kids = append(kids, &rest)
		}
		clear(n.Children[len(kids):])
		n.Children = kids
		if !reading && len(kids) == 0 {
			n.Children = nil
		}
	}
	walk(root)
}

// markHeaviest marks about max nodes, the heaviest (by time with
// children) of those whose parent is marked: the nodes as heavy as the
// max-th heaviest of the tree, found by sorting a flat slice of the times,
// then marked top down (a callee takes no longer than its caller, so this
// is best-first on sound data, without best-first's heap of pointers).
func (b *treeBuilder) markHeaviest(max int, e uint32) {
	times := b.times[:0]
	var collect func(n *Node)
	collect = func(n *Node) {
		for _, c := range n.Children {
			if c.Rest == 0 {
				times = append(times, c.WithChild)
				collect(c)
			}
		}
	}
	collect(b.root)
	b.times = times
	if len(times) < max {
		max = len(times) // keep every one: the caller pins more than work/2
	}
	if max == 0 {
		return
	}
	slices.Sort(times)
	threshold := times[len(times)-max]
	ties := 0 // the nodes at the threshold that may be kept
	for i := len(times) - max; i < len(times) && times[i] == threshold; i++ {
		ties++
	}
	var mark func(n *Node)
	mark = func(n *Node) {
		for _, c := range n.Children {
			if c.Rest > 0 || c.WithChild < threshold {
				continue
			}
			if c.WithChild == threshold {
				if ties == 0 {
					continue
				}
				ties--
			}
			c.mark = e
			mark(c)
		}
	}
	mark(b.root)
}

// drop removes a node cut from under parent, and its subtree, from the
// index.
func (b *treeBuilder) drop(parent, n *Node) {
	if b.index == nil {
		return
	}
	delete(b.index, childKey{parent, n.key})
	for _, c := range n.Children {
		if c.Rest == 0 {
			b.drop(n, c)
		}
	}
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
