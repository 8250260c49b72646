package functiontrace

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"

	"github.com/profdb/profdb/internal/spool"
	"github.com/profdb/profdb/resultset"
)

// Builder assembles one Function Trace result set in the profiler's own
// vocabulary: routines, threads, the calls made in each thread (entered and
// exited like a running program does), and the call routes that follow from
// them. It fills the identifier columns so that the tables link up as the
// Function Trace document describes:
//
//   - ID is zero-based and unique per table within the result set. A routine
//     has the same ID in META_ROUTINES and ROUTINES, and its REC_ID ("used as
//     the routine's identifier to link the tables") equals that ID in both;
//     COL_RECID and COL_ROUTINE_NAME of CALL_TRACE, CALL_ROUTES and
//     CALL_STACK hold it.
//   - CALL_TRACE: one row per Enter. ID counts calls across all threads in
//     Enter order; PARENT_ID is the thread's ID; REC_ID is the call's
//     zero-based position in its thread (Enter order, i.e. pre-order of the
//     call tree), and COL_CALL_NO repeats it; COL_PARENT_NO is the REC_ID of
//     the calling call, -1 for a call at the top of its thread; COL_NEXT is
//     the REC_ID of the next call made by the same caller (the next sibling),
//     -1 for the last one.
//   - Call routes: the route of a call is the sequence of routines from the
//     top of its thread down to the call itself. Calls with the same sequence
//     share one route, whichever thread they ran in: one CALL_ROUTES row,
//     child of the last routine's ROUTINES row, whose COL_HIT_COUNT is the sum
//     of the calls' Count. REC_ID and COL_ROUTE_NO are the route's zero-based
//     position in its routine's list of routes (order of first use); ID
//     counts routes in order of first use.
//   - CALL_STACK: for each route, one row per routine on it, child of the
//     route's CALL_ROUTES row. COL_CALL_NO and REC_ID are 0 for the routine
//     the route leads to (the top of the stack), 1 for its caller, and so on
//     down to the call at the top of the thread. Module, source file and line
//     are the routine's.
//   - ROUTINES COL_HIT_COUNT is the sum of Count over the routine's calls.
//   - THREADS, META_ROUTINES and ROUTINES have PARENT_ID -1 ("Not used").
//     REC_ID of THREADS (reserved) repeats ID. META_LINES and METAPARAMETERS
//     have REC_ID = position in the routine's list; PARAMETERS_ON_ENTER and
//     _ON_EXIT have REC_ID and COL_PARAM_NO = position in the call's list.
//
// CALL_TRACE rows and the parameters of calls go to a temporary spool (see
// SetSpool), so that a trace of millions of calls needs little memory;
// routines, threads and routes stay in memory. Call Close when done with the
// Builder and the result sets it returned.
//
// A Builder is not safe for concurrent use. Do not change it while a result
// set it returned is being exported.
type Builder struct {
	counter  *resultset.Counter
	routines []*Routine
	threads  []*Thread
	routes   []route
	routeIdx map[routeKey]int32

	memLimit int
	dir      string
	calls    *spool.Spool // CALL_TRACE rows
	onEnter  *spool.Spool // PARAMETERS_ON_ENTER rows
	onExit   *spool.Spool // PARAMETERS_ON_EXIT rows
	nCalls   int64
	nEnter   int64
	nExit    int64
	nLines   int64
	nParams  int64
	err      error
	closed   bool
}

type routeKey struct{ parent, routine int32 }

type route struct {
	parent  int32 // -1 at the top of a thread
	routine int32
	rec     int64 // position in the routine's routes
	hits    int64
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{routeIdx: map[routeKey]int32{}}
}

// SetCounter sets the counter the result set was measured with (INSTANCES
// COUNTER_NAME, COUNTER_DESCRIPTION, COUNTER_FREQUENCY); nil for none.
func (b *Builder) SetCounter(c *resultset.Counter) { b.counter = c }

// SetSpool sets how much of the call rows is kept in memory before they move
// to a temporary file in dir (spool.DefaultMemLimit and os.TempDir() by
// default). It has an effect only before the first Enter.
func (b *Builder) SetSpool(memLimit int, dir string) { b.memLimit, b.dir = memLimit, dir }

