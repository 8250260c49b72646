package merge

import (
	"context"
	"fmt"
	"strconv"

	"github.com/profdb/profdb/profilers/resource"
	"github.com/profdb/profdb/resultset"
)

const (
	rsMetaClasses = resource.MetaClassesData
	rsClasses     = resource.ClassesData
	rsMeta        = resource.MetaRoutines
	rsLines       = resource.MetaLines
	rsThreads     = resource.Threads
	rsObjects     = resource.Objects
	rsCreation    = resource.CreationCallStack
	rsErrors      = resource.Errors
	rsStack       = resource.CallStack
)

// The queries of one Resource input, one table each.
var (
	rsMetaClassQ = newQuery(from("m", rsMetaClasses, "ID"),
		col("m", rsMetaClasses, "REC_ID"),
		col("m", rsMetaClasses, "COL_CLASS_NAME"),
		col("m", rsMetaClasses, "COL_MODULE_NAME"),
		col("m", rsMetaClasses, "COL_SYMBOL_MONIKER"))
	rsClassQ = newQuery(from("c", rsClasses, "ID"),
		col("c", rsClasses, "COL_CLASS_NAME"),
		col("c", rsClasses, "COL_MODULE_NAME"),
		col("c", rsClasses, "COL_LIVE_COUNT"),
		col("c", rsClasses, "COL_LIVE_SIZE"),
		col("c", rsClasses, "COL_PEAK_CREATED"),
		col("c", rsClasses, "COL_PEAK_SIZE"),
		col("c", rsClasses, "COL_TOTAL_CREATED"),
		col("c", rsClasses, "COL_TOTAL_SIZE"))
	rsRoutineQ = newQuery(from("m", rsMeta, "ID"),
		col("m", rsMeta, "ID"),
		col("m", rsMeta, "REC_ID"),
		col("m", rsMeta, "COL_MODULE_NAME"),
		col("m", rsMeta, "COL_SOURCE_FILE"),
		col("m", rsMeta, "COL_NAMESPACE"),
		col("m", rsMeta, "COL_CLASS_NAME"),
		col("m", rsMeta, "COL_ROUTINE_NAME"),
		col("m", rsMeta, "COL_SOURCE_LINE"),
		col("m", rsMeta, "COL_CODE_TYPE"),
		col("m", rsMeta, "COL_ADDRESS"),
		col("m", rsMeta, "COL_TOKEN"),
		col("m", rsMeta, "COL_UNIT_NAME"),
		col("m", rsMeta, "COL_SYMBOL_MONIKER"),
		col("m", rsMeta, "COL_ANALISYS_RESULT").as("COL_ANALYSIS_RESULT"),
		col("m", rsMeta, "COL_PROFILELINES"),
		col("m", rsMeta, "COL_COMPILER"),
		col("m", rsMeta, "COL_HIT_COUNT"))
	rsLineQ = newQuery(from("l", rsLines, "ID"),
		col("l", rsLines, "PARENT_ID"),
		col("l", rsLines, "REC_ID"),
		col("l", rsLines, "COL_SOURCE_LINE"))
	rsThreadQ = newQuery(from("t", rsThreads, "ID"),
		col("t", rsThreads, "ID"),
		col("t", rsThreads, "COL_WIN32THREADID"),
		col("t", rsThreads, "COL_SIZE"))
	rsObjectQ = newQuery(from("o", rsObjects, "ID"),
		col("o", rsObjects, "ID"),
		col("o", rsObjects, "COL__"),
		col("o", rsObjects, "COL_ADDRESS"),
		col("o", rsObjects, "COL_CLASSRID"),
		col("o", rsObjects, "COL_GET_"),
		col("o", rsObjects, "COL_SIZE"),
		col("o", rsObjects, "COL_THREADID"))
	rsCreationQ = newQuery(from("s", rsCreation, "PARENT_ID", "REC_ID"),
		col("s", rsCreation, "PARENT_ID"),
		col("s", rsCreation, "COL_HIT_COUNT"),
		col("s", rsCreation, "COL_LINERID"),
		col("s", rsCreation, "COL_ROUTINERID"))
	rsErrorQ = newQuery(from("e", rsErrors, "PARENT_ID", "REC_ID"),
		col("e", rsErrors, "ID"),
		col("e", rsErrors, "PARENT_ID"),
		col("e", rsErrors, "COL__"),
		col("e", rsErrors, "COL_DESCRIPTION"),
		col("e", rsErrors, "COL_ERROR_CODE"),
		col("e", rsErrors, "COL_KIND"),
		col("e", rsErrors, "COL_NAME"))
	rsStackQ = newQuery(from("s", rsStack, "PARENT_ID", "REC_ID"),
		col("s", rsStack, "PARENT_ID"),
		col("s", rsStack, "COL_ROUTINERID"))
)

