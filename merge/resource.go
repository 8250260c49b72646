package merge

import (
	"context"
	"fmt"
	"strconv"

	"github.com/profdb/profdb/ddl"
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
	rsMetaClassSQL = `SELECT {m.` + rsMetaClasses + `.REC_ID}, {m.` + rsMetaClasses + `.COL_CLASS_NAME}, {m.` + rsMetaClasses + `.COL_MODULE_NAME},
		{m.` + rsMetaClasses + `.COL_SYMBOL_MONIKER}
		FROM {m:` + rsMetaClasses + `} WHERE {m.` + rsMetaClasses + `.INST_ID} = {?} ORDER BY {m.` + rsMetaClasses + `.ID}`
	rsMetaClassTypes = []ddl.Type{ddl.Integer, ddl.String, ddl.String, ddl.String}
	rsClassSQL       = `SELECT {c.` + rsClasses + `.COL_CLASS_NAME}, {c.` + rsClasses + `.COL_MODULE_NAME},
		{c.` + rsClasses + `.COL_LIVE_COUNT}, {c.` + rsClasses + `.COL_LIVE_SIZE}, {c.` + rsClasses + `.COL_PEAK_CREATED},
		{c.` + rsClasses + `.COL_PEAK_SIZE}, {c.` + rsClasses + `.COL_TOTAL_CREATED}, {c.` + rsClasses + `.COL_TOTAL_SIZE}
		FROM {c:` + rsClasses + `} WHERE {c.` + rsClasses + `.INST_ID} = {?} ORDER BY {c.` + rsClasses + `.ID}`
	rsClassTypes = []ddl.Type{ddl.String, ddl.String, ddl.Decimal, ddl.Decimal, ddl.Decimal, ddl.Decimal, ddl.Decimal, ddl.Decimal}
	rsRoutineSQL = `SELECT {m.` + rsMeta + `.ID}, {m.` + rsMeta + `.REC_ID}, {m.` + rsMeta + `.COL_MODULE_NAME},
		{m.` + rsMeta + `.COL_SOURCE_FILE}, {m.` + rsMeta + `.COL_NAMESPACE}, {m.` + rsMeta + `.COL_CLASS_NAME},
		{m.` + rsMeta + `.COL_ROUTINE_NAME}, {m.` + rsMeta + `.COL_SOURCE_LINE}, {m.` + rsMeta + `.COL_CODE_TYPE},
		{m.` + rsMeta + `.COL_ADDRESS}, {m.` + rsMeta + `.COL_TOKEN}, {m.` + rsMeta + `.COL_UNIT_NAME},
		{m.` + rsMeta + `.COL_SYMBOL_MONIKER}, {m.` + rsMeta + `.COL_ANALISYS_RESULT}, {m.` + rsMeta + `.COL_PROFILELINES},
		{m.` + rsMeta + `.COL_COMPILER}, {m.` + rsMeta + `.COL_HIT_COUNT}
		FROM {m:` + rsMeta + `} WHERE {m.` + rsMeta + `.INST_ID} = {?} ORDER BY {m.` + rsMeta + `.ID}`
	rsRoutineTypes = []ddl.Type{ddl.Integer, ddl.Integer, ddl.String, ddl.String, ddl.String, ddl.String,
		ddl.String, ddl.Integer, ddl.String, ddl.Decimal, ddl.Integer, ddl.String,
		ddl.String, ddl.String, ddl.Integer, ddl.String, ddl.Integer}
	rsLineSQL = `SELECT {l.` + rsLines + `.PARENT_ID}, {l.` + rsLines + `.REC_ID}, {l.` + rsLines + `.COL_SOURCE_LINE}
		FROM {l:` + rsLines + `} WHERE {l.` + rsLines + `.INST_ID} = {?} ORDER BY {l.` + rsLines + `.ID}`
	rsLineTypes = []ddl.Type{ddl.Integer, ddl.Integer, ddl.Integer}
	rsThreadSQL = `SELECT {t.` + rsThreads + `.ID}, {t.` + rsThreads + `.COL_WIN32THREADID}, {t.` + rsThreads + `.COL_SIZE}
		FROM {t:` + rsThreads + `} WHERE {t.` + rsThreads + `.INST_ID} = {?} ORDER BY {t.` + rsThreads + `.ID}`
	rsThreadTypes = []ddl.Type{ddl.Integer, ddl.Integer, ddl.Integer}
	rsObjectSQL   = `SELECT {o.` + rsObjects + `.ID}, {o.` + rsObjects + `.COL__}, {o.` + rsObjects + `.COL_ADDRESS},
		{o.` + rsObjects + `.COL_CLASSRID}, {o.` + rsObjects + `.COL_GET_}, {o.` + rsObjects + `.COL_SIZE}, {o.` + rsObjects + `.COL_THREADID}
		FROM {o:` + rsObjects + `} WHERE {o.` + rsObjects + `.INST_ID} = {?} ORDER BY {o.` + rsObjects + `.ID}`
	rsObjectTypes = []ddl.Type{ddl.Integer, ddl.Decimal, ddl.Decimal, ddl.Integer, ddl.Integer, ddl.Decimal, ddl.Integer}
	rsCreationSQL = `SELECT {s.` + rsCreation + `.PARENT_ID}, {s.` + rsCreation + `.COL_HIT_COUNT}, {s.` + rsCreation + `.COL_LINERID},
		{s.` + rsCreation + `.COL_ROUTINERID}
		FROM {s:` + rsCreation + `} WHERE {s.` + rsCreation + `.INST_ID} = {?} ORDER BY {s.` + rsCreation + `.PARENT_ID}, {s.` + rsCreation + `.REC_ID}`
	rsCreationTypes = []ddl.Type{ddl.Integer, ddl.Integer, ddl.Integer, ddl.Integer}
	rsErrorSQL      = `SELECT {e.` + rsErrors + `.ID}, {e.` + rsErrors + `.PARENT_ID}, {e.` + rsErrors + `.COL__},
		{e.` + rsErrors + `.COL_DESCRIPTION}, {e.` + rsErrors + `.COL_ERROR_CODE}, {e.` + rsErrors + `.COL_KIND}, {e.` + rsErrors + `.COL_NAME}
		FROM {e:` + rsErrors + `} WHERE {e.` + rsErrors + `.INST_ID} = {?} ORDER BY {e.` + rsErrors + `.PARENT_ID}, {e.` + rsErrors + `.REC_ID}`
	rsErrorTypes = []ddl.Type{ddl.Integer, ddl.Integer, ddl.Integer, ddl.String, ddl.Integer, ddl.Integer, ddl.String}
	rsStackSQL   = `SELECT {s.` + rsStack + `.PARENT_ID}, {s.` + rsStack + `.COL_ROUTINERID}
		FROM {s:` + rsStack + `} WHERE {s.` + rsStack + `.INST_ID} = {?} ORDER BY {s.` + rsStack + `.PARENT_ID}, {s.` + rsStack + `.REC_ID}`
	rsStackTypes = []ddl.Type{ddl.Integer, ddl.Integer}
)

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
	err := in.scan(ctx, inst, rsMetaClassSQL, rsMetaClassTypes, func(row []any) error {
		j := m.class(str(row[1]), str(row[2]))
		if c := m.classes[j]; c.moniker == "" {
			c.moniker = str(row[3])
		}
		classByRec[integer(row[0])] = j
		return nil
	})
	if err != nil {
		return fmt.Errorf("classes: %w", err)
	}
	err = in.scan(ctx, inst, rsClassSQL, rsClassTypes, func(row []any) error {
		c := m.classes[m.class(str(row[0]), str(row[1]))]
		for f := range c.figs {
			if row[2+f] != nil {
				c.figs[f].add(i, count(row[2+f]))
				c.known |= 1 << f
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("class figures: %w", err)
	}

	byID, byRec := map[int64]int32{}, map[int64]int32{}
	err = in.scan(ctx, inst, rsRoutineSQL, rsRoutineTypes, func(row []any) error {
		j := m.addRoutine(i, row, true)
		byID[integer(row[0])] = j
		byRec[integer(row[1])] = j
		return nil
	})
	if err != nil {
		return fmt.Errorf("routines: %w", err)
	}
	lineOf := map[[2]int64]int64{} // routine ID, line REC_ID -> source line
	err = in.scan(ctx, inst, rsLineSQL, rsLineTypes, func(row []any) error {
		l, err := m.addLine(row, byID)
		if err != nil {
			return err
		}
		lineOf[[2]int64{integer(row[0]), integer(row[1])}] = l
		return nil
	})
	if err != nil {
		return fmt.Errorf("lines: %w", err)
	}

	threads := map[int64]int32{}
	rank := int64(0)
	err = in.scan(ctx, inst, rsThreadSQL, rsThreadTypes, func(row []any) error {
		k := ftThreadKey{rank: rank}
		if row[1] != nil {
			k = ftThreadKey{win: true, id: integer(row[1])}
		}
		rank++
		j, ok := m.tIdx[k]
		if !ok {
			j = int32(len(m.threads))
			m.tIdx[k] = j
			m.threads = append(m.threads, &rsThread{win: k.id})
		}
		m.threads[j].size.add(i, integer(row[2]))
		threads[integer(row[0])] = j
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
	err = in.scan(ctx, inst, rsObjectSQL, rsObjectTypes, func(row []any) error {
		cls, err := ref(classByRec, row[3], "an object's COL_CLASSRID")
		if err != nil {
			return err
		}
		th, err := ref(threads, row[6], "an object's COL_THREADID")
		if err != nil {
			return err
		}
		k := rsObjectKey{class: cls, thread: th, number: str(row[1])}
		j, ok := m.oIdx[k]
		if !ok {
			j = int32(len(m.objects))
			m.oIdx[k] = j
			addr, _ := strconv.ParseUint(str(row[2]), 10, 64)
			m.objects = append(m.objects, &rsObject{class: cls, thread: th, number: k.number, address: addr,
				get: integer(row[4]), first: i})
		}
		o := m.objects[j]
		o.size.add(i, count(row[5]))
		objects[integer(row[0])] = o
		return nil
	})
	if err != nil {
		return fmt.Errorf("objects: %w", err)
	}
	pos, cur := 0, int64(-1)
	err = in.scan(ctx, inst, rsCreationSQL, rsCreationTypes, func(row []any) error {
		o, ok := objects[integer(row[0])]
		if !ok {
			return fmt.Errorf("a creation call stack's PARENT_ID names no object %d (run verify)", integer(row[0]))
		}
		if integer(row[0]) != cur {
			pos, cur = 0, integer(row[0])
		}
		if pos == len(o.frames) { // a frame the inputs before have not
			r, err := ref(byRec, row[3], "a creation call stack's COL_ROUTINERID")
			if err != nil {
				return err
			}
			f := rsFrame{routine: r}
			if row[3] != nil && row[2] != nil {
				f.line = lineOf[[2]int64{integer(row[3]), integer(row[2])}]
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

	errs := map[int64]*rsError{} // the errors this input adds, by ID
	rec, curT := int32(0), int64(-1)
	err = in.scan(ctx, inst, rsErrorSQL, rsErrorTypes, func(row []any) error {
		th, err := ref(threads, row[1], "an error's PARENT_ID")
		if err != nil {
			return err
		}
		if th < 0 {
			return fmt.Errorf("error %d names no thread (run verify)", integer(row[0]))
		}
		if integer(row[1]) != curT {
			rec, curT = 0, integer(row[1])
		}
		k := rsErrorKey{thread: th, rec: rec}
		rec++
		if _, ok := m.eIdx[k]; ok {
			return nil
		}
		m.eIdx[k] = int32(len(m.errors))
		e := &rsError{thread: th, info: resource.ErrorInfo{Number: integer(row[2]), Description: str(row[3]),
			Code: integer(row[4]), Kind: integer(row[5]), Name: str(row[6])}}
		m.errors = append(m.errors, e)
		errs[integer(row[0])] = e
		return nil
	})
	if err != nil {
		return fmt.Errorf("errors: %w", err)
	}
	err = in.scan(ctx, inst, rsStackSQL, rsStackTypes, func(row []any) error {
		e, ok := errs[integer(row[0])]
		if !ok {
			return nil // an error an earlier input holds, or none (verify's concern)
		}
		r, err := ref(byRec, row[1], "a call stack's COL_ROUTINERID")
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