func (b *Builder) spools() {
	if b.calls == nil {
		b.calls = spool.New(b.memLimit, b.dir)
		b.onEnter = spool.New(b.memLimit, b.dir)
		b.onExit = spool.New(b.memLimit, b.dir)
	}
}

// RoutineInfo describes one routine (META_ROUTINES and ROUTINES).
type RoutineInfo struct {
	Name, Class, Namespace string // COL_ROUTINE_NAME, COL_CLASS_NAME, COL_NAMESPACE
	Module, SourceFile     string // COL_MODULE_NAME, COL_SOURCE_FILE
	SourceLine             int64  // COL_SOURCE_LINE: where the routine begins
	CodeType               string // COL_CODE_TYPE, e.g. "Byte-code", "x64"
	Address                uint64 // COL_ADDRESS (0 for managed code)
	Token                  int64  // COL_TOKEN
	// UnitName, SymbolMoniker and AnalysisResult fill COL_UNIT_NAME,
	// COL_SYMBOL_MONIKER and COL_ANALYSIS_RESULT.
	UnitName, SymbolMoniker, AnalysisResult string
	LineLevel                               bool  // profiled by lines: COL_PROFILELINES 1, else 0 (per the Function Trace doc)
	LanguageID                              int64 // COL_LANGUAGEID
	CallingConvention                       int64 // COL_CALLINGCONVETION: 0 not defined, 1 ccall … 7 delphi
}

// Routine is a routine added to a Builder.
type Routine struct {
	id     int64
	info   RoutineInfo
	hits   int64
	routes int64
	lines  []int64
	params []ParameterType
	b      *Builder
}

// ParameterType describes a formal parameter of a routine (METAPARAMETERS).
type ParameterType struct {
	TypeID   int64  // COL_TYPEID, e.g. 0x09 Integer
	MemSize  int64  // COL_TYPEMEMSIZE
	TypeName string // COL_TYPENAME
}

// AddRoutine adds a routine. Every call adds one, even with a name used
// before (overloads).
func (b *Builder) AddRoutine(info RoutineInfo) *Routine {
	r := &Routine{id: int64(len(b.routines)), info: info, b: b}
	b.routines = append(b.routines, r)
	return r
}

// ID returns the routine's ID, which is also its REC_ID.
func (r *Routine) ID() int64 { return r.id }

// Info returns the routine's description.
func (r *Routine) Info() RoutineInfo { return r.info }

// SetSource sets the routine's source file and first line.
func (r *Routine) SetSource(file string, line int64) {
	r.info.SourceFile, r.info.SourceLine = file, line
}

// AddLine records a source line of the routine (a META_LINES row).
func (r *Routine) AddLine(sourceLine int64) { r.lines = append(r.lines, sourceLine) }

// AddParameter records a formal parameter of the routine (a METAPARAMETERS
// row).
func (r *Routine) AddParameter(p ParameterType) { r.params = append(r.params, p) }

// ThreadInfo describes a thread.
type ThreadInfo struct {
	// Win32ThreadID is the operating system's thread identifier
	// (COL_WIN32THREADID); 0 means unknown and is written as NULL.
	Win32ThreadID int64
}

// Thread is a thread added to a Builder; its calls are made with Enter and
// Exit.
type Thread struct {
	id    int64
	info  ThreadInfo
	calls int64   // REC_IDs handed out
	stack []frame // stack[0] stands for the thread itself
	b     *Builder
}

type frame struct {
	id, rec int64
	route   int32
	row     []any // this call's CALL_TRACE row, written when its COL_NEXT is known
	pending []any // the row of the last exited call made from here, waiting for COL_NEXT
}

// AddThread adds a thread.
func (b *Builder) AddThread(info ThreadInfo) *Thread {
	t := &Thread{id: int64(len(b.threads)), info: info, b: b,
		stack: []frame{{id: -1, rec: -1, route: -1}}}
	b.threads = append(b.threads, t)
	return t
}

// ID returns the thread's ID.
func (t *Thread) ID() int64 { return t.id }

// Depth returns the number of calls entered and not yet exited.
func (t *Thread) Depth() int { return len(t.stack) - 1 }

