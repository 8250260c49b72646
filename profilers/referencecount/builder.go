package referencecount

import (
	"context"
	"strconv"

	"github.com/profdb/profdb/resultset"
)

// Builder assembles one Reference Count result set in the profiler's own
// vocabulary: threads, classes with their figures, interface objects, the
// AddRef / Release calls made on them (references) with their call stacks,
// creation call stacks, the reference-count call tree, and the routines and
// lines the stacks name. It fills the identifier columns so that the tables
// link up as the Reference Count document describes:
//
//   - ID is zero-based and unique per table within the result set, in the
//     order rows were added.
//   - The document calls several REC_IDs zero-based identifiers within the
//     result set: those of THREADS ("the thread identifier in the list of
//     threads"), META_CLASSES_DATA and CLASSES_DATA, META_ROUTINES,
//     META_LINES and OBJECTS ("zero-based creation number"). They equal ID.
//     COL_THREADRID, COL_CLASSRID, COL_ROUTINERID and COL_LINERID hold them.
//   - REFERENCES, CREATION_CALL_STACK, ADDREF_RELEASE_CALL_STACK and
//     REFCOUNT_TREE rows are children: PARENT_ID is the object's ID (the
//     reference's ID for ADDREF_RELEASE_CALL_STACK) and REC_ID the position
//     in the parent's list, 0 for the topmost entry (the first given).
//     COL_CALL_NO of ADDREF_RELEASE_CALL_STACK repeats REC_ID.
//   - COL_ROUTINE_NAME of ADDREF_RELEASE_CALL_STACK and REFCOUNT_TREE is a
//     routine's REC_ID, -1 for <Root>, or for a thread -2 - its REC_ID. The
//     document writes "REC_ID - 2", which only keeps threads below -1 for
//     REC_ID 0; -2 - REC_ID agrees with it there and keeps every thread below
//     -1 as the document requires.
//   - COL_PARENT_INDEX of REFCOUNT_TREE is the REC_ID of the calling node, -1
//     at the top.
//   - Every other PARENT_ID is "Not used": -1.
//
// A Builder keeps everything in memory. It is not safe for concurrent use.
type Builder struct {
	threads  []*Thread
	classes  []*Class
	classIdx map[[2]string]int
	routines []*Routine
	objects  []*Object
	refs     []*Reference
	nLines   int64
	lines    []lineRow
}

type lineRow struct{ routine, src int64 }

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder { return &Builder{classIdx: map[[2]string]int{}} }

// ThreadInfo describes a thread.
type ThreadInfo struct {
	Name          string // COL_NAME
	Size          int64  // COL_SIZE: memory used by the thread
	Win32ThreadID string // COL_WIN32THREADID (documented String)
}

// Thread is a thread added to a Builder.
type Thread struct {
	id   int64
	info ThreadInfo
}

// AddThread adds a thread.
func (b *Builder) AddThread(info ThreadInfo) *Thread {
	t := &Thread{id: int64(len(b.threads)), info: info}
	b.threads = append(b.threads, t)
	return t
}

// ID returns the thread's ID, which is also its REC_ID.
func (t *Thread) ID() int64 { return t.id }

