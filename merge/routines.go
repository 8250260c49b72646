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

// addRoutine records a routine row of input i: ID, REC_ID, module, source
// file, namespace, class, name, source line, code type, address, token,
// unit, symbol moniker, analysis result, profile lines, then the compiler
// where compiler is set, then the hit count. A routine first met here takes
// this row's description.
func (t *routineTable) addRoutine(i int, row []any, compiler bool) int32 {
	k := routineKey{module: str(row[2]), file: str(row[3]), namespace: str(row[4]), class: str(row[5]),
		name: str(row[6]), line: integer(row[7])}
	hits := 15
	if compiler {
		hits = 16
	}
	j, ok := t.rIdx[k]
	if !ok {
		j = int32(len(t.routines))
		t.rIdx[k] = j
		addr, _ := strconv.ParseUint(str(row[9]), 10, 64)
		info := resource.RoutineInfo{
			Name: k.name, Class: k.class, Namespace: k.namespace, Module: k.module, SourceFile: k.file,
			SourceLine: k.line, CodeType: str(row[8]), Address: addr, Token: integer(row[10]),
			UnitName: str(row[11]), SymbolMoniker: str(row[12]), AnalysisResult: str(row[13]),
			LineLevel: integer(row[14]) != 0,
		}
		if compiler {
			info.Compiler = str(row[15])
		}
		t.routines = append(t.routines, &rsRoutine{info: info})
	}
	t.routines[j].hits.add(i, integer(row[hits]))
	return j
}

// addLine records a line row (PARENT_ID, REC_ID, source line) of the
// routine whose ID in the input byID maps to its index, and returns the
// source line.
func (t *routineTable) addLine(row []any, byID map[int64]int32) (int64, error) {
	j, ok := byID[integer(row[0])]
	if !ok {
		return 0, fmt.Errorf("a line's PARENT_ID names no routine %d (run verify)", integer(row[0]))
	}
	r, l := t.routines[j], integer(row[2])
	if !r.seen[l] {
		if r.seen == nil {
			r.seen = map[int64]bool{}
		}
		r.seen[l] = true
		r.lines = append(r.lines, l)
	}
	return l, nil
}