// CallInfo describes one call (a CALL_TRACE row).
type CallInfo struct {
	Routine *Routine
	// Count is how many calls the row stands for: 1 for a single call, the
	// invocation count for an aggregated call tree. It adds to the hit count
	// of the call's route and routine.
	Count int64
	// Time and TimeWithChildren are COL__S and COL__S_WITH_CHILDREN, in the
	// units of the counter.
	Time, TimeWithChildren int64
	// LineNumber is the line the call was made from (COL_LINE_NUMBER); 0
	// means unknown and is written as NULL.
	LineNumber int64
	// Params are the parameters on entry (PARAMETERS_ON_ENTER).
	Params []Param
}

// Param is a parameter value of a call.
type Param struct {
	Type, Value string // COL_PARAM_TYPE, COL_PARAM_VALUE
	Comment     string // COL_COMMENT, for parameters on exit only
}

// ErrClosed is returned by Enter and Exit on a closed Builder.
var ErrClosed = errors.New("functiontrace: builder closed")

// Enter starts a call in the thread, made by the call entered last and not
// yet exited (or at the top of the thread). It returns the call's REC_ID.
func (t *Thread) Enter(c CallInfo) (int64, error) {
	b := t.b
	if b.err != nil {
		return 0, b.err
	}
	if b.closed {
		return 0, ErrClosed
	}
	if c.Routine == nil || c.Routine.b != b {
		return 0, errors.New("functiontrace: Enter: routine missing or from another builder")
	}
	b.spools()
	parent := &t.stack[len(t.stack)-1]
	rec := t.calls
	if parent.pending != nil {
		parent.pending[4] = rec // COL_NEXT
		if err := b.write(b.calls, parent.pending); err != nil {
			return 0, err
		}
		parent.pending = nil
	}
	key := routeKey{parent.route, int32(c.Routine.id)}
	ri, ok := b.routeIdx[key]
	if !ok {
		if len(b.routes) >= math.MaxInt32 {
			b.err = errors.New("functiontrace: too many call routes")
			return 0, b.err
		}
		ri = int32(len(b.routes))
		b.routes = append(b.routes, route{parent: parent.route, routine: key.routine, rec: c.Routine.routes})
		c.Routine.routes++
		b.routeIdx[key] = ri
	}
	b.routes[ri].hits += c.Count
	c.Routine.hits += c.Count

	var line any
	if c.LineNumber != 0 {
		line = c.LineNumber
	}
	id := b.nCalls
	row := []any{c.Time, c.TimeWithChildren, rec, line, int64(-1), parent.rec, c.Routine.id, c.Routine.id, id, t.id, rec}
	for i, p := range c.Params {
		if err := b.write(b.onEnter, []any{int64(i), p.Type, p.Value, b.nEnter, id, int64(i)}); err != nil {
			return 0, err
		}
		b.nEnter++
	}
	b.nCalls++
	t.calls++
	t.stack = append(t.stack, frame{id: id, rec: rec, route: ri, row: row})
	return rec, nil
}

// Exit ends the call entered last, with its parameters on exit
// (PARAMETERS_ON_EXIT).
func (t *Thread) Exit(params ...Param) error {
	b := t.b
	if b.err != nil {
		return b.err
	}
	if b.closed {
		return ErrClosed
	}
	if len(t.stack) < 2 {
		return errors.New("functiontrace: Exit without a call to end")
	}
	top := t.stack[len(t.stack)-1]
	for i, p := range params {
		if err := b.write(b.onExit, []any{p.Comment, int64(i), p.Type, p.Value, b.nExit, top.id, int64(i)}); err != nil {
			return err
		}
		b.nExit++
	}
	return t.exit()
}

func (t *Thread) exit() error {
	top := t.stack[len(t.stack)-1]
	if top.pending != nil { // the last call made from top: no next sibling
		if err := t.b.write(t.b.calls, top.pending); err != nil {
			return err
		}
	}
	t.stack = t.stack[:len(t.stack)-1]
	t.stack[len(t.stack)-1].pending = top.row
	return nil
}

// finish ends every open call and writes the rows still waiting.
func (t *Thread) finish() error {
	for len(t.stack) > 1 {
		if err := t.exit(); err != nil {
			return err
		}
	}
	if p := t.stack[0].pending; p != nil {
		t.stack[0].pending = nil
		return t.b.write(t.b.calls, p)
	}
	return nil
}