// ClassStats are figures of a class, added up by Class.Add.
type ClassStats struct {
	LiveCount, LiveSize     int64 // COL_LIVE_COUNT, COL_LIVE_SIZE
	PeakCreated, PeakSize   int64 // COL_PEAK_CREATED, COL_PEAK_SIZE
	TotalCreated, TotalSize int64 // COL_TOTAL_CREATED, COL_TOTAL_SIZE
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

// Add adds s to the class's figures.
func (c *Class) Add(s ClassStats) {
	c.stats.LiveCount += s.LiveCount
	c.stats.LiveSize += s.LiveSize
	c.stats.PeakCreated += s.PeakCreated
	c.stats.PeakSize += s.PeakSize
	c.stats.TotalCreated += s.TotalCreated
	c.stats.TotalSize += s.TotalSize
}

// RoutineInfo describes a routine (META_ROUTINES).
type RoutineInfo struct {
	Name, Class, Namespace string // COL_ROUTINENAME (sic), COL_CLASS_NAME, COL_NAMESPACE
	Module, SourceFile     string // COL_MODULE_NAME, COL_SOURCE_FILE
	SourceLine             int64  // COL_SOURCE_LINE
	CodeType               string // COL_CODE_TYPE
	HitCount               int64  // COL_HIT_COUNT: times the routine ran
	Address                uint64 // COL_ADDRESS
	Token                  int64  // COL_TOKEN
	LineLevel              bool   // COL_PROFILELINES -1, else 0
	// UnitName, SymbolMoniker and AnalysisResult fill COL_UNIT_NAME,
	// COL_SYMBOL_MONIKER and COL_ANALYSIS_RESULT.
	UnitName, SymbolMoniker, AnalysisResult string
}

// Routine is a routine added to a Builder.
type Routine struct {
	id      int64
	info    RoutineInfo
	lineIdx map[int64]int64 // source line -> META_LINES REC_ID
	b       *Builder
}

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
	rec := r.b.nLines
	r.b.nLines++
	r.lineIdx[sourceLine] = rec
	r.b.lines = append(r.b.lines, lineRow{routine: r.id, src: sourceLine})
	return rec
}

// ObjectInfo describes an interface object (OBJECTS).
type ObjectInfo struct {
	Class           *Class  // COL_CLASSRID; nil for none (NULL)
	Thread          *Thread // COL_THREADRID; nil for none (NULL)
	Number          int64   // COL__: the "#"
	Get             int64   // COL_GET_: the "Get #"
	Address         uint64  // COL_ADDRESS (documented Integer: at most 2^63-1)
	Size            int64   // COL_SIZE
	LiveReferences  int64   // COL_LIVE_REFERENCES
	PeakReferences  int64   // COL_PEAK_REFERENCES
	TotalReferences int64   // COL_TOTAL_REFERENCES
}

// Object is an object added to a Builder.
type Object struct {
	id       int64
	info     ObjectInfo
	creation []Frame
	nRefs    int64
	tree     []treeNode
}

// Frame is an entry of a creation call stack.
type Frame struct {
	Routine    *Routine // COL_ROUTINERID; nil for none (NULL)
	SourceLine int64    // COL_LINERID names this line of the routine; 0 for none (NULL)
	HitCount   int64    // COL_HIT_COUNT
}

// StackEntry is an entry of an AddRef / Release call stack or of the call
// tree: a routine, a thread, or, with both nil, the <Root> routine.
type StackEntry struct {
	Routine    *Routine
	Thread     *Thread // used when Routine is nil
	SourceLine int64   // COL_SOURCE_LINE; 0 for none (NULL)
}

func (e StackEntry) code() int64 {
	switch {
	case e.Routine != nil:
		return e.Routine.id
	case e.Thread != nil:
		return -2 - e.Thread.id
	}
	return -1
}

func (e StackEntry) line() any {
	if e.SourceLine == 0 {
		return nil
	}
	return e.SourceLine
}

// AddObject adds an object.
func (b *Builder) AddObject(info ObjectInfo) *Object {
	o := &Object{id: int64(len(b.objects)), info: info}
	b.objects = append(b.objects, o)
	return o
}

// ID returns the object's ID, which is also its REC_ID.
func (o *Object) ID() int64 { return o.id }

// AddCreationFrame appends an entry to the object's creation call stack
// (CREATION_CALL_STACK), topmost first. The frame's line is recorded in its
// routine's lines.
func (o *Object) AddCreationFrame(f Frame) {
	if f.Routine != nil && f.SourceLine != 0 {
		f.Routine.AddLine(f.SourceLine)
	}
	o.creation = append(o.creation, f)
}

// Reference is an AddRef or Release call on an object (REFERENCES).
type Reference struct {
	id, rec int64
	object  *Object
	number  int64
	addRef  bool
	stack   []StackEntry
}

// AddReference records an AddRef (addRef true) or Release call on the
// object, number being its "#" (COL__), with its call stack
// (ADDREF_RELEASE_CALL_STACK), topmost entry first.
func (b *Builder) AddReference(o *Object, number int64, addRef bool, stack ...StackEntry) *Reference {
	r := &Reference{id: int64(len(b.refs)), rec: o.nRefs, object: o, number: number, addRef: addRef, stack: stack}
	o.nRefs++
	b.refs = append(b.refs, r)
	return r
}

