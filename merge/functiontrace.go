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
	ftRoutineQ = routineQuery("m", ftMeta, byID, "COL_ROUTINE_NAME", "COL_ANALYSIS_RESULT", "COL_LANGUAGEID",
		"COL_CALLINGCONVETION")
	ftLineQ   = tableQuery("l", ftLines, byID, "PARENT_ID", "COL_SOURCE_LINE")
	ftParamQ  = tableQuery("p", ftParams, byID, "PARENT_ID", "COL_TYPEID", "COL_TYPEMEMSIZE", "COL_TYPENAME")
	ftThreadQ = tableQuery("t", ftThreadT, byID, "ID", "COL_WIN32THREADID")
	// A route's routines, from the top of the thread down (COL_CALL_NO 0
	// is the routine the route leads to).
	ftStackQ = newQuery(from("s", ftStack, "PARENT_ID", "COL_CALL_NO")+" DESC",
		cols("s", ftStack, "PARENT_ID", "COL_ROUTINE_NAME")...)
	ftRouteQ = tableQuery("r", ftRoutes, byID, "ID", "COL_HIT_COUNT")
	ftCallQ  = tableQuery("c", ftCalls, byParent, "PARENT_ID", "REC_ID", "COL_PARENT_NO", "COL_ROUTINE_NAME", "COL__S",
		"COL__S_WITH_CHILDREN", "COL_LINE_NUMBER", "ID")
	// The parameters of calls, on enter (which have no comment) and on exit.
	ftEnterQ = newQuery(from("p", ftEnter, "ID"), append(cols("p", ftEnter, "PARENT_ID", "COL_PARAM_TYPE", "COL_PARAM_VALUE"),
		column{name: "COL_COMMENT", expr: "NULL", typ: ddl.String})...)
	ftExitQ = tableQuery("p", ftExit, byID, "PARENT_ID", "COL_PARAM_TYPE", "COL_PARAM_VALUE", "COL_COMMENT")

	ftTables = []string{ftMeta, ftLines, ftParams, ftThreadT, ftCalls, ftRoutes, ftStack, ftEnter, ftExit}
)