func (b *Builder) write(s *spool.Spool, row []any) error {
	if err := s.Append(row); err != nil {
		b.err = fmt.Errorf("functiontrace: %w", err)
		return b.err
	}
	return nil
}

// Close releases the spool's temporary files. The Builder and the result
// sets it returned are unusable afterwards.
func (b *Builder) Close() error {
	b.closed = true
	var errs []error
	for _, s := range []*spool.Spool{b.calls, b.onEnter, b.onExit} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}

// Column lists, in document order, without INST_ID.
var (
	colsThreads      = []string{"COL_LINE_NUMBER", "COL_WIN32THREADID", "ID", "PARENT_ID", "REC_ID"}
	colsMetaRoutines = []string{"COL_ACTIONACTIVE", "COL_ACTIONDISABLEROUTINE", "COL_ACTIONPLACEMENT",
		"COL_ACTIONTYPE", "COL_ADDRESS", "COL_ANALYSIS_RESULT", "COL_CALLINGCONVETION", "COL_CLASS_NAME",
		"COL_CODE_TYPE", "COL_ISCLASSFUNCTION", "COL_LANGUAGEID", "COL_MODULE_NAME", "COL_NAMESPACE",
		"COL_PROFILELINES", "COL_ROUTINE_NAME", "COL_SOURCE_FILE", "COL_SOURCE_LINE", "COL_SYMBOL_MONIKER",
		"COL_TOKEN", "COL_UNIT_NAME", "COL_TRIGGERACTIVE", "COL_TRIGGERCYCLING", "COL_TRIGGERDISABLEROUTINE",
		"COL_TRIGGERENABLING", "COL_TRIGGERGLOBAL", "COL_TRIGGERGLOBALHITCOUNT", "COL_TRIGGERPASSCOUNT",
		"COL_TRIGGERWORKCOUNT", "ID", "PARENT_ID", "REC_ID"}
	colsRoutines = []string{"COL_ADDRESS", "COL_ANALYSIS_RESULT", "COL_CLASS_NAME", "COL_CODE_TYPE",
		"COL_HIT_COUNT", "COL_MODULE_NAME", "COL_NAMESPACE", "COL_SOURCE_FILE", "COL_SOURCE_LINE", "COL_TOKEN",
		"COL_UNIT_NAME", "ID", "PARENT_ID", "REC_ID"}
	colsMetaLines      = []string{"COL_SOURCE_LINE", "ID", "PARENT_ID", "REC_ID"}
	colsMetaParameters = []string{"COL_TYPEID", "COL_TYPEMEMSIZE", "COL_TYPENAME", "ID", "PARENT_ID", "REC_ID"}
	colsCallTrace      = []string{"COL__S", "COL__S_WITH_CHILDREN", "COL_CALL_NO", "COL_LINE_NUMBER", "COL_NEXT",
		"COL_PARENT_NO", "COL_RECID", "COL_ROUTINE_NAME", "ID", "PARENT_ID", "REC_ID"}
	colsOnEnter    = []string{"COL_PARAM_NO", "COL_PARAM_TYPE", "COL_PARAM_VALUE", "ID", "PARENT_ID", "REC_ID"}
	colsOnExit     = []string{"COL_COMMENT", "COL_PARAM_NO", "COL_PARAM_TYPE", "COL_PARAM_VALUE", "ID", "PARENT_ID", "REC_ID"}
	colsCallRoutes = []string{"COL_RECID", "COL_HIT_COUNT", "COL_ROUTE_NO", "ID", "PARENT_ID", "REC_ID"}
	colsCallStack  = []string{"COL_CALL_NO", "COL_MODULE_NAME", "COL_RECID", "COL_ROUTINE_NAME", "COL_SOURCE_FILE",
		"COL_SOURCE_LINE", "ID", "PARENT_ID", "REC_ID"}
)

