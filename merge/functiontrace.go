package merge

import (
	"context"
	"fmt"
	"strconv"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/resultset"
)

const (
	ftMeta    = functiontrace.MetaRoutines
	ftLines   = functiontrace.MetaLines
	ftParams  = functiontrace.MetaParameters
	ftThreadT = functiontrace.Threads
	ftCalls   = functiontrace.CallTrace
	ftRoutes  = functiontrace.CallRoutes
	ftStack   = functiontrace.CallStack
	ftEnter   = functiontrace.ParametersOnEnter
	ftExit    = functiontrace.ParametersOnExit
)

// The queries of one Function Trace input, one table each.
var (
	ftRoutineSQL = `SELECT {m.` + ftMeta + `.ID}, {m.` + ftMeta + `.REC_ID}, {m.` + ftMeta + `.COL_MODULE_NAME},
		{m.` + ftMeta + `.COL_SOURCE_FILE}, {m.` + ftMeta + `.COL_NAMESPACE}, {m.` + ftMeta + `.COL_CLASS_NAME},
		{m.` + ftMeta + `.COL_ROUTINE_NAME}, {m.` + ftMeta + `.COL_SOURCE_LINE}, {m.` + ftMeta + `.COL_CODE_TYPE},
		{m.` + ftMeta + `.COL_ADDRESS}, {m.` + ftMeta + `.COL_TOKEN}, {m.` + ftMeta + `.COL_UNIT_NAME},
		{m.` + ftMeta + `.COL_SYMBOL_MONIKER}, {m.` + ftMeta + `.COL_ANALYSIS_RESULT}, {m.` + ftMeta + `.COL_PROFILELINES},
		{m.` + ftMeta + `.COL_LANGUAGEID}, {m.` + ftMeta + `.COL_CALLINGCONVETION}
		FROM {m:` + ftMeta + `} WHERE {m.` + ftMeta + `.INST_ID} = {?} ORDER BY {m.` + ftMeta + `.ID}`
	ftRoutineTypes = []ddl.Type{ddl.Integer, ddl.Integer, ddl.String, ddl.String, ddl.String, ddl.String,
		ddl.String, ddl.Integer, ddl.String, ddl.Decimal, ddl.Integer, ddl.String,
		ddl.String, ddl.String, ddl.Integer, ddl.Integer, ddl.Integer}
	ftLineSQL = `SELECT {l.` + ftLines + `.PARENT_ID}, {l.` + ftLines + `.COL_SOURCE_LINE}
		FROM {l:` + ftLines + `} WHERE {l.` + ftLines + `.INST_ID} = {?} ORDER BY {l.` + ftLines + `.ID}`
	ftLineTypes = []ddl.Type{ddl.Integer, ddl.Integer}
	ftParamSQL  = `SELECT {p.` + ftParams + `.PARENT_ID}, {p.` + ftParams + `.COL_TYPEID}, {p.` + ftParams + `.COL_TYPEMEMSIZE}, {p.` + ftParams + `.COL_TYPENAME}
		FROM {p:` + ftParams + `} WHERE {p.` + ftParams + `.INST_ID} = {?} ORDER BY {p.` + ftParams + `.ID}`
	ftParamTypes = []ddl.Type{ddl.Integer, ddl.Integer, ddl.Integer, ddl.String}
	ftThreadSQL  = `SELECT {t.` + ftThreadT + `.ID}, {t.` + ftThreadT + `.COL_WIN32THREADID}
		FROM {t:` + ftThreadT + `} WHERE {t.` + ftThreadT + `.INST_ID} = {?} ORDER BY {t.` + ftThreadT + `.ID}`
	ftThreadTypes = []ddl.Type{ddl.Integer, ddl.Integer}
	// A route's routines, from the top of the thread down (COL_CALL_NO 0
	// is the routine the route leads to).
	ftStackSQL = `SELECT {s.` + ftStack + `.PARENT_ID}, {s.` + ftStack + `.COL_ROUTINE_NAME}
		FROM {s:` + ftStack + `} WHERE {s.` + ftStack + `.INST_ID} = {?}
		ORDER BY {s.` + ftStack + `.PARENT_ID}, {s.` + ftStack + `.COL_CALL_NO} DESC`
	ftStackTypes = []ddl.Type{ddl.Integer, ddl.Integer}
	ftRouteSQL   = `SELECT {r.` + ftRoutes + `.ID}, {r.` + ftRoutes + `.COL_HIT_COUNT}
		FROM {r:` + ftRoutes + `} WHERE {r.` + ftRoutes + `.INST_ID} = {?} ORDER BY {r.` + ftRoutes + `.ID}`
	ftRouteTypes = []ddl.Type{ddl.Integer, ddl.Integer}
	ftCallSQL    = `SELECT {c.` + ftCalls + `.PARENT_ID}, {c.` + ftCalls + `.REC_ID}, {c.` + ftCalls + `.COL_PARENT_NO},
		{c.` + ftCalls + `.COL_ROUTINE_NAME}, {c.` + ftCalls + `.COL__S}, {c.` + ftCalls + `.COL__S_WITH_CHILDREN},
		{c.` + ftCalls + `.COL_LINE_NUMBER}, {c.` + ftCalls + `.ID}
		FROM {c:` + ftCalls + `} WHERE {c.` + ftCalls + `.INST_ID} = {?}
		ORDER BY {c.` + ftCalls + `.PARENT_ID}, {c.` + ftCalls + `.REC_ID}`
	ftCallTypes = []ddl.Type{ddl.Integer, ddl.Integer, ddl.Integer, ddl.Integer, ddl.Integer, ddl.Integer, ddl.Integer, ddl.Integer}
	ftEnterSQL  = `SELECT {p.` + ftEnter + `.PARENT_ID}, {p.` + ftEnter + `.COL_PARAM_TYPE}, {p.` + ftEnter + `.COL_PARAM_VALUE}, NULL
		FROM {p:` + ftEnter + `} WHERE {p.` + ftEnter + `.INST_ID} = {?} ORDER BY {p.` + ftEnter + `.ID}`
	ftExitSQL = `SELECT {p.` + ftExit + `.PARENT_ID}, {p.` + ftExit + `.COL_PARAM_TYPE}, {p.` + ftExit + `.COL_PARAM_VALUE}, {p.` + ftExit + `.COL_COMMENT}
		FROM {p:` + ftExit + `} WHERE {p.` + ftExit + `.INST_ID} = {?} ORDER BY {p.` + ftExit + `.ID}`
	ftParamValueTypes = []ddl.Type{ddl.Integer, ddl.String, ddl.String, ddl.String}
)

