package profilers_test

import (
	"fmt"
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers"
)

// allocation is a fifth profiler that lives in its own package: profdb is not
// changed to add it. It implements profilers.Profiler, listing its tables
// with their columns in order and each table's parent. Every profiler table
// carries ID, INST_ID, PARENT_ID and REC_ID.
type allocation struct{}

func (allocation) Tables() []ddl.Table {
	c := profilers.Col
	return []ddl.Table{
		// The child may come first: Register orders parents first.
		profilers.NewTable("ALLOCATION_PROFILER_BLOCKS", "ALLOCATION_PROFILER_HEAPS",
			c("COL_ADDRESS", ddl.Decimal), c("COL_SIZE", ddl.Integer),
			c("ID", ddl.Integer), c("INST_ID", ddl.Integer), c("PARENT_ID", ddl.Integer), c("REC_ID", ddl.Integer)),
		profilers.NewTable("ALLOCATION_PROFILER_HEAPS", "",
			c("COL_HEAP_NAME", ddl.String), c("COL_PEAK_SIZE", ddl.Integer),
			c("ID", ddl.Integer), c("INST_ID", ddl.Integer), c("PARENT_ID", ddl.Integer), c("REC_ID", ddl.Integer)),
	}
}

// The plugin registers itself when imported, the way database/sql drivers
// do; a program enables it with
//
//	import _ "example.com/allocation"
func init() { profilers.Register("allocation", allocation{}) }

// Example_thirdPartyProfiler shows a profiler defined outside profdb: once
// its package is imported, it is looked up like the four shipped ones.
func Example_thirdPartyProfiler() {
	def, err := profilers.Lookup("allocation")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range def.Tables {
		parent := t.Parent
		if parent == "" {
			parent = "none (top-level)"
		}
		var cols []string
		for _, col := range t.Columns {
			cols = append(cols, col.Name+" "+col.Type.String())
		}
		fmt.Printf("%s\n  parent:  %s\n  columns: %s\n", t.Name, parent, strings.Join(cols, ", "))
	}
	d, _ := profilers.ForTable("ALLOCATION_PROFILER_BLOCKS")
	fmt.Println("ALLOCATION_PROFILER_BLOCKS belongs to", d.Name)
	// Output:
	// ALLOCATION_PROFILER_HEAPS
	//   parent:  none (top-level)
	//   columns: COL_HEAP_NAME String, COL_PEAK_SIZE Integer, ID Integer, INST_ID Integer, PARENT_ID Integer, REC_ID Integer
	// ALLOCATION_PROFILER_BLOCKS
	//   parent:  ALLOCATION_PROFILER_HEAPS
	//   columns: COL_ADDRESS Decimal, COL_SIZE Integer, ID Integer, INST_ID Integer, PARENT_ID Integer, REC_ID Integer
	// ALLOCATION_PROFILER_BLOCKS belongs to allocation
}
