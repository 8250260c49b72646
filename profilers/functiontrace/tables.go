package functiontrace

import (
	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers"
)

// Name is the name the profiler is registered under.
const Name = "function-trace"

// Table names, as documented in "Function Trace Profiler Results - Database
// Structure".
const (
	CallRoutes        = "FUNCTION_TRACE_PROFILER_CALL_ROUTES"
	CallStack         = "FUNCTION_TRACE_PROFILER_CALL_STACK"
	CallTrace         = "FUNCTION_TRACE_PROFILER_CALL_TRACE"
	MetaLines         = "FUNCTION_TRACE_PROFILER_META_LINES"
	MetaRoutines      = "FUNCTION_TRACE_PROFILER_META_ROUTINES"
	MetaParameters    = "FUNCTION_TRACE_PROFILER_METAPARAMETERS" // no underscore before PARAMETERS (docs/layout.md, "Names")
	ParametersOnEnter = "FUNCTION_TRACE_PROFILER_PARAMETERS_ON_ENTER"
	ParametersOnExit  = "FUNCTION_TRACE_PROFILER_PARAMETERS_ON_EXIT"
	Routines          = "FUNCTION_TRACE_PROFILER_ROUTINES"
	Threads           = "FUNCTION_TRACE_PROFILER_THREADS"
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
		profilers.WithoutParentIndex(profilers.NewTable(CallRoutes, Routines,
			c("COL_RECID", i), c("COL_HIT_COUNT", i), c("COL_ROUTE_NO", i),
			c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i))),
		// COL_ROUTINE_NAME stores an identifier: it stays Integer (docs/layout.md, "Types").
		profilers.NewTable(CallStack, CallRoutes,
			c("COL_CALL_NO", i), c("COL_MODULE_NAME", s), c("COL_RECID", i), c("COL_ROUTINE_NAME", i),
			c("COL_SOURCE_FILE", s), c("COL_SOURCE_LINE", d),
			c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
		profilers.NewTable(CallTrace, Threads,
			c("COL__S", i), c("COL__S_WITH_CHILDREN", i), c("COL_CALL_NO", i), c("COL_LINE_NUMBER", i),
			c("COL_NEXT", i), c("COL_PARENT_NO", i), c("COL_RECID", i), c("COL_ROUTINE_NAME", i),
			c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
		profilers.WithoutParentIndex(profilers.NewTable(MetaLines, MetaRoutines,
			c("COL_SOURCE_LINE", i), c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i))),
		// COL_CALLINGCONVETION keeps the document's spelling; COL_UNIT_NAME is
		// listed twice and is one String column at its first place; the
		// reserved / not used columns are Integer (docs/layout.md, "Names", "Types").
		profilers.WithRecIDIndex(profilers.NewTable(MetaRoutines, "",
			c("COL_ACTIONACTIVE", i), c("COL_ACTIONDISABLEROUTINE", i), c("COL_ACTIONPLACEMENT", i),
			c("COL_ACTIONTYPE", i), c("COL_ADDRESS", d), c("COL_ANALYSIS_RESULT", s),
			c("COL_CALLINGCONVETION", i), c("COL_CLASS_NAME", s), c("COL_CODE_TYPE", s),
			c("COL_ISCLASSFUNCTION", i), c("COL_LANGUAGEID", i), c("COL_MODULE_NAME", s),
			c("COL_NAMESPACE", s), c("COL_PROFILELINES", i), c("COL_ROUTINE_NAME", s),
			c("COL_SOURCE_FILE", s), c("COL_SOURCE_LINE", i), c("COL_SYMBOL_MONIKER", s),
			c("COL_TOKEN", i), c("COL_UNIT_NAME", s), c("COL_TRIGGERACTIVE", i),
			c("COL_TRIGGERCYCLING", i), c("COL_TRIGGERDISABLEROUTINE", i), c("COL_TRIGGERENABLING", i),
			c("COL_TRIGGERGLOBAL", i), c("COL_TRIGGERGLOBALHITCOUNT", i), c("COL_TRIGGERPASSCOUNT", i),
			c("COL_TRIGGERWORKCOUNT", i),
			c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i))),
		// COL_TYPENAME holds a name: String (docs/layout.md, "Types").
		profilers.WithoutParentIndex(profilers.NewTable(MetaParameters, MetaRoutines,
			c("COL_TYPEID", i), c("COL_TYPEMEMSIZE", i), c("COL_TYPENAME", s),
			c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i))),
		// Parent is CALL_TRACE, not CALL_ROUTES (docs/layout.md, "The parent-child graph").
		profilers.WithoutParentIndex(profilers.NewTable(ParametersOnEnter, CallTrace,
			c("COL_PARAM_NO", i), c("COL_PARAM_TYPE", s), c("COL_PARAM_VALUE", s),
			c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i))),
		profilers.WithoutParentIndex(profilers.NewTable(ParametersOnExit, CallTrace,
			c("COL_COMMENT", s), c("COL_PARAM_NO", i), c("COL_PARAM_TYPE", s), c("COL_PARAM_VALUE", s),
			c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i))),
		profilers.WithRecIDIndex(profilers.NewTable(Routines, "",
			c("COL_ADDRESS", d), c("COL_ANALYSIS_RESULT", s), c("COL_CLASS_NAME", s), c("COL_CODE_TYPE", s),
			c("COL_HIT_COUNT", i), c("COL_MODULE_NAME", s), c("COL_NAMESPACE", s), c("COL_SOURCE_FILE", s),
			c("COL_SOURCE_LINE", i), c("COL_TOKEN", i), c("COL_UNIT_NAME", s),
			c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i))),
		// COL_LINE_NUMBER is "Reserved": Integer (docs/layout.md, "Types").
		profilers.NewTable(Threads, "",
			c("COL_LINE_NUMBER", i), c("COL_WIN32THREADID", i),
			c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
	}
}