// ftRoutine is a routine of the merged Function Trace result set.
type ftRoutine struct {
	info    functiontrace.RoutineInfo // of the first input holding it
	first   int                       // that input
	lines   []int64                   // META_LINES, in order of first mention
	lineSet map[int64]bool
	params  []functiontrace.ParameterType // of the first input holding it
}

// ftThread is a thread of the merged result set; root stands for the
// thread itself, its children are the calls at the top of the thread.
type ftThread struct {
	info functiontrace.ThreadInfo
	root *ftCall
}

// ftThreadKey matches threads: by COL_WIN32THREADID where the input has
// one, else by position among the input's threads.
type ftThreadKey struct {
	win      bool
	id, rank int64
}

// ftCall is a call of the merged call tree: one per call path of routines
// from the top of the thread and occurrence among the calls of the same
// routine made by the same caller.
type ftCall struct {
	routine          int32                 // -1 for a thread's root
	route            int32                 // -1 for a thread's root
	line             int64                 // COL_LINE_NUMBER of the first input holding it
	enter, exit      []functiontrace.Param // parameters of the first input holding it
	count, self, all acc
	children         []*ftCall
}

type ftCallKey struct {
	parent       *ftCall
	routine, occ int32
}

type ftRouteKey struct{ parent, routine int32 }

// trace is a Function Trace result set being merged.
type trace struct {
	counter  *resultset.Counter
	routines []*ftRoutine
	rIdx     map[routineKey]int32
	threads  []*ftThread
	tIdx     map[ftThreadKey]int32
	calls    map[ftCallKey]*ftCall
	routes   map[ftRouteKey]int32 // routes by caller's route and routine
}

func (m *trace) route(parent, routine int32) int32 {
	k := ftRouteKey{parent, routine}
	r, ok := m.routes[k]
	if !ok {
		r = int32(len(m.routes))
		m.routes[k] = r
	}
	return r
}

// readTrace reads the Function Trace result sets insts, in order, into one
// trace.
func readTrace(ctx context.Context, in *inputs, insts []int64) (*trace, error) {
	if err := in.need(ftMeta, ftLines, ftParams, ftThreadT, ftCalls, ftRoutes, ftStack, ftEnter, ftExit); err != nil {
		return nil, err
	}
	m := &trace{counter: in.counter, rIdx: map[routineKey]int32{}, tIdx: map[ftThreadKey]int32{},
		calls: map[ftCallKey]*ftCall{}, routes: map[ftRouteKey]int32{}}
	for i, inst := range insts {
		if err := m.read(ctx, in, i, inst); err != nil {
			return nil, fmt.Errorf("result set %d: %w", inst, err)
		}
	}
	return m, nil
}

