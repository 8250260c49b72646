package pprof

import (
	"context"
	"fmt"

	"github.com/google/pprof/profile"

	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/resultset"
)

// maxDepth bounds the frames of a stack (inlined ones included). Every
// call route has one CALL_STACK row per frame, so a deep stack costs rows in
// the square of its depth; Go's runtime records at most 128 frames.
const maxDepth = 1024

// node is a node of the call tree the sample stacks make: a routine called
// along one path from the top of the stack.
type node struct {
	fn          int32
	line        int64 // the caller's line the call was made from, 0 if unknown
	self, total int64 // values of the samples ending at the node, passing through it
	hits        int64 // samples ending at the node
	parent      int32
	first, next int32 // first child, next sibling (order of first appearance); 0 for none
	last        int32 // last child, to append in order
}

// callTree merges the sample stacks of p into a tree. Node 0 stands for
// the top of the stack (no routine). Time comes from the sample type at
// value, hits from the one at hits (-1 when the profile has none).
type callTree struct {
	nodes []node
	child map[[2]int32]int32 // (parent node, routine) -> node
}

func buildTree(ctx context.Context, d *decoded, st *symtab, value, hits int) (*callTree, error) {
	t := &callTree{nodes: []node{{fn: -1}}, child: map[[2]int32]int32{}}
	var buf []frame
	err := d.eachChunk(ctx, func(p *profile.Profile, first int) error {
		for i, smp := range p.Sample {
			v := smp.Value[value]
			var h int64
			if hits >= 0 {
				h = smp.Value[hits]
			}
			var err error
			if buf, err = st.stack(buf, smp, first+i+1); err != nil {
				return err
			}
			if err := t.add(buf, v, h); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// add adds a sample of value v and hits h with the stack buf (leaf first).
func (t *callTree) add(buf []frame, v, h int64) error {
	cur := int32(0)
	var callLine int64
	for j := len(buf) - 1; j >= 0; j-- { // from the top of the stack down to the leaf
		f := buf[j]
		k := [2]int32{cur, f.fn}
		n, ok := t.child[k]
		if !ok {
			if len(t.nodes) >= 1<<31-1 {
				return fmt.Errorf("call tree: too many nodes")
			}
			n = int32(len(t.nodes))
			t.nodes = append(t.nodes, node{fn: f.fn, line: callLine, parent: cur})
			t.child[k] = n
			parent := &t.nodes[cur]
			if parent.first == 0 {
				parent.first = n
			} else {
				t.nodes[parent.last].next = n
			}
			parent.last = n
		}
		t.nodes[n].total += v
		cur, callLine = n, f.line
	}
	t.nodes[cur].self += v
	t.nodes[cur].hits += h
	return nil
}

// traceSet is a CPU profile folded: its routines, counter and call tree.
type traceSet struct {
	fns     []fn
	counter *resultset.Counter
	tree    *callTree
}

// foldTrace folds the samples of a CPU profile into its call tree: one
// routine per function, time from the cpu sample type, hits from samples.
func foldTrace(ctx context.Context, d *decoded) (*traceSet, error) {
	p := d.head
	value := typeIndex(p, "cpu", "nanoseconds")
	hits := typeIndex(p, "samples", "count")
	st := newSymtab(p)
	tree, err := buildTree(ctx, d, st, value, hits)
	if err != nil {
		return nil, err
	}
	tree.child = nil // as large as the tree, and no longer needed
	return &traceSet{fns: st.fns, counter: counter(p, value), tree: tree}, nil
}

func (s *traceSet) export(ctx context.Context, t resultset.Target, caption string) (resultset.Result, error) {
	b, err := s.builder(ctx)
	if err != nil {
		return resultset.Result{}, fmt.Errorf("pprof: %w", err)
	}
	defer b.Close()
	return b.Export(ctx, t, caption)
}

// builder makes the Function Trace builder: the routines, one thread, and
// a call for each node of the tree.
func (s *traceSet) builder(ctx context.Context) (*functiontrace.Builder, error) {
	b := functiontrace.NewBuilder()
	b.SetCounter(s.counter)
	routines := make([]*functiontrace.Routine, len(s.fns))
	for i, f := range s.fns {
		r := b.AddRoutine(functiontrace.RoutineInfo{
			Name: f.name, Class: f.class, Namespace: f.namespace, Module: f.module,
			SourceFile: f.file, SourceLine: f.start, CodeType: CodeType, SymbolMoniker: f.full,
		})
		for _, l := range f.lines {
			r.AddLine(l)
		}
		routines[i] = r
	}
	th := b.AddThread(functiontrace.ThreadInfo{})
	nodes := s.tree.nodes
	// Depth first, without recursion: stack depth is the profile's to
	// choose.
	n := nodes[0].first
	for n != 0 {
		if err := ctx.Err(); err != nil {
			b.Close()
			return nil, err
		}
		nd := &nodes[n]
		if _, err := th.Enter(functiontrace.CallInfo{Routine: routines[nd.fn], Count: nd.hits,
			Time: nd.self, TimeWithChildren: nd.total, LineNumber: nd.line}); err != nil {
			b.Close()
			return nil, err
		}
		if nd.first != 0 {
			n = nd.first
			continue
		}
		// Leave the node, and every ancestor whose children are done,
		// then go on with the next sibling.
		for n != 0 {
			if err := th.Exit(); err != nil {
				b.Close()
				return nil, err
			}
			if next := nodes[n].next; next != 0 {
				n = next
				break
			}
			n = nodes[n].parent
		}
	}
	return b, nil
}
