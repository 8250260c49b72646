package merge

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
)

// covRoutine is a routine of the merged Light Coverage result set.
type covRoutine struct {
	info    lightcoverage.RoutineInfo // of the first input holding it
	count   acc
	lines   []covLine
	lineIdx map[int64]int32 // built when lines come out of order
}

type covLine struct {
	src   int64
	count acc
}

// coverage is a Light Coverage result set being merged: its routines in
// order of first mention, each with its lines in order of first mention.
type coverage struct {
	routines keyed[routineKey, *covRoutine]
}

// line returns the routine's line src, added if new.
func (r *covRoutine) line(src int64) *acc {
	if n := len(r.lines); n == 0 || src > r.lines[n-1].src {
		if r.lineIdx != nil {
			r.lineIdx[src] = int32(n)
		}
		r.lines = append(r.lines, covLine{src: src})
		return &r.lines[n].count
	}
	if r.lineIdx == nil {
		r.lineIdx = make(map[int64]int32, len(r.lines))
		for i, l := range r.lines {
			r.lineIdx[l.src] = int32(i)
		}
	}
	i, ok := r.lineIdx[src]
	if !ok {
		i = int32(len(r.lines))
		r.lineIdx[src] = i
		r.lines = append(r.lines, covLine{src: src})
	}
	return &r.lines[i].count
}

const (
	lcRoutines = lightcoverage.RoutinesData
	lcMeta     = lightcoverage.MetaRoutines
	lcLines    = lightcoverage.Lines
)

// The routines of a result set, by ID, with what matches them and what
// the builder needs; and their lines.
var (
	lcRoutineQ = newQuery(`FROM {rd:`+lcRoutines+`} LEFT JOIN {m:`+lcMeta+`} ON {m.`+lcMeta+`.INST_ID} = {?}
			AND {m.`+lcMeta+`.ID} = {rd.`+lcRoutines+`.ID}
		WHERE {rd.`+lcRoutines+`.INST_ID} = {?}
		ORDER BY {rd.`+lcRoutines+`.ID}`,
		col("rd", lcRoutines, "ID"),
		col("rd", lcRoutines, "COL_MODULE_NAME"),
		col("rd", lcRoutines, "COL_SOURCE_FILE"),
		col("m", lcMeta, "COL_NAMESPACE"),
		col("rd", lcRoutines, "COL_CLASS_NAME"),
		col("m", lcMeta, "COL_ROUTINE_NAME"),
		col("m", lcMeta, "COL_SOURCE_LINE").as("META_SOURCE_LINE"),
		col("rd", lcRoutines, "COL_SOURCE_LINE"),
		col("rd", lcRoutines, "COL_MARK"),
		col("rd", lcRoutines, "COL_CODE_TYPE"),
		col("m", lcMeta, "COL_PROFILELINES"),
		col("m", lcMeta, "COL_ADDRESS"),
		col("m", lcMeta, "COL_TOKEN"),
		col("m", lcMeta, "COL_UNIT_NAME"),
		col("m", lcMeta, "COL_SYMBOL_MONIKER"),
		col("rd", lcRoutines, "COL_ANALYSIS_RESULT"))
	lcLineQ = tableQuery("l", lcLines, byID, "PARENT_ID", "COL_SOURCE_LINE", "COL_MARK")

	lcTables = []string{lcRoutines, lcMeta, lcLines}
)

// read adds input i, result set inst.
func (m *coverage) read(ctx context.Context, in *inputs, i int, inst int64) error {
	q := lcRoutineQ
	id, module, file, namespace, class, name := q.at("ID"), q.at("COL_MODULE_NAME"), q.at("COL_SOURCE_FILE"),
		q.at("COL_NAMESPACE"), q.at("COL_CLASS_NAME"), q.at("COL_ROUTINE_NAME")
	metaLine, srcLine, mark, codeType := q.at("META_SOURCE_LINE"), q.at("COL_SOURCE_LINE"), q.at("COL_MARK"), q.at("COL_CODE_TYPE")
	profileLines, address, token, unit := q.at("COL_PROFILELINES"), q.at("COL_ADDRESS"), q.at("COL_TOKEN"), q.at("COL_UNIT_NAME")
	moniker, analysis := q.at("COL_SYMBOL_MONIKER"), q.at("COL_ANALYSIS_RESULT")
	// The input's routine IDs -> the merged routines.
	byID := map[int64]*covRoutine{}
	err := in.scan(ctx, inst, q, func(row []any) error {
		line := integer(row[metaLine])
		if row[metaLine] == nil {
			line = count(row[srcLine])
		}
		k := routineKey{module: str(row[module]), file: str(row[file]), namespace: str(row[namespace]), class: str(row[class]),
			name: str(row[name]), line: line}
		r := m.routines.items[m.routines.at(k, func() *covRoutine {
			addr, _ := strconv.ParseUint(str(row[address]), 10, 64)
			return &covRoutine{info: lightcoverage.RoutineInfo{
				Name: k.name, Class: k.class, Namespace: k.namespace, Module: k.module, SourceFile: k.file,
				SourceLine: k.line, CodeType: str(row[codeType]), LineLevel: integer(row[profileLines]) != 0, Address: addr,
				Token: integer(row[token]), UnitName: str(row[unit]), SymbolMoniker: str(row[moniker]), AnalysisResult: str(row[analysis]),
			}}
		})]
		r.count.add(i, count(row[mark]))
		byID[integer(row[id])] = r
		return nil
	})
	if err != nil {
		return fmt.Errorf("routines: %w", err)
	}
	q = lcLineQ
	parent, lineNo, lineMark := q.at("PARENT_ID"), q.at("COL_SOURCE_LINE"), q.at("COL_MARK")
	err = in.scan(ctx, inst, q, func(row []any) error {
		r, ok := byID[integer(row[parent])]
		if !ok {
			return fmt.Errorf("a line's PARENT_ID %d names no routine (run verify)", integer(row[parent]))
		}
		r.line(integer(row[lineNo])).add(i, count(row[lineMark]))
		return nil
	})
	if err != nil {
		return fmt.Errorf("lines: %w", err)
	}
	return nil
}

// resultSet builds the merged result set with the Light Coverage builder,
// which computes the derived figures. It hands the routines over to the
// builder as it goes.
func (m *coverage) resultSet(op Op, caption string) *resultset.ResultSet {
	b := lightcoverage.NewBuilder()
	for i, r := range m.routines.items {
		info := r.info
		info.Count = r.count.value(op)
		br := b.AddRoutine(info)
		for j := range r.lines {
			br.AddLine(r.lines[j].src, r.lines[j].count.value(op))
		}
		m.routines.items[i] = nil
	}
	m.routines.idx = nil
	return b.ResultSet(caption)
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case ddl.Dec:
		return string(x)
	}
	return ""
}

func integer(v any) int64 {
	x, _ := v.(int64)
	return x
}

// count reads a Decimal count as a whole number: a fraction rounds up, so
// that a count above 0 stays above 0.
func count(v any) int64 {
	d, ok := v.(ddl.Dec)
	if !ok {
		return 0
	}
	if n, err := strconv.ParseInt(string(d), 10, 64); err == nil {
		return n
	}
	f, err := strconv.ParseFloat(string(d), 64)
	if err != nil || f <= 0 {
		return 0
	}
	if f >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(math.Ceil(f))
}