// ResultSet ends every call still open, then returns the result set,
// captioned caption, with the ten Function Trace tables in
// parent-before-child order. An error met while spooling ends the CALL_TRACE
// (or parameters) iteration with that error.
func (b *Builder) ResultSet(caption string) *resultset.ResultSet {
	if b.err == nil && !b.closed {
		for _, t := range b.threads {
			if err := t.finish(); err != nil {
				break
			}
		}
	}
	threads, routines, routes := b.threads, b.routines, b.routes
	b01 := func(v bool) int64 {
		if v {
			return 1
		}
		return 0
	}
	return &resultset.ResultSet{
		Header: resultset.Header{Profiler: Name, Caption: caption, Counter: b.counter},
		Tables: []resultset.TableRows{
			{Name: Threads, Columns: colsThreads, Rows: resultset.IndexedRows(len(threads), func(i int) []any {
				t := threads[i]
				var win any
				if t.info.Win32ThreadID != 0 {
					win = t.info.Win32ThreadID
				}
				return []any{nil, win, t.id, int64(-1), t.id}
			})},
			{Name: MetaRoutines, Columns: colsMetaRoutines, Rows: resultset.IndexedRows(len(routines), func(i int) []any {
				r := routines[i]
				in := r.info
				// No actions or triggers: their flags are 0; the reserved and
				// unused columns are NULL.
				return []any{int64(0), nil, int64(0), int64(0), in.Address, in.AnalysisResult,
					in.CallingConvention, in.Class, in.CodeType, b01(in.Class != ""), in.LanguageID, in.Module,
					in.Namespace, b01(in.LineLevel), in.Name, in.SourceFile, in.SourceLine, in.SymbolMoniker,
					in.Token, in.UnitName, int64(0), int64(0), nil, int64(0), nil, int64(0), int64(0), int64(0),
					r.id, int64(-1), r.id}
			})},
			{Name: Routines, Columns: colsRoutines, Rows: resultset.IndexedRows(len(routines), func(i int) []any {
				r := routines[i]
				in := r.info
				return []any{in.Address, in.AnalysisResult, in.Class, in.CodeType, r.hits, in.Module,
					in.Namespace, in.SourceFile, in.SourceLine, in.Token, in.UnitName, r.id, int64(-1), r.id}
			})},
			{Name: MetaLines, Columns: colsMetaLines, Rows: resultset.ChildRows(routines,
				func(r *Routine) []int64 { return r.lines },
				func(r *Routine, pos int, l, id int64) []any { return []any{l, id, r.id, int64(pos)} })},
			{Name: MetaParameters, Columns: colsMetaParameters, Rows: resultset.ChildRows(routines,
				func(r *Routine) []ParameterType { return r.params },
				func(r *Routine, pos int, p ParameterType, id int64) []any {
					return []any{p.TypeID, p.MemSize, p.TypeName, id, r.id, int64(pos)}
				})},
			{Name: CallTrace, Columns: colsCallTrace, Rows: b.spooled(func() *spool.Spool { return b.calls })},
			{Name: ParametersOnEnter, Columns: colsOnEnter, Rows: b.spooled(func() *spool.Spool { return b.onEnter })},
			{Name: ParametersOnExit, Columns: colsOnExit, Rows: b.spooled(func() *spool.Spool { return b.onExit })},
			{Name: CallRoutes, Columns: colsCallRoutes, Rows: resultset.IndexedRows(len(routes), func(i int) []any {
				rt := routes[i]
				return []any{int64(rt.routine), rt.hits, rt.rec, int64(i), int64(rt.routine), rt.rec}
			})},
			{Name: CallStack, Columns: colsCallStack, Rows: func(yield func([]any, error) bool) {
				id := int64(0)
				for i := range routes {
					callNo := int64(0)
					for j := int32(i); j >= 0; j = routes[j].parent {
						r := routines[routes[j].routine]
						row := []any{callNo, r.info.Module, r.id, r.id, r.info.SourceFile, r.info.SourceLine,
							id, int64(i), callNo}
						if !yield(row, nil) {
							return
						}
						id++
						callNo++
					}
				}
			}},
		},
	}
}

// Export writes the result set to t (see ResultSet and resultset.Export).
func (b *Builder) Export(ctx context.Context, t resultset.Target, caption string) (resultset.Result, error) {
	return resultset.Export(ctx, t, b.ResultSet(caption))
}

func (b *Builder) spooled(s func() *spool.Spool) iter.Seq2[[]any, error] {
	return func(yield func([]any, error) bool) {
		if b.err != nil {
			yield(nil, b.err)
			return
		}
		if b.closed {
			yield(nil, ErrClosed)
			return
		}
		sp := s()
		if sp == nil {
			return
		}
		for row, err := range sp.Rows() {
			if !yield(row, err) || err != nil {
				return
			}
		}
	}
}
