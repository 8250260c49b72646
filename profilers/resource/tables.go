package resource

import (
	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers"
)

// Name is the name the profiler is registered under.
const Name = "resource"

// Table names, as documented in the per-table sections of "Resource Profiler
// Results - Database Structure" (its opening list names only three; docs/layout.md,
// "Where the layout comes from").
const (
	CallStack         = "RESOURCE_PROFILER_CALL_STACK"
	ClassesData       = "RESOURCE_PROFILER_CLASSES_DATA"
	CreationCallStack = "RESOURCE_PROFILER_CREATION_CALL_STACK"
	Errors            = "RESOURCE_PROFILER_ERRORS"
	MetaClassesData   = "RESOURCE_PROFILER_META_CLASSES_DATA"
	MetaLines         = "RESOURCE_PROFILER_META_LINES"
	MetaRoutines      = "RESOURCE_PROFILER_META_ROUTINES"
	Objects           = "RESOURCE_PROFILER_OBJECTS"
	Threads           = "RESOURCE_PROFILER_THREADS"
)

func init() { profilers.Register(Name, profiler{}) }

type profiler struct{}

var _ profilers.Profiler = profiler{}

const (
	s = ddl.String
	i = ddl.Integer
	d = ddl.Decimal
)

var c = profilers.Col

// Tables implements profilers.Profiler. Columns are in document order.
func (profiler) Tables() []ddl.Table {
	return []ddl.Table{
		profilers.NewTable(CallStack, Errors,
			c("COL_ROUTINERID", i), c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
		// COL_CLASS_NAME and COL_MODULE_NAME carry no type word and hold names:
		// String (docs/layout.md, "Types").
		profilers.NewTable(ClassesData, "",
			c("COL_CLASS_NAME", s), c("COL_LIVE_COUNT", d), c("COL_LIVE_SIZE", d), c("COL_MODULE_NAME", s),
			c("COL_PEAK_CREATED", d), c("COL_PEAK_SIZE", d), c("COL_TOTAL_CREATED", d), c("COL_TOTAL_SIZE", d),
			c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
		profilers.NewTable(CreationCallStack, Objects,
			c("COL_HIT_COUNT", i), c("COL_LINERID", i), c("COL_ROUTINERID", i),
			c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
		profilers.NewTable(Errors, Threads,
			c("COL__", i), c("COL_DESCRIPTION", s), c("COL_ERROR_CODE", i), c("COL_KIND", i), c("COL_NAME", s),
			c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
		profilers.NewTable(MetaClassesData, "",
			c("COL_CLASS_NAME", s), c("COL_MODULE_NAME", s), c("COL_SYMBOL_MONIKER", s),
			c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
		// Parent is META_ROUTINES; the field text naming META_LINES is a slip
		// (docs/layout.md, "The parent-child graph").
		profilers.WithoutParentIndex(profilers.NewTable(MetaLines, MetaRoutines,
			c("COL_SOURCE_LINE", i), c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i))),
		// COL_COMPILER has no type word and holds text: String; COL_ANALISYS_RESULT
		// keeps the document's spelling (docs/layout.md, "Names", "Types").
		profilers.WithRecIDIndex(profilers.NewTable(MetaRoutines, "",
			c("COL_HIT_COUNT", i), c("COL_COMPILER", s), c("COL_ADDRESS", d), c("COL_ANALISYS_RESULT", s),
			c("COL_CLASS_NAME", s), c("COL_CODE_TYPE", s), c("COL_MODULE_NAME", s), c("COL_NAMESPACE", s),
			c("COL_PROFILELINES", i), c("COL_ROUTINE_NAME", s), c("COL_SOURCE_FILE", s), c("COL_SOURCE_LINE", i),
			c("COL_SYMBOL_MONIKER", s), c("COL_TOKEN", i), c("COL_UNIT_NAME", s),
			c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i))),
		profilers.NewTable(Objects, "",
			c("COL__", d), c("COL_ADDRESS", d), c("COL_CLASSRID", i), c("COL_GET_", i), c("COL_SIZE", d),
			c("COL_THREADID", i), c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
		profilers.NewTable(Threads, "",
			c("COL_SIZE", i), c("COL_WIN32THREADID", i), c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
	}
}