// classFigures are the positions of the class figures in a row of q, in
// the order of rsClass.figs.
func classFigures(q *query) [6]int {
	return [6]int{q.at("COL_LIVE_COUNT"), q.at("COL_LIVE_SIZE"), q.at("COL_PEAK_CREATED"), q.at("COL_PEAK_SIZE"),
		q.at("COL_TOTAL_CREATED"), q.at("COL_TOTAL_SIZE")}
}

// rsClass is a class of the merged Resource result set.
type rsClass struct {
	name, module, moniker string
	figs                  [6]acc // live count, live size, peak created, peak size, total created, total size
	known                 resource.Figures
}

// rsRoutine is a routine of the merged result set.
type rsRoutine struct {
	info  resource.RoutineInfo // of the first input holding it; HitCount combined
	hits  acc
	lines []int64 // in order of first mention
	seen  map[int64]bool
}

type rsThread struct {
	win  int64
	size acc
}

// rsObject is an object of the merged result set, matched by class,
// thread and creation number.
type rsObject struct {
	class, thread int32 // -1 for none
	number        string
	address       uint64
	get           int64
	size          acc
	first         int
	frames        []rsFrame
}

type rsObjectKey struct {
	class, thread int32
	number        string
}

type rsFrame struct {
	routine int32 // -1 for none
	line    int64 // 0 for none
	hits    acc
}

// rsError is an error of the merged result set, matched by thread and
// position in the thread's errors; of the first input holding it.
type rsError struct {
	thread int32
	info   resource.ErrorInfo
	stack  []int32
}

type rsErrorKey struct{ thread, rec int32 }

// resources is a Resource result set being merged.
type resources struct {
	classes []*rsClass
	cIdx    map[[2]string]int32
	routineTable
	threads []*rsThread
	tIdx    map[ftThreadKey]int32
	objects []*rsObject
	oIdx    map[rsObjectKey]int32
	errors  []*rsError
	eIdx    map[rsErrorKey]int32
}

func readResources(ctx context.Context, in *inputs, insts []int64) (*resources, error) {
	if err := in.need(rsMetaClasses, rsClasses, rsMeta, rsLines, rsThreads, rsObjects, rsCreation, rsErrors, rsStack); err != nil {
		return nil, err
	}
	m := &resources{cIdx: map[[2]string]int32{}, routineTable: routineTable{rIdx: map[routineKey]int32{}}, tIdx: map[ftThreadKey]int32{},
		oIdx: map[rsObjectKey]int32{}, eIdx: map[rsErrorKey]int32{}}
	for i, inst := range insts {
		if err := m.read(ctx, in, i, inst); err != nil {
			return nil, fmt.Errorf("result set %d: %w", inst, err)
		}
	}
	return m, nil
}

func (m *resources) class(name, module string) int32 {
	k := [2]string{name, module}
	j, ok := m.cIdx[k]
	if !ok {
		j = int32(len(m.classes))
		m.cIdx[k] = j
		m.classes = append(m.classes, &rsClass{name: name, module: module})
	}
	return j
}

