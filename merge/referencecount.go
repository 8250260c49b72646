package merge

import (
	"context"
	"fmt"
	"strconv"

	"github.com/profdb/profdb/profilers/referencecount"
	"github.com/profdb/profdb/resultset"
)

const (
	rcThreads     = referencecount.Threads
	rcMetaClasses = referencecount.MetaClassesData
	rcClasses     = referencecount.ClassesData
	rcMeta        = referencecount.MetaRoutines
	rcLines       = referencecount.MetaLines
	rcObjects     = referencecount.Objects
	rcCreation    = referencecount.CreationCallStack
	rcRefs        = referencecount.References
	rcARStack     = referencecount.AddrefReleaseCallStack
	rcTree        = referencecount.RefcountTree
)

// The queries of one Reference Count input, one table each, in the order
// of their tables' IDs (their parents' for child tables) and REC_IDs, and
// the tables they read.
var (
	rcThreadQ    = tableQuery("t", rcThreads, byIDRec, "REC_ID", "COL_NAME", "COL_SIZE", "COL_WIN32THREADID")
	rcMetaClassQ = tableQuery("t", rcMetaClasses, byIDRec, metaClassCols...)
	rcClassQ     = tableQuery("t", rcClasses, byIDRec, classCols...)
	rcRoutineQ   = routineQuery("t", rcMeta, byIDRec, "COL_ROUTINENAME", "COL_ANALYSIS_RESULT", "COL_HIT_COUNT")
	rcLineQ      = tableQuery("t", rcLines, byIDRec, lineCols...)
	rcObjectQ    = tableQuery("t", rcObjects, byIDRec, "ID", "COL__", "COL_ADDRESS", "COL_CLASSRID", "COL_GET_",
		"COL_LIVE_REFERENCES", "COL_PEAK_REFERENCES", "COL_SIZE", "COL_THREADRID", "COL_TOTAL_REFERENCES")
	rcCreationQ = tableQuery("t", rcCreation, byParent, creationCols...)
	rcRefQ      = tableQuery("t", rcRefs, byParent, "ID", "PARENT_ID", "COL__", "COL_ADDREF_RELEASE")
	rcARStackQ  = tableQuery("t", rcARStack, byParent, "PARENT_ID", "COL_ROUTINE_NAME", "COL_SOURCE_LINE")
	rcTreeQ     = tableQuery("t", rcTree, byParent, "PARENT_ID", "REC_ID", "COL_PARENT_INDEX", "COL_ROUTINE_NAME",
		"COL_SOURCE_LINE", "COL_ROUTINE_HITCOUNT_ON_ENTER", "COL_RESULT_REFCOUNT")

	rcTables = []string{rcThreads, rcMetaClasses, rcClasses, rcMeta, rcLines, rcObjects, rcCreation, rcRefs, rcARStack, rcTree}
)

type rcThread struct {
	name, win string
	size      acc
}

type rcThreadKey struct {
	win  string
	rank int64
}

type rcObject struct {
	class, thread         int32
	number, address, get  int64
	size, live, peak, tot acc
	creation
	refs []*rcRef
	tree []*rcNode
}

type rcObjectKey struct {
	class, thread int32
	number        int64
}

// rcEntry is a stack entry: kind 0 <Root>, 1 a routine, 2 a thread.
type rcEntry struct {
	kind int8
	idx  int32
}

type rcStackEntry struct {
	e    rcEntry
	line int64
}

type rcRef struct {
	number int64
	addRef bool
	stack  []rcStackEntry
}

type rcNode struct {
	parent *rcNode
	pos    int64 // position in the merged object's tree
	entry  rcEntry
	line   int64
	hits   acc
	delta  sacc // may be negative
}

type rcNodeKey struct {
	object *rcObject
	parent *rcNode
	entry  rcEntry
	occ    int32
}

// refcounts is a Reference Count result set being merged.
type refcounts struct {
	threads keyed[rcThreadKey, *rcThread]
	classTable
	routineTable
	objects keyed[rcObjectKey, *rcObject]
	nodes   map[rcNodeKey]*rcNode
}

