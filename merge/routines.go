package merge

import (
	"fmt"
	"strconv"

	"github.com/profdb/profdb/profilers/resource"
)

// routineTable is the routines of Resource and Reference Count inputs,
// whose META routine tables are alike: matched by routineKey, each with the
// source lines of any input, in order of first mention.
type routineTable struct {
	routines []*rsRoutine
	rIdx     map[routineKey]int32
}

// routineCols are the positions, in a routine row, of the columns
// addRoutine reads: of the META routine table's, by name (COL_ROUTINE_NAME
// and COL_ANALYSIS_RESULT whatever the table calls them); compiler and
// hits are -1 for a table without COL_COMPILER or COL_HIT_COUNT.
type routineCols struct {
	id, rec, module, file, namespace, class, name, line, codeType, address, token int
	unit, moniker, analysis, profileLines, compiler, hits                         int
}

// routineColsOf resolves the routine columns of q.
func routineColsOf(q *query) routineCols {
	c := routineCols{id: q.at("ID"), rec: q.at("REC_ID"), module: q.at("COL_MODULE_NAME"), file: q.at("COL_SOURCE_FILE"),
		namespace: q.at("COL_NAMESPACE"), class: q.at("COL_CLASS_NAME"), name: q.at("COL_ROUTINE_NAME"),
		line: q.at("COL_SOURCE_LINE"), codeType: q.at("COL_CODE_TYPE"), address: q.at("COL_ADDRESS"),
		token: q.at("COL_TOKEN"), unit: q.at("COL_UNIT_NAME"), moniker: q.at("COL_SYMBOL_MONIKER"),
		analysis: q.at("COL_ANALYSIS_RESULT"), profileLines: q.at("COL_PROFILELINES"), compiler: q.index("COL_COMPILER"),
		hits: q.index("COL_HIT_COUNT")}
	return c
}

// addRoutine records a routine row of input i, its columns at c (with a
// hit count). A routine
// first met here takes this row's description.
func (t *routineTable) addRoutine(i int, row []any, c routineCols) int32 {
	k := routineKey{module: str(row[c.module]), file: str(row[c.file]), namespace: str(row[c.namespace]),
		class: str(row[c.class]), name: str(row[c.name]), line: integer(row[c.line])}
	j, ok := t.rIdx[k]
	if !ok {
		j = int32(len(t.routines))
		t.rIdx[k] = j
		addr, _ := strconv.ParseUint(str(row[c.address]), 10, 64)
		info := resource.RoutineInfo{
			Name: k.name, Class: k.class, Namespace: k.namespace, Module: k.module, SourceFile: k.file,
			SourceLine: k.line, CodeType: str(row[c.codeType]), Address: addr, Token: integer(row[c.token]),
			UnitName: str(row[c.unit]), SymbolMoniker: str(row[c.moniker]), AnalysisResult: str(row[c.analysis]),
			LineLevel: integer(row[c.profileLines]) != 0,
		}
		if c.compiler >= 0 {
			info.Compiler = str(row[c.compiler])
		}
		t.routines = append(t.routines, &rsRoutine{info: info})
	}
	t.routines[j].hits.add(i, integer(row[c.hits]))
	return j
}

// addLine records a line row, its PARENT_ID at parent and its source line
// at src, of the routine whose ID in the input byID maps to its index, and
// returns the source line.
func (t *routineTable) addLine(row []any, parent, src int, byID map[int64]int32) (int64, error) {
	j, ok := byID[integer(row[parent])]
	if !ok {
		return 0, fmt.Errorf("a line's PARENT_ID names no routine %d (run verify)", integer(row[parent]))
	}
	r, l := t.routines[j], integer(row[src])
	if !r.seen[l] {
		if r.seen == nil {
			r.seen = map[int64]bool{}
		}
		r.seen[l] = true
		r.lines = append(r.lines, l)
	}
	return l, nil
}
