package lightcoverage

import (
	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers"
)

// Name is the name the profiler is registered under.
const Name = "light-coverage"

// Table names, as documented in "Light Coverage Profiler Results - Database
// Structure".
const (
	Lines           = "LIGHT_COVERAGE_PROFILER_LINES"
	MetaLines       = "LIGHT_COVERAGE_PROFILER_META_LINES"
	MetaModules     = "LIGHT_COVERAGE_PROFILER_META_MODULES"
	MetaRoutines    = "LIGHT_COVERAGE_PROFILER_META_ROUTINES"
	MetaSourceFiles = "LIGHT_COVERAGE_PROFILER_META_SOURCE_FILES"
	ModulesData     = "LIGHT_COVERAGE_PROFILER_MODULES_DATA"
	RoutinesData    = "LIGHT_COVERAGE_PROFILER_ROUTINES_DATA"
	SourceFilesData = "LIGHT_COVERAGE_PROFILER_SOURCE_FILES_DATA"
)

func init() { profilers.Register(Name, profiler{}) }

type profiler struct{}

var _ profilers.Profiler = profiler{}

const (
	s = ddl.String
	i = ddl.Integer
	d = ddl.Decimal
	f = ddl.Float
)

var c = profilers.Col

// Tables implements profilers.Profiler. Columns are in document order;
// "Not used" / "helper" columns without a type are Integer (docs/layout.md, "Types").
func (profiler) Tables() []ddl.Table {
	return []ddl.Table{
		// docs/layout.md, "The parent-child graph": LINES -> ROUTINES_DATA.
		profilers.NewTable(Lines, RoutinesData,
			c("COL_MARK", d), c("COL_SOURCE_LINE", i), c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
		// META_LINES -> META_ROUTINES.
		profilers.WithoutParentIndex(profilers.NewTable(MetaLines, MetaRoutines,
			c("COL_SOURCE_LINE", i), c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i))),
		profilers.NewTable(MetaModules, "",
			c("COL_MODULE_NAME", s), c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
		profilers.NewTable(MetaRoutines, "",
			c("COL_ADDRESS", d), c("COL_ANALYSIS_RESULT", s), c("COL_CLASS_NAME", s), c("COL_CODE_TYPE", s),
			c("COL_MODULE_NAME", s), c("COL_NAMESPACE", s), c("COL_PROFILELINES", i), c("COL_ROUTINE_NAME", s),
			c("COL_SOURCE_FILE", s), c("COL_SOURCE_LINE", i), c("COL_SYMBOL_MONIKER", s), c("COL_TOKEN", i),
			c("COL_UNIT_NAME", s), c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
		profilers.NewTable(MetaSourceFiles, "",
			c("COL_FILE_NAME", s), c("COL_SYMBOL_MONIKER", s), c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
		// COL____COVERED: four underscores (docs/layout.md, "Names").
		profilers.NewTable(ModulesData, "",
			c("COL____COVERED", f), c("COL_CALCULATED", i), c("COL_MARK", d), c("COL_MODULE_NAME", s),
			c("COL_SKIP_COUNT", i), c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
		// COL_SOURCE_LINE is documented Decimal here, and the documented type stands.
		profilers.NewTable(RoutinesData, "",
			c("COL_ANALYSIS_RESULT", s), c("COL_CLASS_NAME", s), c("COL_CODE_TYPE", s), c("COL_MARK", d),
			c("COL_MODULE_NAME", s), c("COL_SKIP_COUNT", i), c("COL_SOURCE_FILE", s), c("COL_SOURCE_LINE", d),
			c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
		profilers.NewTable(SourceFilesData, "",
			c("COL____COVERED", f), c("COL_CALCULATED", i), c("COL_FILE_NAME", s), c("COL_HIT_COUNT", d),
			c("COL_SKIP_COUNT", i), c("ID", i), c("INST_ID", i), c("PARENT_ID", i), c("REC_ID", i)),
	}
}
