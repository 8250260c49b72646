package merge

import (
	"context"
	"fmt"
	"strconv"

	"github.com/profdb/profdb/profilers/resource"
)

// routineKey is what matches a routine across result sets.
type routineKey struct {
	module, file, namespace, class, name string
	line                                 int64
}

// routineQuery is the query of a META routine table through alias, in the
// order of the columns order: the columns routineColsOf resolves, then the
// columns extra. name and analysis are what the table calls
// COL_ROUTINE_NAME and COL_ANALYSIS_RESULT.
func routineQuery(alias, table string, order []string, name, analysis string, extra ...string) *query {
	c := cols(alias, table, "ID", "REC_ID", "COL_MODULE_NAME", "COL_SOURCE_FILE", "COL_NAMESPACE", "COL_CLASS_NAME")
	c = append(c, col(alias, table, name).as("COL_ROUTINE_NAME"))
	c = append(c, cols(alias, table, "COL_SOURCE_LINE", "COL_CODE_TYPE", "COL_ADDRESS", "COL_TOKEN", "COL_UNIT_NAME",
		"COL_SYMBOL_MONIKER")...)
	c = append(c, col(alias, table, analysis).as("COL_ANALYSIS_RESULT"), col(alias, table, "COL_PROFILELINES"))
	return newQuery(from(alias, table, order...), append(c, cols(alias, table, extra...)...)...)
}

// routineCols are the positions, in a routine row, of the columns of the
// META routine table's that routineQuery selects (COL_ROUTINE_NAME and
// COL_ANALYSIS_RESULT whatever the table calls them); compiler and hits are
// -1 for a query without COL_COMPILER or COL_HIT_COUNT.
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

// key is what matches the routine of a row.
func (c routineCols) key(row []any) routineKey {
	return routineKey{module: str(row[c.module]), file: str(row[c.file]), namespace: str(row[c.namespace]),
		class: str(row[c.class]), name: str(row[c.name]), line: integer(row[c.line])}
}

// lineList is a routine's source lines, in order of first mention.
type lineList struct {
	lines []int64
	seen  map[int64]bool
}

// add records source line l unless it is recorded already.
func (s *lineList) add(l int64) {
	if s.seen[l] {
		return
	}
	if s.seen == nil {
		s.seen = map[int64]bool{}
	}
	s.seen[l] = true
	s.lines = append(s.lines, l)
}

// rsRoutine is a routine of a merged Resource or Reference Count result set.
type rsRoutine struct {
	info resource.RoutineInfo // of the first input holding it; HitCount combined
	hits acc
	lineList
}

// routineTable is the routines of Resource and Reference Count inputs,
// whose META routine tables are alike: matched by routineKey, each with the
// source lines of any input, in order of first mention.
type routineTable struct {
	routines keyed[routineKey, *rsRoutine]
}

// lineCols are the columns readRoutines reads of a META lines table.
var lineCols = []string{"PARENT_ID", "REC_ID", "COL_SOURCE_LINE"}

// readRoutines reads the routines (q, a routineQuery with COL_HIT_COUNT) and
// their lines (lq, of lineCols) of input i, result set inst, and returns
// the merged routines by the input's routine REC_IDs. line is given each
// line's PARENT_ID, REC_ID and source line.
func (t *routineTable) readRoutines(ctx context.Context, in *inputs, i int, inst int64, q, lq *query,
	line func(parent, rec, src int64)) (map[int64]int32, error) {
	byID, byRec := map[int64]int32{}, map[int64]int32{}
	c := routineColsOf(q)
	err := in.scan(ctx, inst, q, func(row []any) error {
		j := t.addRoutine(i, row, c)
		byID[integer(row[c.id])] = j
		byRec[integer(row[c.rec])] = j
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("routines: %w", err)
	}
	parent, rec, src := lq.at("PARENT_ID"), lq.at("REC_ID"), lq.at("COL_SOURCE_LINE")
	err = in.scan(ctx, inst, lq, func(row []any) error {
		j, ok := byID[integer(row[parent])]
		if !ok {
			return fmt.Errorf("a line's PARENT_ID names no routine %d (run verify)", integer(row[parent]))
		}
		l := integer(row[src])
		t.routines.items[j].add(l)
		line(integer(row[parent]), integer(row[rec]), l)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("lines: %w", err)
	}
	return byRec, nil
}

// addRoutine records a routine row of input i, its columns at c (with a
// hit count). A routine first met here takes this row's description.
func (t *routineTable) addRoutine(i int, row []any, c routineCols) int32 {
	k := c.key(row)
	j := t.routines.at(k, func() *rsRoutine {
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
		return &rsRoutine{info: info}
	})
	t.routines.items[j].hits.add(i, integer(row[c.hits]))
	return j
}
