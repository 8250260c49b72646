package referencecount

import (
	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers"
)

// Name is the name the profiler is registered under.
const Name = "reference-count"

// Table names, as documented in "Reference Count Profiler Results - Database
// Structure".
const (
	AddrefReleaseCallStack = "REFERENCE_COUNT_PROFILER_ADDREF_RELEASE_CALL_STACK"
	ClassesData            = "REFERENCE_COUNT_PROFILER_CLASSES_DATA"
	CreationCallStack      = "REFERENCE_COUNT_PROFILER_CREATION_CALL_STACK"
	MetaClassesData        = "REFERENCE_COUNT_PROFILER_META_CLASSES_DATA"
	MetaLines              = "REFERENCE_COUNT_PROFILER_META_LINES"
	MetaRoutines           = "REFERENCE_COUNT_PROFILER_META_ROUTINES"
	Objects                = "REFERENCE_COUNT_PROFILER_OBJECTS"
	RefcountTree           = "REFERENCE_COUNT_PROFILER_REFCOUNT_TREE"
	References             = "REFERENCE_COUNT_PROFILER_REFERENCES"
	Threads                = "REFERENCE_COUNT_PROFILER_THREADS"
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
		// COL_ROUTINE_NAME stores an identifier: Integer; COL_SOURCE_LINE is
		// documented String and stays String (docs/layout.md, "Types").
		profilers.NewTable(AddrefReleaseCallStack, References,
			c("COL_CALL_NO", i), c("COL_ROUTINE_NAME", i), c("COL_SOURCE_LINE", s),
			c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
		// COL_CLASS_NAME and COL_MODULE_NAME hold names: String (docs/layout.md, "Types").
		profilers.NewTable(ClassesData, "",
			c("COL_CLASS_NAME", s), c("COL_LIVE_COUNT", i), c("COL_LIVE_SIZE", i), c("COL_MODULE_NAME", s),
			c("COL_PEAK_CREATED", i), c("COL_PEAK_SIZE", i), c("COL_TOTAL_CREATED", i), c("COL_TOTAL_SIZE", i),
			c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
		profilers.NewTable(CreationCallStack, Objects,
			c("COL_HIT_COUNT", i), c("COL_LINERID", i), c("COL_ROUTINERID", i),
			c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
		profilers.WithRecIDIndex(profilers.NewTable(MetaClassesData, "",
			c("COL_CLASS_NAME", s), c("COL_MODULE_NAME", s), c("COL_SYMBOL_MONIKER", s),
			c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i))),
		profilers.WithoutParentIndex(profilers.NewTable(MetaLines, MetaRoutines,
			c("COL_SOURCE_LINE", i), c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i))),
		// COL_ROUTINENAME without underscore (docs/layout.md, "Names").
		profilers.NewTable(MetaRoutines, "",
			c("COL_ADDRESS", d), c("COL_ANALYSIS_RESULT", s), c("COL_CLASS_NAME", s), c("COL_CODE_TYPE", s),
			c("COL_HIT_COUNT", i), c("COL_MODULE_NAME", s), c("COL_NAMESPACE", s), c("COL_PROFILELINES", i),
			c("COL_ROUTINENAME", s), c("COL_SOURCE_FILE", s), c("COL_SOURCE_LINE", i), c("COL_SYMBOL_MONIKER", s),
			c("COL_TOKEN", i), c("COL_UNIT_NAME", s),
			c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
		// COL_ADDRESS is documented Integer and stays Integer (docs/layout.md, "Types").
		profilers.NewTable(Objects, "",
			c("COL__", i), c("COL_ADDRESS", i), c("COL_CLASSRID", i), c("COL_GET_", i),
			c("COL_LIVE_REFERENCES", i), c("COL_PEAK_REFERENCES", i), c("COL_SIZE", i), c("COL_THREADRID", i),
			c("COL_TOTAL_REFERENCES", i),
			c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
		profilers.NewTable(RefcountTree, Objects,
			c("COL_ROUTINE_HITCOUNT_ON_ENTER", i), c("COL_PARENT_INDEX", i), c("COL_RESULT_REFCOUNT", i),
			c("COL_ROUTINE_NAME", i), c("COL_SOURCE_LINE", i),
			c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
		profilers.NewTable(References, Objects,
			c("COL__", i), c("COL_ADDREF_RELEASE", i), c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
		// COL_WIN32THREADID is documented String and stays String (docs/layout.md, "Types").
		profilers.NewTable(Threads, "",
			c("COL_NAME", s), c("COL_SIZE", i), c("COL_WIN32THREADID", s),
			c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
	}
}