// read adds input i, result set inst.
func (m *refcounts) read(ctx context.Context, in *inputs, i int, inst int64) error {
	threads := map[int64]int32{}
	rank := int64(0)
	q := rcThreadQ
	rec, name, size, win := q.at("REC_ID"), q.at("COL_NAME"), q.at("COL_SIZE"), q.at("COL_WIN32THREADID")
	err := in.scan(ctx, inst, q, func(row []any) error {
		k := rcThreadKey{rank: rank}
		if w := str(row[win]); w != "" {
			k = rcThreadKey{win: w, rank: -1}
		}
		rank++
		j := m.threads.at(k, func() *rcThread { return &rcThread{name: str(row[name]), win: str(row[win])} })
		m.threads.items[j].size.add(i, integer(row[size]))
		threads[integer(row[rec])] = j
		return nil
	})
	if err != nil {
		return fmt.Errorf("threads: %w", err)
	}
	classes, err := m.readClasses(ctx, in, i, inst, rcMetaClassQ, rcClassQ, func(v any) (int64, bool) { return integer(v), true })
	if err != nil {
		return err
	}
	lineOf := map[int64]int64{} // line REC_ID -> source line
	routines, err := m.readRoutines(ctx, in, i, inst, rcRoutineQ, rcLineQ, func(_, rec, src int64) { lineOf[rec] = src })
	if err != nil {
		return err
	}
	entry := func(code int64) (rcEntry, error) {
		switch {
		case code == -1:
			return rcEntry{}, nil
		case code >= 0:
			j, err := ref(routines, code, "a stack entry's routine")
			return rcEntry{kind: 1, idx: j}, err
		}
		j, err := ref(threads, -2-code, "a stack entry's thread")
		return rcEntry{kind: 2, idx: j}, err
	}

	objects := map[int64]*rcObject{}
	added := map[*rcObject]bool{} // the objects this input adds: their references are this input's
	q = rcObjectQ
	id, number, address, class, get := q.at("ID"), q.at("COL__"), q.at("COL_ADDRESS"), q.at("COL_CLASSRID"), q.at("COL_GET_")
	live, peak, total, thread := q.at("COL_LIVE_REFERENCES"), q.at("COL_PEAK_REFERENCES"), q.at("COL_TOTAL_REFERENCES"), q.at("COL_THREADRID")
	size = q.at("COL_SIZE")
	err = in.scan(ctx, inst, q, func(row []any) error {
		cls, err := ref(classes, row[class], "an object's COL_CLASSRID")
		if err != nil {
			return err
		}
		th, err := ref(threads, row[thread], "an object's COL_THREADRID")
		if err != nil {
			return err
		}
		k := rcObjectKey{class: cls, thread: th, number: integer(row[number])}
		o := m.objects.items[m.objects.at(k, func() *rcObject {
			o := &rcObject{class: cls, thread: th, number: k.number, address: integer(row[address]), get: integer(row[get])}
			added[o] = true
			return o
		})]
		o.live.add(i, integer(row[live]))
		o.peak.add(i, integer(row[peak]))
		o.size.add(i, integer(row[size]))
		o.tot.add(i, integer(row[total]))
		objects[integer(row[id])] = o
		return nil
	})
	if err != nil {
		return fmt.Errorf("objects: %w", err)
	}
	// A creation call stack's line is the result set's (line REC_IDs count
	// within the result set).
	err = readCreation(ctx, in, i, inst, rcCreationQ, objects, routines, func(_, rec any) int64 {
		if rec == nil {
			return 0
		}
		return lineOf[integer(rec)]
	})
	if err != nil {
		return err
	}
	refs := map[int64]*rcRef{} // this input's references that the merge takes
	q = rcRefQ
	parent := q.at("PARENT_ID")
	id, number, addRef := q.at("ID"), q.at("COL__"), q.at("COL_ADDREF_RELEASE")
	err = in.scan(ctx, inst, q, func(row []any) error {
		o, err := object(objects, integer(row[parent]), "a reference's PARENT_ID")
		if err != nil {
			return err
		}
		if !added[o] {
			return nil // an object an earlier input holds: its references are that input's
		}
		r := &rcRef{number: integer(row[number]), addRef: integer(row[addRef]) != 0}
		o.refs = append(o.refs, r)
		refs[integer(row[id])] = r
		return nil
	})
	if err != nil {
		return fmt.Errorf("references: %w", err)
	}
	q = rcARStackQ
	parent, routine, src := q.at("PARENT_ID"), q.at("COL_ROUTINE_NAME"), q.at("COL_SOURCE_LINE")
	err = in.scan(ctx, inst, q, func(row []any) error {
		r, ok := refs[integer(row[parent])]
		if !ok {
			return nil
		}
		e, err := entry(integer(row[routine]))
		if err != nil {
			return err
		}
		l, _ := strconv.ParseInt(str(row[src]), 10, 64)
		r.stack = append(r.stack, rcStackEntry{e: e, line: l})
		return nil
	})
	if err != nil {
		return fmt.Errorf("AddRef / Release call stacks: %w", err)
	}
	var recs map[int64]*rcNode
	var occ map[rcNodeKey]int32
	cur := int64(-1)
	q = rcTreeQ
	parent, rec, routine, src = q.at("PARENT_ID"), q.at("REC_ID"), q.at("COL_ROUTINE_NAME"), q.at("COL_SOURCE_LINE")
	parentIndex, hits, delta := q.at("COL_PARENT_INDEX"), q.at("COL_ROUTINE_HITCOUNT_ON_ENTER"), q.at("COL_RESULT_REFCOUNT")
	err = in.scan(ctx, inst, q, func(row []any) error {
		o, err := object(objects, integer(row[parent]), "a call tree node's PARENT_ID")
		if err != nil {
			return err
		}
		if integer(row[parent]) != cur {
			cur, recs, occ = integer(row[parent]), map[int64]*rcNode{}, map[rcNodeKey]int32{}
		}
		var up *rcNode
		if p := integer(row[parentIndex]); row[parentIndex] != nil && p >= 0 {
			var ok bool
			if up, ok = recs[p]; !ok {
				return fmt.Errorf("call tree node %d: COL_PARENT_INDEX %d names no earlier node (run verify)", integer(row[rec]), p)
			}
		}
		e, err := entry(integer(row[routine]))
		if err != nil {
			return err
		}
		k := rcNodeKey{object: o, parent: up, entry: e}
		n0 := occ[k] // counted under the key with occ 0
		occ[k] = n0 + 1
		k.occ = n0
		n, ok := m.nodes[k]
		if !ok {
			n = &rcNode{parent: up, pos: int64(len(o.tree)), entry: e, line: integer(row[src])}
			m.nodes[k] = n
			o.tree = append(o.tree, n)
		}
		n.hits.add(i, integer(row[hits]))
		n.delta.add(i, integer(row[delta]))
		recs[integer(row[rec])] = n
		return nil
	})
	if err != nil {
		return fmt.Errorf("call trees: %w", err)
	}
	return nil
}