// TreeNode is a node of an object's reference-count call tree.
type TreeNode struct {
	rec int64
}

type treeNode struct {
	parent         int64
	entry          StackEntry
	hitsOnEnter    int64
	refCountChange int64
}

// TreeNodeInfo describes a node of the call tree (REFCOUNT_TREE).
type TreeNodeInfo struct {
	Entry           StackEntry // COL_ROUTINE_NAME and COL_SOURCE_LINE
	HitCountOnEnter int64      // COL_ROUTINE_HITCOUNT_ON_ENTER
	RefCountChange  int64      // COL_RESULT_REFCOUNT
}

// AddTreeNode adds a node to the object's call tree under parent (nil for a
// topmost call) and returns it.
func (o *Object) AddTreeNode(parent *TreeNode, info TreeNodeInfo) *TreeNode {
	p := int64(-1)
	if parent != nil {
		p = parent.rec
	}
	n := &TreeNode{rec: int64(len(o.tree))}
	o.tree = append(o.tree, treeNode{parent: p, entry: info.Entry, hitsOnEnter: info.HitCountOnEnter,
		refCountChange: info.RefCountChange})
	return n
}

// Column lists, in document order, without INST_ID.
var (
	colsThreads     = []string{"COL_NAME", "COL_SIZE", "COL_WIN32THREADID", "ID", "PARENT_ID", "REC_ID"}
	colsMetaClasses = []string{"COL_CLASS_NAME", "COL_MODULE_NAME", "COL_SYMBOL_MONIKER", "ID", "PARENT_ID", "REC_ID"}
	colsClasses     = []string{"COL_CLASS_NAME", "COL_LIVE_COUNT", "COL_LIVE_SIZE", "COL_MODULE_NAME",
		"COL_PEAK_CREATED", "COL_PEAK_SIZE", "COL_TOTAL_CREATED", "COL_TOTAL_SIZE", "ID", "PARENT_ID", "REC_ID"}
	colsMetaRoutines = []string{"COL_ADDRESS", "COL_ANALYSIS_RESULT", "COL_CLASS_NAME", "COL_CODE_TYPE",
		"COL_HIT_COUNT", "COL_MODULE_NAME", "COL_NAMESPACE", "COL_PROFILELINES", "COL_ROUTINENAME",
		"COL_SOURCE_FILE", "COL_SOURCE_LINE", "COL_SYMBOL_MONIKER", "COL_TOKEN", "COL_UNIT_NAME",
		"ID", "PARENT_ID", "REC_ID"}
	colsMetaLines = []string{"COL_SOURCE_LINE", "ID", "PARENT_ID", "REC_ID"}
	colsObjects   = []string{"COL__", "COL_ADDRESS", "COL_CLASSRID", "COL_GET_", "COL_LIVE_REFERENCES",
		"COL_PEAK_REFERENCES", "COL_SIZE", "COL_THREADRID", "COL_TOTAL_REFERENCES", "ID", "PARENT_ID", "REC_ID"}
	colsCreation   = []string{"COL_HIT_COUNT", "COL_LINERID", "COL_ROUTINERID", "ID", "PARENT_ID", "REC_ID"}
	colsReferences = []string{"COL__", "COL_ADDREF_RELEASE", "ID", "PARENT_ID", "REC_ID"}
	colsARStack    = []string{"COL_CALL_NO", "COL_ROUTINE_NAME", "COL_SOURCE_LINE", "ID", "PARENT_ID", "REC_ID"}
	colsTree       = []string{"COL_ROUTINE_HITCOUNT_ON_ENTER", "COL_PARENT_INDEX", "COL_RESULT_REFCOUNT",
		"COL_ROUTINE_NAME", "COL_SOURCE_LINE", "ID", "PARENT_ID", "REC_ID"}
)