// read adds input i, result set inst.
func (m *trace) read(ctx context.Context, in *inputs, i int, inst int64) error {
	// The input's routine IDs and REC_IDs -> the merged routines.
	byID, byRec := map[int64]int32{}, map[int64]int32{}
	err := in.scan(ctx, inst, ftRoutineSQL, ftRoutineTypes, func(row []any) error {
		k := routineKey{module: str(row[2]), file: str(row[3]), namespace: str(row[4]), class: str(row[5]),
			name: str(row[6]), line: integer(row[7])}
		j, ok := m.rIdx[k]
		if !ok {
			j = int32(len(m.routines))
			m.rIdx[k] = j
			addr, _ := strconv.ParseUint(str(row[9]), 10, 64)
			m.routines = append(m.routines, &ftRoutine{first: i, info: functiontrace.RoutineInfo{
				Name: k.name, Class: k.class, Namespace: k.namespace, Module: k.module, SourceFile: k.file,
				SourceLine: k.line, CodeType: str(row[8]), Address: addr, Token: integer(row[10]),
				UnitName: str(row[11]), SymbolMoniker: str(row[12]), AnalysisResult: str(row[13]),
				LineLevel: integer(row[14]) != 0, LanguageID: integer(row[15]), CallingConvention: integer(row[16]),
			}})
		}
		byID[integer(row[0])] = j
		byRec[integer(row[1])] = j
		return nil
	})
	if err != nil {
		return fmt.Errorf("routines: %w", err)
	}
	routine := func(what string, ids map[int64]int32, id int64) (*ftRoutine, int32, error) {
		j, ok := ids[id]
		if !ok {
			return nil, 0, fmt.Errorf("%s names no routine %d (run verify)", what, id)
		}
		return m.routines[j], j, nil
	}
	err = in.scan(ctx, inst, ftLineSQL, ftLineTypes, func(row []any) error {
		r, _, err := routine("a line's PARENT_ID", byID, integer(row[0]))
		if err != nil {
			return err
		}
		if l := integer(row[1]); !r.lineSet[l] {
			if r.lineSet == nil {
				r.lineSet = map[int64]bool{}
			}
			r.lineSet[l] = true
			r.lines = append(r.lines, l)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("lines: %w", err)
	}
	err = in.scan(ctx, inst, ftParamSQL, ftParamTypes, func(row []any) error {
		r, _, err := routine("a parameter's PARENT_ID", byID, integer(row[0]))
		if err != nil {
			return err
		}
		if r.first == i {
			r.params = append(r.params, functiontrace.ParameterType{TypeID: integer(row[1]), MemSize: integer(row[2]), TypeName: str(row[3])})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("parameters: %w", err)
	}

	// The input's threads -> the merged threads.
	threads := map[int64]*ftThread{}
	rank := int64(0)
	err = in.scan(ctx, inst, ftThreadSQL, ftThreadTypes, func(row []any) error {
		k := ftThreadKey{rank: rank}
		if row[1] != nil {
			k = ftThreadKey{win: true, id: integer(row[1])}
		}
		rank++
		j, ok := m.tIdx[k]
		if !ok {
			j = int32(len(m.threads))
			m.tIdx[k] = j
			m.threads = append(m.threads, &ftThread{info: functiontrace.ThreadInfo{Win32ThreadID: k.id},
				root: &ftCall{routine: -1, route: -1}})
		}
		threads[integer(row[0])] = m.threads[j]
		return nil
	})
	if err != nil {
		return fmt.Errorf("threads: %w", err)
	}

	// The input's routes -> their hit counts, by merged route.
	hits := map[int32]int64{}
	routeOf := map[int64]int32{}
	cur, curID := int32(-1), int64(-1)
	err = in.scan(ctx, inst, ftStackSQL, ftStackTypes, func(row []any) error {
		if id := integer(row[0]); id != curID {
			if curID >= 0 {
				routeOf[curID] = cur
			}
			cur, curID = -1, id
		}
		_, j, err := routine("a call stack's COL_ROUTINE_NAME", byRec, integer(row[1]))
		if err != nil {
			return err
		}
		cur = m.route(cur, j)
		return nil
	})
	if err != nil {
		return fmt.Errorf("call stacks: %w", err)
	}
	if curID >= 0 {
		routeOf[curID] = cur
	}
	err = in.scan(ctx, inst, ftRouteSQL, ftRouteTypes, func(row []any) error {
		r, ok := routeOf[integer(row[0])]
		if !ok {
			return fmt.Errorf("call route %d has no call stack (run verify)", integer(row[0]))
		}
		hits[r] += max(integer(row[1]), 0)
		return nil
	})
	if err != nil {
		return fmt.Errorf("call routes: %w", err)
	}

	// The calls, thread by thread, each in its merged call; the count of a
	// call is its route's hit count shared among the route's calls.
	var touched []*ftCall
	created := map[int64]*ftCall{} // by ID, the calls this input adds to the merge
	perRoute := map[int32]int64{}
	var recs map[int64]*ftCall
	var occ map[ftCallKey]int32
	thread := int64(-1)
	var th *ftThread
	err = in.scan(ctx, inst, ftCallSQL, ftCallTypes, func(row []any) error {
		if t := integer(row[0]); t != thread || th == nil {
			var ok bool
			if th, ok = threads[t]; !ok {
				return fmt.Errorf("a call's PARENT_ID names no thread %d (run verify)", t)
			}
			thread, recs, occ = t, map[int64]*ftCall{}, map[ftCallKey]int32{}
		}
		parent := th.root
		if p := integer(row[2]); row[2] != nil && p >= 0 {
			var ok bool
			if parent, ok = recs[p]; !ok {
				return fmt.Errorf("call %d: COL_PARENT_NO %d names no earlier call of its thread (run verify)", integer(row[1]), p)
			}
		}
		_, j, err := routine("a call's COL_ROUTINE_NAME", byRec, integer(row[3]))
		if err != nil {
			return err
		}
		k := ftCallKey{parent: parent, routine: j}
		n0 := occ[k] // counted under the key with occ 0
		occ[k] = n0 + 1
		k.occ = n0
		c, ok := m.calls[k]
		if !ok {
			c = &ftCall{routine: j, route: m.route(parent.route, j), line: integer(row[6])}
			m.calls[k] = c
			parent.children = append(parent.children, c)
			created[integer(row[7])] = c
		}
		c.self.add(i, integer(row[4]))
		c.all.add(i, integer(row[5]))
		recs[integer(row[1])] = c
		touched = append(touched, c)
		perRoute[c.route]++
		return nil
	})
	if err != nil {
		return fmt.Errorf("calls: %w", err)
	}
	for _, p := range []struct {
		what, sql string
		exit      bool
	}{{"parameters on enter", ftEnterSQL, false}, {"parameters on exit", ftExitSQL, true}} {
		err = in.scan(ctx, inst, p.sql, ftParamValueTypes, func(row []any) error {
			c, ok := created[integer(row[0])]
			if !ok {
				return nil // a call an earlier input holds: its parameters are that input's
			}
			v := functiontrace.Param{Type: str(row[1]), Value: str(row[2]), Comment: str(row[3])}
			if p.exit {
				c.exit = append(c.exit, v)
			} else {
				c.enter = append(c.enter, v)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("%s: %w", p.what, err)
		}
	}
	seen := map[int32]int64{}
	for _, c := range touched {
		h, n := hits[c.route], perRoute[c.route]
		v := h / n
		if seen[c.route] < h%n {
			v++
		}
		seen[c.route]++
		c.count.add(i, v)
	}
	return nil
}

// resultSet builds the merged result set with the Function Trace builder,
// which numbers the calls and routes and sums the hit counts. The Builder
// must be closed when the result set has been written.
func (m *trace) resultSet(op Op, caption string) (*resultset.ResultSet, *functiontrace.Builder, error) {
	b := functiontrace.NewBuilder()
	b.SetCounter(m.counter)
	rs := make([]*functiontrace.Routine, len(m.routines))
	for i, r := range m.routines {
		rs[i] = b.AddRoutine(r.info)
		for _, l := range r.lines {
			rs[i].AddLine(l)
		}
		for _, p := range r.params {
			rs[i].AddParameter(p)
		}
	}
	m.routines, m.rIdx, m.calls, m.routes = nil, nil, nil, nil
	type frame struct {
		c    *ftCall
		next int
	}
	for _, t := range m.threads {
		th := b.AddThread(t.info)
		stack := []frame{{c: t.root}}
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next == len(f.c.children) {
				if len(stack) > 1 {
					if err := th.Exit(f.c.exit...); err != nil {
						b.Close()
						return nil, nil, err
					}
				}
				stack = stack[:len(stack)-1]
				continue
			}
			c := f.c.children[f.next]
			f.next++
			_, err := th.Enter(functiontrace.CallInfo{Routine: rs[c.routine], Count: c.count.value(op),
				Time: c.self.value(op), TimeWithChildren: c.all.value(op), LineNumber: c.line, Params: c.enter})
			if err != nil {
				b.Close()
				return nil, nil, err
			}
			stack = append(stack, frame{c: c})
		}
		t.root = nil
	}
	return b.ResultSet(caption), b, nil
}
