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

// The queries of one Resource input, one table each, and the tables they
// read.
var (
	rsMetaClassQ = tableQuery("m", rsMetaClasses, byID, metaClassCols...)
	rsClassQ     = tableQuery("c", rsClasses, byID, classCols...)
	rsRoutineQ   = routineQuery("m", rsMeta, byID, "COL_ROUTINE_NAME", "COL_ANALISYS_RESULT", "COL_COMPILER", "COL_HIT_COUNT")
	rsLineQ      = tableQuery("l", rsLines, byID, lineCols...)
	rsThreadQ    = tableQuery("t", rsThreads, byID, "ID", "COL_WIN32THREADID", "COL_SIZE")
	rsObjectQ    = tableQuery("o", rsObjects, byID, "ID", "COL__", "COL_ADDRESS", "COL_CLASSRID", "COL_GET_", "COL_SIZE",
		"COL_THREADID")
	rsCreationQ = tableQuery("s", rsCreation, byParent, creationCols...)
	rsErrorQ    = tableQuery("e", rsErrors, byParent, "ID", "PARENT_ID", "COL__", "COL_DESCRIPTION", "COL_ERROR_CODE",
		"COL_KIND", "COL_NAME")
	rsStackQ = tableQuery("s", rsStack, byParent, "PARENT_ID", "COL_ROUTINERID")

	rsTables = []string{rsMetaClasses, rsClasses, rsMeta, rsLines, rsThreads, rsObjects, rsCreation, rsErrors, rsStack}
)

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
	creation
}

type rsObjectKey struct {
	class, thread int32
	number        string
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
	classTable
	routineTable
	threads keyed[ftThreadKey, *rsThread]
	objects keyed[rsObjectKey, *rsObject]
	errors  keyed[rsErrorKey, *rsError]
}

// read adds input i, result set inst.
func (m *resources) read(ctx context.Context, in *inputs, i int, inst int64) error {
	// A figure a class of the input lacks (NULL) is not a count of 0.
	classes, err := m.readClasses(ctx, in, i, inst, rsMetaClassQ, rsClassQ, func(v any) (int64, bool) { return count(v), v != nil })
	if err != nil {
		return err
	}
	lineOf := map[[2]int64]int64{} // routine ID, line REC_ID -> source line
	routines, err := m.readRoutines(ctx, in, i, inst, rsRoutineQ, rsLineQ, func(parent, rec, src int64) {
		lineOf[[2]int64{parent, rec}] = src
	})
	if err != nil {
		return err
	}

	threads := map[int64]int32{}
	rank := int64(0)
	q := rsThreadQ
	id, win, size := q.at("ID"), q.at("COL_WIN32THREADID"), q.at("COL_SIZE")
	err = in.scan(ctx, inst, q, func(row []any) error {
		k := threadKey(row[win], rank)
		rank++
		j := m.threads.at(k, func() *rsThread { return &rsThread{win: k.id} })
		m.threads.items[j].size.add(i, integer(row[size]))
		threads[integer(row[id])] = j
		return nil
	})
	if err != nil {
		return fmt.Errorf("threads: %w", err)
	}

	objects := map[int64]*rsObject{}
	q = rsObjectQ
	id, size = q.at("ID"), q.at("COL_SIZE")
	number, address, class, get, thread := q.at("COL__"), q.at("COL_ADDRESS"), q.at("COL_CLASSRID"), q.at("COL_GET_"), q.at("COL_THREADID")
	err = in.scan(ctx, inst, q, func(row []any) error {
		cls, err := ref(classes, row[class], "an object's COL_CLASSRID")
		if err != nil {
			return err
		}
		th, err := ref(threads, row[thread], "an object's COL_THREADID")
		if err != nil {
			return err
		}
		k := rsObjectKey{class: cls, thread: th, number: str(row[number])}
		o := m.objects.items[m.objects.at(k, func() *rsObject {
			addr, _ := strconv.ParseUint(str(row[address]), 10, 64)
			return &rsObject{class: cls, thread: th, number: k.number, address: addr, get: integer(row[get])}
		})]
		o.size.add(i, count(row[size]))
		objects[integer(row[id])] = o
		return nil
	})
	if err != nil {
		return fmt.Errorf("objects: %w", err)
	}
	// A creation call stack's line is its routine's (line REC_IDs count
	// within a routine).
	err = readCreation(ctx, in, i, inst, rsCreationQ, objects, routines, func(routine, rec any) int64 {
		if routine == nil || rec == nil {
			return 0
		}
		return lineOf[[2]int64{integer(routine), integer(rec)}]
	})
	if err != nil {
		return err
	}

	errs := map[int64]*rsError{} // the errors this input adds, by ID
	nth, curT := int32(0), int64(-1)
	q = rsErrorQ
	id, parent := q.at("ID"), q.at("PARENT_ID")
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
		m.errors.at(k, func() *rsError {
			e := &rsError{thread: th, info: resource.ErrorInfo{Number: integer(row[number]), Description: str(row[descr]),
				Code: integer(row[code]), Kind: integer(row[kind]), Name: str(row[name])}}
			errs[integer(row[id])] = e
			return e
		})
		return nil
	})
	if err != nil {
		return fmt.Errorf("errors: %w", err)
	}
	q = rsStackQ
	parent, routine := q.at("PARENT_ID"), q.at("COL_ROUTINERID")
	err = in.scan(ctx, inst, q, func(row []any) error {
		e, ok := errs[integer(row[parent])]
		if !ok {
			return nil // an error an earlier input holds, or none (verify's concern)
		}
		r, err := ref(routines, row[routine], "a call stack's COL_ROUTINERID")
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
	ths := make([]*resource.Thread, len(m.threads.items))
	for i, t := range m.threads.items {
		ths[i] = b.AddThread(resource.ThreadInfo{Win32ThreadID: t.win, Size: t.size.value(op)})
	}
	cls := make([]*resource.Class, len(m.classes.items))
	for i, c := range m.classes.items {
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
	rs := make([]*resource.Routine, len(m.routines.items))
	for i, r := range m.routines.items {
		info := r.info
		info.HitCount = r.hits.value(op)
		rs[i] = b.AddRoutine(info)
		for _, l := range r.lines {
			rs[i].AddLine(l)
		}
	}
	for _, o := range m.objects.items {
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
	for _, e := range m.errors.items {
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
