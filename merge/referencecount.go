package merge

import (
	"context"
	"fmt"
	"strconv"

	"github.com/profdb/profdb/ddl"
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

// col writes {alias.table.column}.
func col(alias, table, column string) string { return "{" + alias + "." + table + "." + column + "}" }

// selectSQL is a query of columns of one table of one result set, in order.
func selectSQL(table string, order string, cols ...string) string {
	q := "SELECT "
	for i, c := range cols {
		if i > 0 {
			q += ", "
		}
		q += col("t", table, c)
	}
	q += " FROM {t:" + table + "} WHERE " + col("t", table, "INST_ID") + " = {?} ORDER BY "
	for i, c := range []string{order, "REC_ID"} {
		if c == "" {
			continue
		}
		if i > 0 && order != "" {
			q += ", "
		}
		q += col("t", table, c)
	}
	return q
}

var (
	rcThreadSQL     = selectSQL(rcThreads, "ID", "REC_ID", "COL_NAME", "COL_SIZE", "COL_WIN32THREADID")
	rcThreadTypes   = []ddl.Type{ddl.Integer, ddl.String, ddl.Integer, ddl.String}
	rcMetaClassSQL  = selectSQL(rcMetaClasses, "ID", "REC_ID", "COL_CLASS_NAME", "COL_MODULE_NAME", "COL_SYMBOL_MONIKER")
	rcMetaClassType = []ddl.Type{ddl.Integer, ddl.String, ddl.String, ddl.String}
	rcClassSQL      = selectSQL(rcClasses, "ID", "COL_CLASS_NAME", "COL_MODULE_NAME", "COL_LIVE_COUNT", "COL_LIVE_SIZE",
		"COL_PEAK_CREATED", "COL_PEAK_SIZE", "COL_TOTAL_CREATED", "COL_TOTAL_SIZE")
	rcClassTypes = []ddl.Type{ddl.String, ddl.String, ddl.Integer, ddl.Integer, ddl.Integer, ddl.Integer, ddl.Integer, ddl.Integer}
	rcRoutineSQL = selectSQL(rcMeta, "ID", "ID", "REC_ID", "COL_MODULE_NAME", "COL_SOURCE_FILE", "COL_NAMESPACE", "COL_CLASS_NAME",
		"COL_ROUTINENAME", "COL_SOURCE_LINE", "COL_CODE_TYPE", "COL_ADDRESS", "COL_TOKEN", "COL_UNIT_NAME",
		"COL_SYMBOL_MONIKER", "COL_ANALYSIS_RESULT", "COL_PROFILELINES", "COL_HIT_COUNT")
	rcRoutineTypes = []ddl.Type{ddl.Integer, ddl.Integer, ddl.String, ddl.String, ddl.String, ddl.String,
		ddl.String, ddl.Integer, ddl.String, ddl.Decimal, ddl.Integer, ddl.String,
		ddl.String, ddl.String, ddl.Integer, ddl.Integer}
	rcLineSQL   = selectSQL(rcLines, "ID", "PARENT_ID", "REC_ID", "COL_SOURCE_LINE")
	rcLineTypes = []ddl.Type{ddl.Integer, ddl.Integer, ddl.Integer}
	rcObjectSQL = selectSQL(rcObjects, "ID", "ID", "COL__", "COL_ADDRESS", "COL_CLASSRID", "COL_GET_", "COL_LIVE_REFERENCES",
		"COL_PEAK_REFERENCES", "COL_SIZE", "COL_THREADRID", "COL_TOTAL_REFERENCES")
	rcObjectTypes = []ddl.Type{ddl.Integer, ddl.Integer, ddl.Integer, ddl.Integer, ddl.Integer, ddl.Integer,
		ddl.Integer, ddl.Integer, ddl.Integer, ddl.Integer}
	rcCreationSQL   = selectSQL(rcCreation, "PARENT_ID", "PARENT_ID", "COL_HIT_COUNT", "COL_LINERID", "COL_ROUTINERID")
	rcCreationTypes = []ddl.Type{ddl.Integer, ddl.Integer, ddl.Integer, ddl.Integer}
	rcRefSQL        = selectSQL(rcRefs, "PARENT_ID", "ID", "PARENT_ID", "COL__", "COL_ADDREF_RELEASE")
	rcRefTypes      = []ddl.Type{ddl.Integer, ddl.Integer, ddl.Integer, ddl.Integer}
	rcARStackSQL    = selectSQL(rcARStack, "PARENT_ID", "PARENT_ID", "COL_ROUTINE_NAME", "COL_SOURCE_LINE")
	rcARStackTypes  = []ddl.Type{ddl.Integer, ddl.Integer, ddl.String}
	rcTreeSQL       = selectSQL(rcTree, "PARENT_ID", "PARENT_ID", "REC_ID", "COL_PARENT_INDEX", "COL_ROUTINE_NAME",
		"COL_SOURCE_LINE", "COL_ROUTINE_HITCOUNT_ON_ENTER", "COL_RESULT_REFCOUNT")
	rcTreeTypes = []ddl.Type{ddl.Integer, ddl.Integer, ddl.Integer, ddl.Integer, ddl.Integer, ddl.Integer, ddl.Integer}
)

type rcThread struct {
	name, win string
	size      acc
}

type rcThreadKey struct {
	win  string
	rank int64
}

type rcClass struct {
	name, module, moniker string
	figs                  [6]acc
}

type rcObject struct {
	class, thread         int32
	number, address, get  int64
	size, live, peak, tot acc
	frames                []rsFrame
	refs                  []*rcRef
	tree                  []*rcNode
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
	threads []*rcThread
	tIdx    map[rcThreadKey]int32
	classes []*rcClass
	cIdx    map[[2]string]int32
	routineTable
	objects []*rcObject
	oIdx    map[rcObjectKey]int32
	nodes   map[rcNodeKey]*rcNode
}

func readRefcounts(ctx context.Context, in *inputs, insts []int64) (*refcounts, error) {
	if err := in.need(rcThreads, rcMetaClasses, rcClasses, rcMeta, rcLines, rcObjects, rcCreation, rcRefs, rcARStack, rcTree); err != nil {
		return nil, err
	}
	m := &refcounts{tIdx: map[rcThreadKey]int32{}, cIdx: map[[2]string]int32{}, routineTable: routineTable{rIdx: map[routineKey]int32{}},
		oIdx: map[rcObjectKey]int32{}, nodes: map[rcNodeKey]*rcNode{}}
	for i, inst := range insts {
		if err := m.read(ctx, in, i, inst); err != nil {
			return nil, fmt.Errorf("result set %d: %w", inst, err)
		}
	}
	return m, nil
}

func (m *refcounts) class(name, module string) *rcClass {
	k := [2]string{name, module}
	j, ok := m.cIdx[k]
	if !ok {
		j = int32(len(m.classes))
		m.cIdx[k] = j
		m.classes = append(m.classes, &rcClass{name: name, module: module})
	}
	return m.classes[j]
}

func (m *refcounts) read(ctx context.Context, in *inputs, i int, inst int64) error {
	threads := map[int64]int32{}
	rank := int64(0)
	err := in.scan(ctx, inst, rcThreadSQL, rcThreadTypes, func(row []any) error {
		k := rcThreadKey{rank: rank}
		if w := str(row[3]); w != "" {
			k = rcThreadKey{win: w, rank: -1}
		}
		rank++
		j, ok := m.tIdx[k]
		if !ok {
			j = int32(len(m.threads))
			m.tIdx[k] = j
			m.threads = append(m.threads, &rcThread{name: str(row[1]), win: str(row[3])})
		}
		m.threads[j].size.add(i, integer(row[2]))
		threads[integer(row[0])] = j
		return nil
	})
	if err != nil {
		return fmt.Errorf("threads: %w", err)
	}
	classes := map[int64]int32{}
	err = in.scan(ctx, inst, rcMetaClassSQL, rcMetaClassType, func(row []any) error {
		c := m.class(str(row[1]), str(row[2]))
		if c.moniker == "" {
			c.moniker = str(row[3])
		}
		classes[integer(row[0])] = m.cIdx[[2]string{c.name, c.module}]
		return nil
	})
	if err != nil {
		return fmt.Errorf("classes: %w", err)
	}
	err = in.scan(ctx, inst, rcClassSQL, rcClassTypes, func(row []any) error {
		c := m.class(str(row[0]), str(row[1]))
		for f := range c.figs {
			c.figs[f].add(i, integer(row[2+f]))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("class figures: %w", err)
	}
	byID, byRec := map[int64]int32{}, map[int64]int32{}
	err = in.scan(ctx, inst, rcRoutineSQL, rcRoutineTypes, func(row []any) error {
		j := m.addRoutine(i, row, false)
		byID[integer(row[0])] = j
		byRec[integer(row[1])] = j
		return nil
	})
	if err != nil {
		return fmt.Errorf("routines: %w", err)
	}
	lineOf := map[int64]int64{} // line REC_ID -> source line
	err = in.scan(ctx, inst, rcLineSQL, rcLineTypes, func(row []any) error {
		l, err := m.addLine(row, byID)
		if err != nil {
			return err
		}
		lineOf[integer(row[1])] = l
		return nil
	})
	if err != nil {
		return fmt.Errorf("lines: %w", err)
	}
	ref := func(ids map[int64]int32, v any, what string) (int32, error) {
		if v == nil {
			return -1, nil
		}
		j, ok := ids[integer(v)]
		if !ok {
			return 0, fmt.Errorf("%s %d names nothing (run verify)", what, integer(v))
		}
		return j, nil
	}
	entry := func(code int64) (rcEntry, error) {
		switch {
		case code == -1:
			return rcEntry{}, nil
		case code >= 0:
			j, err := ref(byRec, code, "a stack entry's routine")
			return rcEntry{kind: 1, idx: j}, err
		}
		j, err := ref(threads, -2-code, "a stack entry's thread")
		return rcEntry{kind: 2, idx: j}, err
	}

	objects := map[int64]*rcObject{}
	added := map[*rcObject]bool{} // the objects this input adds: their references are this input's
	err = in.scan(ctx, inst, rcObjectSQL, rcObjectTypes, func(row []any) error {
		cls, err := ref(classes, row[3], "an object's COL_CLASSRID")
		if err != nil {
			return err
		}
		th, err := ref(threads, row[8], "an object's COL_THREADRID")
		if err != nil {
			return err
		}
		k := rcObjectKey{class: cls, thread: th, number: integer(row[1])}
		j, ok := m.oIdx[k]
		if !ok {
			j = int32(len(m.objects))
			m.oIdx[k] = j
			o := &rcObject{class: cls, thread: th, number: k.number, address: integer(row[2]), get: integer(row[4])}
			m.objects = append(m.objects, o)
			added[o] = true
		}
		o := m.objects[j]
		o.live.add(i, integer(row[5]))
		o.peak.add(i, integer(row[6]))
		o.size.add(i, integer(row[7]))
		o.tot.add(i, integer(row[9]))
		objects[integer(row[0])] = o
		return nil
	})
	if err != nil {
		return fmt.Errorf("objects: %w", err)
	}
	object := func(id int64, what string) (*rcObject, error) {
		o, ok := objects[id]
		if !ok {
			return nil, fmt.Errorf("%s names no object %d (run verify)", what, id)
		}
		return o, nil
	}
	pos, cur := 0, int64(-1)
	err = in.scan(ctx, inst, rcCreationSQL, rcCreationTypes, func(row []any) error {
		o, err := object(integer(row[0]), "a creation call stack's PARENT_ID")
		if err != nil {
			return err
		}
		if integer(row[0]) != cur {
			pos, cur = 0, integer(row[0])
		}
		if pos == len(o.frames) {
			r, err := ref(byRec, row[3], "a creation call stack's COL_ROUTINERID")
			if err != nil {
				return err
			}
			f := rsFrame{routine: r}
			if row[2] != nil {
				f.line = lineOf[integer(row[2])]
			}
			o.frames = append(o.frames, f)
		}
		o.frames[pos].hits.add(i, integer(row[1]))
		pos++
		return nil
	})
	if err != nil {
		return fmt.Errorf("creation call stacks: %w", err)
	}
	refs := map[int64]*rcRef{} // this input's references that the merge takes
	err = in.scan(ctx, inst, rcRefSQL, rcRefTypes, func(row []any) error {
		o, err := object(integer(row[1]), "a reference's PARENT_ID")
		if err != nil {
			return err
		}
		if !added[o] {
			return nil // an object an earlier input holds: its references are that input's
		}
		r := &rcRef{number: integer(row[2]), addRef: integer(row[3]) != 0}
		o.refs = append(o.refs, r)
		refs[integer(row[0])] = r
		return nil
	})
	if err != nil {
		return fmt.Errorf("references: %w", err)
	}
	err = in.scan(ctx, inst, rcARStackSQL, rcARStackTypes, func(row []any) error {
		r, ok := refs[integer(row[0])]
		if !ok {
			return nil
		}
		e, err := entry(integer(row[1]))
		if err != nil {
			return err
		}
		l, _ := strconv.ParseInt(str(row[2]), 10, 64)
		r.stack = append(r.stack, rcStackEntry{e: e, line: l})
		return nil
	})
	if err != nil {
		return fmt.Errorf("AddRef / Release call stacks: %w", err)
	}
	var recs map[int64]*rcNode
	var occ map[rcNodeKey]int32
	cur = -1
	err = in.scan(ctx, inst, rcTreeSQL, rcTreeTypes, func(row []any) error {
		o, err := object(integer(row[0]), "a call tree node's PARENT_ID")
		if err != nil {
			return err
		}
		if integer(row[0]) != cur {
			cur, recs, occ = integer(row[0]), map[int64]*rcNode{}, map[rcNodeKey]int32{}
		}
		var parent *rcNode
		if p := integer(row[2]); row[2] != nil && p >= 0 {
			var ok bool
			if parent, ok = recs[p]; !ok {
				return fmt.Errorf("call tree node %d: COL_PARENT_INDEX %d names no earlier node (run verify)", integer(row[1]), p)
			}
		}
		e, err := entry(integer(row[3]))
		if err != nil {
			return err
		}
		k := rcNodeKey{object: o, parent: parent, entry: e}
		n0 := occ[k] // counted under the key with occ 0
		occ[k] = n0 + 1
		k.occ = n0
		n, ok := m.nodes[k]
		if !ok {
			n = &rcNode{parent: parent, pos: int64(len(o.tree)), entry: e, line: integer(row[4])}
			m.nodes[k] = n
			o.tree = append(o.tree, n)
		}
		n.hits.add(i, integer(row[5]))
		n.delta.add(i, integer(row[6]))
		recs[integer(row[1])] = n
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
	ths := make([]*referencecount.Thread, len(m.threads))
	for i, t := range m.threads {
		ths[i] = b.AddThread(referencecount.ThreadInfo{Name: t.name, Win32ThreadID: t.win, Size: t.size.value(op)})
	}
	cls := make([]*referencecount.Class, len(m.classes))
	for i, c := range m.classes {
		cls[i] = b.Class(c.name, c.module)
		cls[i].SetSymbolMoniker(c.moniker)
		v := func(f int) int64 { return c.figs[f].value(op) }
		cls[i].Add(referencecount.ClassStats{LiveCount: v(0), LiveSize: v(1), PeakCreated: v(2), PeakSize: v(3),
			TotalCreated: v(4), TotalSize: v(5)})
	}
	rs := make([]*referencecount.Routine, len(m.routines))
	for i, r := range m.routines {
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
	for _, o := range m.objects {
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
