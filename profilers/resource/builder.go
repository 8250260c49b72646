package resource

import (
	"context"

	"github.com/profdb/profdb/resultset"
)

// Builder assembles one Resource result set in the profiler's own
// vocabulary: threads, classes with their figures, objects with their
// creation call stacks, errors with their call stacks, and the routines and
// lines those stacks name. It fills the identifier columns so that the
// tables link up as the Resource document describes:
//
//   - ID is zero-based and unique per table within the result set, in the
//     order rows were added. A class has the same ID in META_CLASSES_DATA
//     and CLASSES_DATA, and its REC_ID ("used as identifier of the class")
//     equals it; COL_CLASSRID of OBJECTS holds it.
//   - Routines: ID = REC_ID (reserved, but COL_ROUTINERID of the call stacks
//     points to it). META_LINES REC_ID is the line's position in its
//     routine's list ("the line's identifier within the routine's lines
//     list"); COL_LINERID of CREATION_CALL_STACK holds it (NULL when the
//     frame names no line).
//   - THREADS and OBJECTS: REC_ID (reserved) repeats ID; COL_THREADID of
//     OBJECTS is the thread's ID.
//   - ERRORS: PARENT_ID is the thread's ID, REC_ID the error's position in
//     the thread's list. CALL_STACK: PARENT_ID is the error's ID;
//     CREATION_CALL_STACK: PARENT_ID is the object's ID. In both stacks
//     REC_ID is the position, 0 for the topmost routine (the first frame
//     given).
//   - Every other PARENT_ID is "Not used": -1.
//   - COL_PROFILELINES is -1 for a routine profiled by lines, else 0 (the
//     Resource document gives no values; this follows the Light Coverage and
//     Reference Count documents).
//
// A Builder keeps everything in memory. It is not safe for concurrent use.
type Builder struct {
	threads  []*Thread
	classes  []*Class
	classIdx map[[2]string]int
	routines []*Routine
	objects  []*Object
	errors   []*Error
	nLines   int64
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder { return &Builder{classIdx: map[[2]string]int{}} }

// ThreadInfo describes a thread.
type ThreadInfo struct {
	Win32ThreadID int64 // COL_WIN32THREADID; 0 means unknown and is written as NULL
	Size          int64 // COL_SIZE: memory used by the thread
}

// Thread is a thread added to a Builder.
type Thread struct {
	id     int64
	info   ThreadInfo
	errors int64
}

// AddThread adds a thread (a THREADS row).
func (b *Builder) AddThread(info ThreadInfo) *Thread {
	t := &Thread{id: int64(len(b.threads)), info: info}
	b.threads = append(b.threads, t)
	return t
}

// ID returns the thread's ID.
func (t *Thread) ID() int64 { return t.id }

// Figures is a set of the class figures a ClassStats carries.
type Figures uint8

// The class figures.
const (
	LiveCount Figures = 1 << iota
	LiveSize
	PeakCreated
	PeakSize
	TotalCreated
	TotalSize
	AllFigures Figures = 1<<iota - 1
)

// ClassStats are figures of a class, added up by Class.Add.
type ClassStats struct {
	LiveCount, LiveSize     int64 // COL_LIVE_COUNT, COL_LIVE_SIZE
	PeakCreated, PeakSize   int64 // COL_PEAK_CREATED, COL_PEAK_SIZE
	TotalCreated, TotalSize int64 // COL_TOTAL_CREATED, COL_TOTAL_SIZE
	// Known says which of the figures these stats carry; 0 means all. A
	// figure no Add ever carried is written as NULL.
	Known Figures
}

// Class is a class added to a Builder.
type Class struct {
	id            int64
	name, module  string
	symbolMoniker string
	stats         ClassStats
}

// Class returns the class named name in module, adding it (a
// META_CLASSES_DATA and a CLASSES_DATA row) the first time.
func (b *Builder) Class(name, module string) *Class {
	k := [2]string{name, module}
	if i, ok := b.classIdx[k]; ok {
		return b.classes[i]
	}
	c := &Class{id: int64(len(b.classes)), name: name, module: module}
	b.classIdx[k] = len(b.classes)
	b.classes = append(b.classes, c)
	return c
}

// ID returns the class's ID, which is also its REC_ID.
func (c *Class) ID() int64 { return c.id }

// SetSymbolMoniker sets COL_SYMBOL_MONIKER of the class.
func (c *Class) SetSymbolMoniker(m string) { c.symbolMoniker = m }

// Add adds figures to the class's: each figure s carries is added to the
// class's total.
func (c *Class) Add(s ClassStats) {
	k := s.Known
	if k == 0 {
		k = AllFigures
	}
	for _, f := range []struct {
		bit      Figures
		dst, add *int64
	}{
		{LiveCount, &c.stats.LiveCount, &s.LiveCount}, {LiveSize, &c.stats.LiveSize, &s.LiveSize},
		{PeakCreated, &c.stats.PeakCreated, &s.PeakCreated}, {PeakSize, &c.stats.PeakSize, &s.PeakSize},
		{TotalCreated, &c.stats.TotalCreated, &s.TotalCreated}, {TotalSize, &c.stats.TotalSize, &s.TotalSize},
	} {
		if k&f.bit != 0 {
			*f.dst += *f.add
		}
	}
	c.stats.Known |= k
}

// Stats returns the class's figures so far.
func (c *Class) Stats() ClassStats { return c.stats }

// RoutineInfo describes a routine named by call stacks (META_ROUTINES).
type RoutineInfo struct {
	Name, Class, Namespace string // COL_ROUTINE_NAME, COL_CLASS_NAME, COL_NAMESPACE
	Module, SourceFile     string // COL_MODULE_NAME, COL_SOURCE_FILE
	SourceLine             int64  // COL_SOURCE_LINE
	CodeType               string // COL_CODE_TYPE
	Compiler               string // COL_COMPILER
	HitCount               int64  // COL_HIT_COUNT: profiled calls of the routine
	Address                uint64 // COL_ADDRESS
	Token                  int64  // COL_TOKEN
	LineLevel              bool   // COL_PROFILELINES -1, else 0
	// UnitName, SymbolMoniker and AnalysisResult fill COL_UNIT_NAME,
	// COL_SYMBOL_MONIKER and COL_ANALISYS_RESULT (sic).
	UnitName, SymbolMoniker, AnalysisResult string
}

// Routine is a routine added to a Builder.
type Routine struct {
	id      int64
	info    RoutineInfo
	lines   []line
	lineIdx map[int64]int64
	b       *Builder
}

type line struct{ id, src int64 }

// AddRoutine adds a routine.
func (b *Builder) AddRoutine(info RoutineInfo) *Routine {
	r := &Routine{id: int64(len(b.routines)), info: info, b: b}
	b.routines = append(b.routines, r)
	return r
}

// ID returns the routine's ID, which is also its REC_ID.
func (r *Routine) ID() int64 { return r.id }

// AddLine records a source line of the routine (a META_LINES row) unless it
// is recorded already, and returns its REC_ID.
func (r *Routine) AddLine(sourceLine int64) int64 {
	if rec, ok := r.lineIdx[sourceLine]; ok {
		return rec
	}
	if r.lineIdx == nil {
		r.lineIdx = map[int64]int64{}
	}
	rec := int64(len(r.lines))
	r.lineIdx[sourceLine] = rec
	r.lines = append(r.lines, line{id: r.b.nLines, src: sourceLine})
	r.b.nLines++
	return rec
}

// ObjectInfo describes an object or memory block (OBJECTS).
type ObjectInfo struct {
	Class   *Class  // COL_CLASSRID; nil for none (NULL)
	Thread  *Thread // COL_THREADID; nil for none (NULL)
	Number  int64   // COL__: the "#" (creation number)
	Get     int64   // COL_GET_: the "Get #"
	Address uint64  // COL_ADDRESS
	Size    int64   // COL_SIZE
}

// Object is an object added to a Builder.
type Object struct {
	id    int64
	info  ObjectInfo
	stack []Frame
}

// Frame is an entry of a creation call stack.
type Frame struct {
	Routine    *Routine // COL_ROUTINERID
	SourceLine int64    // COL_LINERID names this line of the routine; 0 for none (NULL)
	HitCount   int64    // COL_HIT_COUNT
}

// AddObject adds an object.
func (b *Builder) AddObject(info ObjectInfo) *Object {
	o := &Object{id: int64(len(b.objects)), info: info}
	b.objects = append(b.objects, o)
	return o
}

// ID returns the object's ID.
func (o *Object) ID() int64 { return o.id }

// AddCreationFrame appends an entry to the object's creation call stack
// (CREATION_CALL_STACK), topmost first. A frame's line is recorded in its
// routine's lines.
func (o *Object) AddCreationFrame(f Frame) {
	if f.Routine != nil && f.SourceLine != 0 {
		f.Routine.AddLine(f.SourceLine)
	}
	o.stack = append(o.stack, f)
}

// ErrorInfo describes an error in a resource management function (ERRORS).
type ErrorInfo struct {
	Number      int64  // COL__
	Description string // COL_DESCRIPTION
	Code        int64  // COL_ERROR_CODE
	Kind        int64  // COL_KIND
	Name        string // COL_NAME: the function that failed
}

// Error is an error added to a Builder.
type Error struct {
	id, rec int64
	thread  *Thread
	info    ErrorInfo
	stack   []*Routine
}

// AddError adds an error that occurred in the thread, with its call stack
// (CALL_STACK), topmost routine first.
func (b *Builder) AddError(t *Thread, info ErrorInfo, stack ...*Routine) *Error {
	e := &Error{id: int64(len(b.errors)), rec: t.errors, thread: t, info: info, stack: stack}
	t.errors++
	b.errors = append(b.errors, e)
	return e
}

// Column lists, in document order, without INST_ID.
var (
	colsThreads     = []string{"COL_SIZE", "COL_WIN32THREADID", "ID", "PARENT_ID", "REC_ID"}
	colsMetaClasses = []string{"COL_CLASS_NAME", "COL_MODULE_NAME", "COL_SYMBOL_MONIKER", "ID", "PARENT_ID", "REC_ID"}
	colsClasses     = []string{"COL_CLASS_NAME", "COL_LIVE_COUNT", "COL_LIVE_SIZE", "COL_MODULE_NAME",
		"COL_PEAK_CREATED", "COL_PEAK_SIZE", "COL_TOTAL_CREATED", "COL_TOTAL_SIZE", "ID", "PARENT_ID", "REC_ID"}
	colsMetaRoutines = []string{"COL_HIT_COUNT", "COL_COMPILER", "COL_ADDRESS", "COL_ANALISYS_RESULT",
		"COL_CLASS_NAME", "COL_CODE_TYPE", "COL_MODULE_NAME", "COL_NAMESPACE", "COL_PROFILELINES",
		"COL_ROUTINE_NAME", "COL_SOURCE_FILE", "COL_SOURCE_LINE", "COL_SYMBOL_MONIKER", "COL_TOKEN",
		"COL_UNIT_NAME", "ID", "PARENT_ID", "REC_ID"}
	colsMetaLines = []string{"COL_SOURCE_LINE", "ID", "PARENT_ID", "REC_ID"}
	colsObjects   = []string{"COL__", "COL_ADDRESS", "COL_CLASSRID", "COL_GET_", "COL_SIZE", "COL_THREADID",
		"ID", "PARENT_ID", "REC_ID"}
	colsCreation  = []string{"COL_HIT_COUNT", "COL_LINERID", "COL_ROUTINERID", "ID", "PARENT_ID", "REC_ID"}
	colsErrors    = []string{"COL__", "COL_DESCRIPTION", "COL_ERROR_CODE", "COL_KIND", "COL_NAME", "ID", "PARENT_ID", "REC_ID"}
	colsCallStack = []string{"COL_ROUTINERID", "ID", "PARENT_ID", "REC_ID"}
)

// ResultSet returns the result set, captioned caption, with the nine
// Resource tables in parent-before-child order.
func (b *Builder) ResultSet(caption string) *resultset.ResultSet {
	threads, classes, routines, objects, errs := b.threads, b.classes, b.routines, b.objects, b.errors
	fig := func(c *Class, f Figures, v int64) any {
		if c.stats.Known&f == 0 {
			return nil
		}
		return v
	}
	return &resultset.ResultSet{
		Header: resultset.Header{Profiler: Name, Caption: caption},
		Tables: []resultset.TableRows{
			{Name: Threads, Columns: colsThreads, Rows: resultset.IndexedRows(len(threads), func(i int) []any {
				t := threads[i]
				var win any
				if t.info.Win32ThreadID != 0 {
					win = t.info.Win32ThreadID
				}
				return []any{t.info.Size, win, t.id, int64(-1), t.id}
			})},
			{Name: MetaClassesData, Columns: colsMetaClasses, Rows: resultset.IndexedRows(len(classes), func(i int) []any {
				c := classes[i]
				return []any{c.name, c.module, c.symbolMoniker, c.id, int64(-1), c.id}
			})},
			{Name: ClassesData, Columns: colsClasses, Rows: resultset.IndexedRows(len(classes), func(i int) []any {
				c := classes[i]
				s := c.stats
				return []any{c.name, fig(c, LiveCount, s.LiveCount), fig(c, LiveSize, s.LiveSize), c.module,
					fig(c, PeakCreated, s.PeakCreated), fig(c, PeakSize, s.PeakSize),
					fig(c, TotalCreated, s.TotalCreated), fig(c, TotalSize, s.TotalSize), c.id, int64(-1), c.id}
			})},
			{Name: MetaRoutines, Columns: colsMetaRoutines, Rows: resultset.IndexedRows(len(routines), func(i int) []any {
				r := routines[i]
				in := r.info
				pl := int64(0)
				if in.LineLevel {
					pl = -1
				}
				return []any{in.HitCount, in.Compiler, in.Address, in.AnalysisResult, in.Class, in.CodeType,
					in.Module, in.Namespace, pl, in.Name, in.SourceFile, in.SourceLine, in.SymbolMoniker,
					in.Token, in.UnitName, r.id, int64(-1), r.id}
			})},
			// A line's ID is in the order lines were added (AddLine), not in this one.
			{Name: MetaLines, Columns: colsMetaLines, Rows: resultset.ChildRows(routines,
				func(r *Routine) []line { return r.lines },
				func(r *Routine, pos int, l line, _ int64) []any { return []any{l.src, l.id, r.id, int64(pos)} })},
			{Name: Objects, Columns: colsObjects, Rows: resultset.IndexedRows(len(objects), func(i int) []any {
				o := objects[i]
				var cls, th any
				if o.info.Class != nil {
					cls = o.info.Class.id
				}
				if o.info.Thread != nil {
					th = o.info.Thread.id
				}
				return []any{o.info.Number, o.info.Address, cls, o.info.Get, o.info.Size, th, o.id, int64(-1), o.id}
			})},
			{Name: CreationCallStack, Columns: colsCreation, Rows: resultset.ChildRows(objects,
				func(o *Object) []Frame { return o.stack },
				func(o *Object, pos int, f Frame, id int64) []any {
					var lineRec, routine any
					if f.Routine != nil {
						routine = f.Routine.id
						if f.SourceLine != 0 {
							lineRec = f.Routine.lineIdx[f.SourceLine]
						}
					}
					return []any{f.HitCount, lineRec, routine, id, o.id, int64(pos)}
				})},
			{Name: Errors, Columns: colsErrors, Rows: resultset.IndexedRows(len(errs), func(i int) []any {
				e := errs[i]
				return []any{e.info.Number, e.info.Description, e.info.Code, e.info.Kind, e.info.Name,
					e.id, e.thread.id, e.rec}
			})},
			{Name: CallStack, Columns: colsCallStack, Rows: resultset.ChildRows(errs,
				func(e *Error) []*Routine { return e.stack },
				func(e *Error, pos int, r *Routine, id int64) []any {
					var routine any
					if r != nil {
						routine = r.id
					}
					return []any{routine, id, e.id, int64(pos)}
				})},
		},
	}
}

// Export writes the result set to t (see ResultSet and resultset.Export).
func (b *Builder) Export(ctx context.Context, t resultset.Target, caption string) (resultset.Result, error) {
	return resultset.Export(ctx, t, b.ResultSet(caption))
}