// ResultSet returns the result set, captioned caption, with the ten
// Reference Count tables in parent-before-child order.
func (b *Builder) ResultSet(caption string) *resultset.ResultSet {
	threads, classes, routines, objects, refs, lines := b.threads, b.classes, b.routines, b.objects, b.refs, b.lines
	return &resultset.ResultSet{
		Header: resultset.Header{Profiler: Name, Caption: caption},
		Tables: []resultset.TableRows{
			{Name: Threads, Columns: colsThreads, Rows: resultset.IndexedRows(len(threads), func(i int) []any {
				t := threads[i]
				return []any{t.info.Name, t.info.Size, t.info.Win32ThreadID, t.id, int64(-1), t.id}
			})},
			{Name: MetaClassesData, Columns: colsMetaClasses, Rows: resultset.IndexedRows(len(classes), func(i int) []any {
				c := classes[i]
				return []any{c.name, c.module, c.symbolMoniker, c.id, int64(-1), c.id}
			})},
			{Name: ClassesData, Columns: colsClasses, Rows: resultset.IndexedRows(len(classes), func(i int) []any {
				c := classes[i]
				s := c.stats
				return []any{c.name, s.LiveCount, s.LiveSize, c.module, s.PeakCreated, s.PeakSize,
					s.TotalCreated, s.TotalSize, c.id, int64(-1), c.id}
			})},
			{Name: MetaRoutines, Columns: colsMetaRoutines, Rows: resultset.IndexedRows(len(routines), func(i int) []any {
				r := routines[i]
				in := r.info
				pl := int64(0)
				if in.LineLevel {
					pl = -1
				}
				return []any{in.Address, in.AnalysisResult, in.Class, in.CodeType, in.HitCount, in.Module,
					in.Namespace, pl, in.Name, in.SourceFile, in.SourceLine, in.SymbolMoniker, in.Token,
					in.UnitName, r.id, int64(-1), r.id}
			})},
			{Name: MetaLines, Columns: colsMetaLines, Rows: resultset.IndexedRows(len(lines), func(i int) []any {
				return []any{lines[i].src, int64(i), lines[i].routine, int64(i)}
			})},
			{Name: Objects, Columns: colsObjects, Rows: resultset.IndexedRows(len(objects), func(i int) []any {
				o := objects[i]
				in := o.info
				var cls, th any
				if in.Class != nil {
					cls = in.Class.id
				}
				if in.Thread != nil {
					th = in.Thread.id
				}
				return []any{in.Number, in.Address, cls, in.Get, in.LiveReferences, in.PeakReferences, in.Size,
					th, in.TotalReferences, o.id, int64(-1), o.id}
			})},
			{Name: CreationCallStack, Columns: colsCreation, Rows: resultset.ChildRows(objects,
				func(o *Object) []Frame { return o.creation },
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
			{Name: References, Columns: colsReferences, Rows: resultset.IndexedRows(len(refs), func(i int) []any {
				r := refs[i]
				ar := int64(0)
				if r.addRef {
					ar = 1
				}
				return []any{r.number, ar, r.id, r.object.id, r.rec}
			})},
			{Name: AddrefReleaseCallStack, Columns: colsARStack, Rows: resultset.ChildRows(refs,
				func(r *Reference) []StackEntry { return r.stack },
				func(r *Reference, pos int, e StackEntry, id int64) []any {
					var line any
					if e.SourceLine != 0 {
						line = strconv.FormatInt(e.SourceLine, 10) // documented String
					}
					return []any{int64(pos), e.code(), line, id, r.id, int64(pos)}
				})},
			{Name: RefcountTree, Columns: colsTree, Rows: resultset.ChildRows(objects,
				func(o *Object) []treeNode { return o.tree },
				func(o *Object, pos int, n treeNode, id int64) []any {
					return []any{n.hitsOnEnter, n.parent, n.refCountChange, n.entry.code(), n.entry.line(), id, o.id, int64(pos)}
				})},
		},
	}
}

// Export writes the result set to t (see ResultSet and resultset.Export).
func (b *Builder) Export(ctx context.Context, t resultset.Target, caption string) (resultset.Result, error) {
	return resultset.Export(ctx, t, b.ResultSet(caption))
}