func (m *resources) read(ctx context.Context, in *inputs, i int, inst int64) error {
	classByRec := map[int64]int32{}
	q := rsMetaClassQ
	rec, name, module, moniker := q.at("REC_ID"), q.at("COL_CLASS_NAME"), q.at("COL_MODULE_NAME"), q.at("COL_SYMBOL_MONIKER")
	err := in.scan(ctx, inst, q, func(row []any) error {
		j := m.class(str(row[name]), str(row[module]))
		if c := m.classes[j]; c.moniker == "" {
			c.moniker = str(row[moniker])
		}
		classByRec[integer(row[rec])] = j
		return nil
	})
	if err != nil {
		return fmt.Errorf("classes: %w", err)
	}
	q = rsClassQ
	name, module = q.at("COL_CLASS_NAME"), q.at("COL_MODULE_NAME")
	figs := classFigures(q)
	err = in.scan(ctx, inst, q, func(row []any) error {
		c := m.classes[m.class(str(row[name]), str(row[module]))]
		for f, at := range figs {
			if row[at] != nil {
				c.figs[f].add(i, count(row[at]))
				c.known |= 1 << f
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("class figures: %w", err)
	}

	byID, byRec := map[int64]int32{}, map[int64]int32{}
	rc := routineColsOf(rsRoutineQ)
	err = in.scan(ctx, inst, rsRoutineQ, func(row []any) error {
		j := m.addRoutine(i, row, rc)
		byID[integer(row[rc.id])] = j
		byRec[integer(row[rc.rec])] = j
		return nil
	})
	if err != nil {
		return fmt.Errorf("routines: %w", err)
	}
	lineOf := map[[2]int64]int64{} // routine ID, line REC_ID -> source line
	q = rsLineQ
	parent, src := q.at("PARENT_ID"), q.at("COL_SOURCE_LINE")
	rec = q.at("REC_ID")
	err = in.scan(ctx, inst, q, func(row []any) error {
		l, err := m.addLine(row, parent, src, byID)
		if err != nil {
			return err
		}
		lineOf[[2]int64{integer(row[parent]), integer(row[rec])}] = l
		return nil
	})
	if err != nil {
		return fmt.Errorf("lines: %w", err)
	}

	threads := map[int64]int32{}
	rank := int64(0)
	q = rsThreadQ
	id, win, size := q.at("ID"), q.at("COL_WIN32THREADID"), q.at("COL_SIZE")
	err = in.scan(ctx, inst, q, func(row []any) error {
		k := ftThreadKey{rank: rank}
		if row[win] != nil {
			k = ftThreadKey{win: true, id: integer(row[win])}
		}
		rank++
		j, ok := m.tIdx[k]
		if !ok {
			j = int32(len(m.threads))
			m.tIdx[k] = j
			m.threads = append(m.threads, &rsThread{win: k.id})
		}
		m.threads[j].size.add(i, integer(row[size]))
		threads[integer(row[id])] = j
		return nil
	})
	if err != nil {
		return fmt.Errorf("threads: %w", err)
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

	objects := map[int64]*rsObject{}
	q = rsObjectQ
	id, size = q.at("ID"), q.at("COL_SIZE")
	number, address, class, get, thread := q.at("COL__"), q.at("COL_ADDRESS"), q.at("COL_CLASSRID"), q.at("COL_GET_"), q.at("COL_THREADID")
	err = in.scan(ctx, inst, q, func(row []any) error {
		cls, err := ref(classByRec, row[class], "an object's COL_CLASSRID")
		if err != nil {
			return err
		}
		th, err := ref(threads, row[thread], "an object's COL_THREADID")
		if err != nil {
			return err
		}
		k := rsObjectKey{class: cls, thread: th, number: str(row[number])}
		j, ok := m.oIdx[k]
		if !ok {
			j = int32(len(m.objects))
			m.oIdx[k] = j
			addr, _ := strconv.ParseUint(str(row[address]), 10, 64)
			m.objects = append(m.objects, &rsObject{class: cls, thread: th, number: k.number, address: addr,
				get: integer(row[get]), first: i})
		}
		o := m.objects[j]
		o.size.add(i, count(row[size]))
		objects[integer(row[id])] = o
		return nil
	})
	if err != nil {
		return fmt.Errorf("objects: %w", err)
	}
	pos, cur := 0, int64(-1)
	q = rsCreationQ
	parent = q.at("PARENT_ID")
	hits, lineRec, routine := q.at("COL_HIT_COUNT"), q.at("COL_LINERID"), q.at("COL_ROUTINERID")
	err = in.scan(ctx, inst, q, func(row []any) error {
		o, ok := objects[integer(row[parent])]
		if !ok {
			return fmt.Errorf("a creation call stack's PARENT_ID names no object %d (run verify)", integer(row[parent]))
		}
		if integer(row[parent]) != cur {
			pos, cur = 0, integer(row[parent])
		}
		if pos == len(o.frames) { // a frame the inputs before have not
			r, err := ref(byRec, row[routine], "a creation call stack's COL_ROUTINERID")
			if err != nil {
				return err
			}
			f := rsFrame{routine: r}
			if row[routine] != nil && row[lineRec] != nil {
				f.line = lineOf[[2]int64{integer(row[routine]), integer(row[lineRec])}]
			}
			o.frames = append(o.frames, f)
		}
		o.frames[pos].hits.add(i, integer(row[hits]))
		pos++
		return nil
	})
	if err != nil {
		return fmt.Errorf("creation call stacks: %w", err)
	}

	errs := map[int64]*rsError{} // the errors this input adds, by ID
	nth, curT := int32(0), int64(-1)
	q = rsErrorQ
	id, parent = q.at("ID"), q.at("PARENT_ID")
	number, descr, code, kind, name := q.at("COL__"), q.at("COL_DESCRIPTION"), q.at("COL_ERROR_CODE"), q.at("COL_KIND"), q.at("COL_NAME")
	err = in.scan(ctx, inst, q, func(row []any) error {
		th, err := ref(threads, row[parent], "an error's PARENT_ID")
		if err != nil {
			return err
		}
		if th < 0 {
			return fmt.Errorf("error %d names no thread (run verify)", integer(row[id]))
		}
		if integer(row[parent]) != curT {
			nth, curT = 0, integer(row[parent])
		}
		k := rsErrorKey{thread: th, rec: nth}
		nth++
		if _, ok := m.eIdx[k]; ok {
			return nil
		}
		m.eIdx[k] = int32(len(m.errors))
		e := &rsError{thread: th, info: resource.ErrorInfo{Number: integer(row[number]), Description: str(row[descr]),
			Code: integer(row[code]), Kind: integer(row[kind]), Name: str(row[name])}}
		m.errors = append(m.errors, e)
		errs[integer(row[id])] = e
		return nil
	})
	if err != nil {
		return fmt.Errorf("errors: %w", err)
	}
	q = rsStackQ
	parent, routine = q.at("PARENT_ID"), q.at("COL_ROUTINERID")
	err = in.scan(ctx, inst, q, func(row []any) error {
		e, ok := errs[integer(row[parent])]
		if !ok {
			return nil // an error an earlier input holds, or none (verify's concern)
		}
		r, err := ref(byRec, row[routine], "a call stack's COL_ROUTINERID")
		if err != nil {
			return err
		}
		e.stack = append(e.stack, r)
		return nil
	})
	if err != nil {
		return fmt.Errorf("call stacks: %w", err)
	}
	return nil
}

// resultSet builds the merged result set with the Resource builder.
func (m *resources) resultSet(op Op, caption string) *resultset.ResultSet {
	b := resource.NewBuilder()
	ths := make([]*resource.Thread, len(m.threads))
	for i, t := range m.threads {
		ths[i] = b.AddThread(resource.ThreadInfo{Win32ThreadID: t.win, Size: t.size.value(op)})
	}
	cls := make([]*resource.Class, len(m.classes))
	for i, c := range m.classes {
		cls[i] = b.Class(c.name, c.module)
		cls[i].SetSymbolMoniker(c.moniker)
		var v [6]int64
		for f := range c.figs {
			v[f] = c.figs[f].value(op)
		}
		if c.known != 0 { // else no input knows a figure: all are NULL (Known 0 would mean all)
			cls[i].Add(resource.ClassStats{LiveCount: v[0], LiveSize: v[1], PeakCreated: v[2], PeakSize: v[3],
				TotalCreated: v[4], TotalSize: v[5], Known: c.known})
		}
	}
	rs := make([]*resource.Routine, len(m.routines))
	for i, r := range m.routines {
		info := r.info
		info.HitCount = r.hits.value(op)
		rs[i] = b.AddRoutine(info)
		for _, l := range r.lines {
			rs[i].AddLine(l)
		}
	}
	for _, o := range m.objects {
		n, _ := strconv.ParseInt(o.number, 10, 64)
		info := resource.ObjectInfo{Number: n, Get: o.get, Address: o.address, Size: o.size.value(op)}
		if o.class >= 0 {
			info.Class = cls[o.class]
		}
		if o.thread >= 0 {
			info.Thread = ths[o.thread]
		}
		bo := b.AddObject(info)
		for _, f := range o.frames {
			fr := resource.Frame{SourceLine: f.line, HitCount: f.hits.value(op)}
			if f.routine >= 0 {
				fr.Routine = rs[f.routine]
			}
			bo.AddCreationFrame(fr)
		}
	}
	for _, e := range m.errors {
		stack := make([]*resource.Routine, len(e.stack))
		for i, r := range e.stack {
			if r >= 0 {
				stack[i] = rs[r]
			}
		}
		b.AddError(ths[e.thread], e.info, stack...)
	}
	return b.ResultSet(caption)
}