// ftRoutine is a routine of the merged Function Trace result set.
type ftRoutine struct {
	info     functiontrace.RoutineInfo     // of the first input holding it
	first    int                           // that input
	params   []functiontrace.ParameterType // of the first input holding it
	lineList                               // META_LINES
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

// threadKey is the key of an input's thread, the rank-th of its threads,
// whose COL_WIN32THREADID is win.
func threadKey(win any, rank int64) ftThreadKey {
	if win != nil {
		return ftThreadKey{win: true, id: integer(win)}
	}
	return ftThreadKey{rank: rank}
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
	routines keyed[routineKey, *ftRoutine]
	threads  keyed[ftThreadKey, *ftThread]
	calls    map[ftCallKey]*ftCall
	routes   map[ftRouteKey]int32 // routes by caller's route and routine
}

func newTrace(counter *resultset.Counter) *trace {
	return &trace{counter: counter, calls: map[ftCallKey]*ftCall{}, routes: map[ftRouteKey]int32{}}
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

// read adds input i, result set inst.
func (m *trace) read(ctx context.Context, in *inputs, i int, inst int64) error {
	// The input's routine IDs and REC_IDs -> the merged routines.
	byID, byRec := map[int64]int32{}, map[int64]int32{}
	rc := routineColsOf(ftRoutineQ)
	language, convention := ftRoutineQ.at("COL_LANGUAGEID"), ftRoutineQ.at("COL_CALLINGCONVETION")
	err := in.scan(ctx, inst, ftRoutineQ, func(row []any) error {
		k := rc.key(row)
		j := m.routines.at(k, func() *ftRoutine {
			addr, _ := strconv.ParseUint(str(row[rc.address]), 10, 64)
			return &ftRoutine{first: i, info: functiontrace.RoutineInfo{
				Name: k.name, Class: k.class, Namespace: k.namespace, Module: k.module, SourceFile: k.file,
				SourceLine: k.line, CodeType: str(row[rc.codeType]), Address: addr, Token: integer(row[rc.token]),
				UnitName: str(row[rc.unit]), SymbolMoniker: str(row[rc.moniker]), AnalysisResult: str(row[rc.analysis]),
				LineLevel: integer(row[rc.profileLines]) != 0, LanguageID: integer(row[language]),
				CallingConvention: integer(row[convention]),
			}}
		})
		byID[integer(row[rc.id])] = j
		byRec[integer(row[rc.rec])] = j
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
		return m.routines.items[j], j, nil
	}
	parent, src := ftLineQ.at("PARENT_ID"), ftLineQ.at("COL_SOURCE_LINE")
	err = in.scan(ctx, inst, ftLineQ, func(row []any) error {
		r, _, err := routine("a line's PARENT_ID", byID, integer(row[parent]))
		if err != nil {
			return err
		}
		r.add(integer(row[src]))
		return nil
	})
	if err != nil {
		return fmt.Errorf("lines: %w", err)
	}
	q := ftParamQ
	parent = q.at("PARENT_ID")
	typeID, memSize, typeName := q.at("COL_TYPEID"), q.at("COL_TYPEMEMSIZE"), q.at("COL_TYPENAME")
	err = in.scan(ctx, inst, q, func(row []any) error {
		r, _, err := routine("a parameter's PARENT_ID", byID, integer(row[parent]))
		if err != nil {
			return err
		}
		if r.first == i {
			r.params = append(r.params, functiontrace.ParameterType{TypeID: integer(row[typeID]), MemSize: integer(row[memSize]),
				TypeName: str(row[typeName])})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("parameters: %w", err)
	}

	// The input's threads -> the merged threads.
	threads := map[int64]*ftThread{}
	rank := int64(0)
	id, win := ftThreadQ.at("ID"), ftThreadQ.at("COL_WIN32THREADID")
	err = in.scan(ctx, inst, ftThreadQ, func(row []any) error {
		k := threadKey(row[win], rank)
		rank++
		j := m.threads.at(k, func() *ftThread {
			return &ftThread{info: functiontrace.ThreadInfo{Win32ThreadID: k.id}, root: &ftCall{routine: -1, route: -1}}
		})
		threads[integer(row[id])] = m.threads.items[j]
		return nil
	})
	if err != nil {
		return fmt.Errorf("threads: %w", err)
	}

	// The input's routes -> their hit counts, by merged route.
	hits := map[int32]int64{}
	routeOf := map[int64]int32{}
	cur, curID := int32(-1), int64(-1)
	parent, routineRec := ftStackQ.at("PARENT_ID"), ftStackQ.at("COL_ROUTINE_NAME")
	err = in.scan(ctx, inst, ftStackQ, func(row []any) error {
		if id := integer(row[parent]); id != curID {
			if curID >= 0 {
				routeOf[curID] = cur
			}
			cur, curID = -1, id
		}
		_, j, err := routine("a call stack's COL_ROUTINE_NAME", byRec, integer(row[routineRec]))
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
	id, hitCount := ftRouteQ.at("ID"), ftRouteQ.at("COL_HIT_COUNT")
	err = in.scan(ctx, inst, ftRouteQ, func(row []any) error {
		r, ok := routeOf[integer(row[id])]
		if !ok {
			return fmt.Errorf("call route %d has no call stack (run verify)", integer(row[id]))
		}
		hits[r] += max(integer(row[hitCount]), 0)
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
	q = ftCallQ
	id, parent, rec, parentNo := q.at("ID"), q.at("PARENT_ID"), q.at("REC_ID"), q.at("COL_PARENT_NO")
	routineRec, self, all, lineNo := q.at("COL_ROUTINE_NAME"), q.at("COL__S"), q.at("COL__S_WITH_CHILDREN"), q.at("COL_LINE_NUMBER")
	err = in.scan(ctx, inst, q, func(row []any) error {
		if t := integer(row[parent]); t != thread || th == nil {
			var ok bool
			if th, ok = threads[t]; !ok {
				return fmt.Errorf("a call's PARENT_ID names no thread %d (run verify)", t)
			}
			thread, recs, occ = t, map[int64]*ftCall{}, map[ftCallKey]int32{}
		}
		up := th.root
		if p := integer(row[parentNo]); row[parentNo] != nil && p >= 0 {
			var ok bool
			if up, ok = recs[p]; !ok {
				return fmt.Errorf("call %d: COL_PARENT_NO %d names no earlier call of its thread (run verify)", integer(row[rec]), p)
			}
		}
		_, j, err := routine("a call's COL_ROUTINE_NAME", byRec, integer(row[routineRec]))
		if err != nil {
			return err
		}
		k := ftCallKey{parent: up, routine: j}
		n0 := occ[k] // counted under the key with occ 0
		occ[k] = n0 + 1
		k.occ = n0
		c, ok := m.calls[k]
		if !ok {
			c = &ftCall{routine: j, route: m.route(up.route, j), line: integer(row[lineNo])}
			m.calls[k] = c
			up.children = append(up.children, c)
			created[integer(row[id])] = c
		}
		c.self.add(i, integer(row[self]))
		c.all.add(i, integer(row[all]))
		recs[integer(row[rec])] = c
		touched = append(touched, c)
		perRoute[c.route]++
		return nil
	})
	if err != nil {
		return fmt.Errorf("calls: %w", err)
	}
	for _, p := range []struct {
		what string
		q    *query
		exit bool
	}{{"parameters on enter", ftEnterQ, false}, {"parameters on exit", ftExitQ, true}} {
		call, typ, value, comment := p.q.at("PARENT_ID"), p.q.at("COL_PARAM_TYPE"), p.q.at("COL_PARAM_VALUE"), p.q.at("COL_COMMENT")
		err = in.scan(ctx, inst, p.q, func(row []any) error {
			c, ok := created[integer(row[call])]
			if !ok {
				return nil // a call an earlier input holds: its parameters are that input's
			}
			v := functiontrace.Param{Type: str(row[typ]), Value: str(row[value]), Comment: str(row[comment])}
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
	rs := make([]*functiontrace.Routine, len(m.routines.items))
	for i, r := range m.routines.items {
		rs[i] = b.AddRoutine(r.info)
		for _, l := range r.lines {
			rs[i].AddLine(l)
		}
		for _, p := range r.params {
			rs[i].AddParameter(p)
		}
	}
	m.routines, m.calls, m.routes = keyed[routineKey, *ftRoutine]{}, nil, nil // the builder holds them now
	type frame struct {
		c    *ftCall
		next int
	}
	for _, t := range m.threads.items {
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