// resultSet builds the merged result set with the Reference Count builder.
func (m *refcounts) resultSet(op Op, caption string) *resultset.ResultSet {
	b := referencecount.NewBuilder()
	ths := make([]*referencecount.Thread, len(m.threads.items))
	for i, t := range m.threads.items {
		ths[i] = b.AddThread(referencecount.ThreadInfo{Name: t.name, Win32ThreadID: t.win, Size: t.size.value(op)})
	}
	cls := make([]*referencecount.Class, len(m.classes.items))
	for i, c := range m.classes.items {
		cls[i] = b.Class(c.name, c.module)
		cls[i].SetSymbolMoniker(c.moniker)
		v := func(f int) int64 { return c.figs[f].value(op) }
		cls[i].Add(referencecount.ClassStats{LiveCount: v(0), LiveSize: v(1), PeakCreated: v(2), PeakSize: v(3),
			TotalCreated: v(4), TotalSize: v(5)})
	}
	rs := make([]*referencecount.Routine, len(m.routines.items))
	for i, r := range m.routines.items {
		in := r.info
		rs[i] = b.AddRoutine(referencecount.RoutineInfo{Name: in.Name, Class: in.Class, Namespace: in.Namespace,
			Module: in.Module, SourceFile: in.SourceFile, SourceLine: in.SourceLine, CodeType: in.CodeType,
			HitCount: r.hits.value(op), Address: in.Address, Token: in.Token, LineLevel: in.LineLevel,
			UnitName: in.UnitName, SymbolMoniker: in.SymbolMoniker, AnalysisResult: in.AnalysisResult})
		for _, l := range r.lines {
			rs[i].AddLine(l)
		}
	}
	entry := func(e rcEntry, line int64) referencecount.StackEntry {
		s := referencecount.StackEntry{SourceLine: line}
		switch e.kind {
		case 1:
			s.Routine = rs[e.idx]
		case 2:
			s.Thread = ths[e.idx]
		}
		return s
	}
	for _, o := range m.objects.items {
		info := referencecount.ObjectInfo{Number: o.number, Get: o.get, Address: uint64(o.address), Size: o.size.value(op),
			LiveReferences: o.live.value(op), PeakReferences: o.peak.value(op), TotalReferences: o.tot.value(op)}
		if o.class >= 0 {
			info.Class = cls[o.class]
		}
		if o.thread >= 0 {
			info.Thread = ths[o.thread]
		}
		bo := b.AddObject(info)
		for _, f := range o.frames {
			fr := referencecount.Frame{SourceLine: f.line, HitCount: f.hits.value(op)}
			if f.routine >= 0 {
				fr.Routine = rs[f.routine]
			}
			bo.AddCreationFrame(fr)
		}
		for _, r := range o.refs {
			stack := make([]referencecount.StackEntry, len(r.stack))
			for i, s := range r.stack {
				stack[i] = entry(s.e, s.line)
			}
			b.AddReference(bo, r.number, r.addRef, stack...)
		}
		nodes := make([]*referencecount.TreeNode, len(o.tree))
		for i, n := range o.tree {
			var parent *referencecount.TreeNode
			if n.parent != nil {
				parent = nodes[n.parent.pos]
			}
			nodes[i] = bo.AddTreeNode(parent, referencecount.TreeNodeInfo{Entry: entry(n.entry, n.line),
				HitCountOnEnter: n.hits.value(op), RefCountChange: n.delta.value(op)})
		}
	}
	return b.ResultSet(caption)
}

// sacc combines a figure that may be negative (a change of a reference
// count), input by input as acc does: sum, mean (rounded half away from
// zero), largest, smallest.
type sacc struct {
	sum, max, min, cur int64
	n, last            int32
}

func (a *sacc) add(i int, v int64) {
	if a.last == int32(i+1) {
		a.cur = v // a node an input names twice is one node: the last counts
		return
	}
	a.fold()
	a.last, a.cur = int32(i+1), v
}

func (a *sacc) fold() {
	if a.last <= 0 {
		return
	}
	if a.n == 0 || a.cur > a.max {
		a.max = a.cur
	}
	if a.n == 0 || a.cur < a.min {
		a.min = a.cur
	}
	a.n++
	a.sum += a.cur
	a.last, a.cur = -a.last, 0
}

func (a *sacc) value(op Op) int64 {
	a.fold()
	switch op {
	case Avg:
		if a.n == 0 {
			return 0
		}
		n := int64(a.n)
		if a.sum < 0 {
			return -((-a.sum + n/2) / n)
		}
		return (a.sum + n/2) / n
	case Max:
		return a.max
	case Min:
		return a.min
	}
	return a.sum
}
