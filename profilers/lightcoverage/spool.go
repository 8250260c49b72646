package lightcoverage

import (
	"errors"
	"fmt"
	"iter"

	"github.com/profdb/profdb/internal/spool"
	"github.com/profdb/profdb/resultset"
)

// spooledResultSet is ResultSet for a Builder with SetSpool: the routine
// and line tables are read back from the spool, each row checked.
func (b *Builder) spooledResultSet(caption string) *resultset.ResultSet {
	b.flush()
	mods, files := b.tallies()
	modules, srcFiles := b.modules, b.files
	var nRoutines, nLines int64
	if b.routineSpool != nil {
		nRoutines, nLines = b.routineSpool.Len(), b.lineSpool.Len()
	}
	name := func(i int64, list []*group) string {
		if i < 0 || i >= int64(len(list)) {
			return ""
		}
		return list[i].name
	}
	// routineRows yields each spooled routine's ID and description.
	routineRows := func(row func(id int64, r spooledRoutine) []any) iter.Seq2[[]any, error] {
		return func(yield func([]any, error) bool) {
			for id, v := range b.replay(b.routineSpool, nRoutines) {
				if v == nil {
					yield(nil, b.err)
					return
				}
				r, err := decodeRoutine(v)
				if err != nil {
					yield(nil, err)
					return
				}
				if !yield(row(id, r), nil) {
					return
				}
			}
		}
	}
	lineRows := func(row func(id, parent, pos, src, count int64) []any) iter.Seq2[[]any, error] {
		return func(yield func([]any, error) bool) {
			for id, v := range b.replay(b.lineSpool, nLines) {
				if v == nil {
					yield(nil, b.err)
					return
				}
				var x [4]int64
				ok := len(v) == len(x)
				for i := 0; ok && i < len(x); i++ {
					x[i], ok = v[i].(int64)
				}
				if !ok {
					yield(nil, errors.New("lightcoverage: corrupt spooled line"))
					return
				}
				if !yield(row(id, x[0], x[1], x[2], x[3]), nil) {
					return
				}
			}
		}
	}
	profileLines := func(r spooledRoutine) int64 {
		if r.LineLevel {
			return -1
		}
		return 0
	}
	return &resultset.ResultSet{
		Header: resultset.Header{Profiler: Name, Caption: caption},
		Tables: []resultset.TableRows{
			{Name: MetaModules, Columns: colsMetaModules, Rows: resultset.IndexedRows(len(modules), func(i int) []any {
				return []any{modules[i].name, int64(i), int64(-1), int64(i)}
			})},
			{Name: MetaSourceFiles, Columns: colsMetaSourceFiles, Rows: resultset.IndexedRows(len(srcFiles), func(i int) []any {
				return []any{srcFiles[i].name, "", int64(i), int64(-1), int64(i)}
			})},
			{Name: MetaRoutines, Columns: colsMetaRoutines, Rows: routineRows(func(id int64, r spooledRoutine) []any {
				return []any{r.Address, r.AnalysisResult, r.Class, r.CodeType,
					name(r.mod, modules), r.Namespace, profileLines(r), r.Name, name(r.file, srcFiles),
					r.SourceLine, r.SymbolMoniker, r.Token, r.UnitName, id, int64(-1), id}
			})},
			{Name: MetaLines, Columns: colsMetaLines, Rows: lineRows(func(id, parent, pos, src, _ int64) []any {
				return []any{src, id, parent, pos}
			})},
			{Name: ModulesData, Columns: colsModulesData, Rows: resultset.IndexedRows(len(modules), func(i int) []any {
				mark := int64(0)
				if mods[i].ran {
					mark = 1
				}
				return []any{mods[i].percent(), int64(-1), mark, modules[i].name, int64(0), int64(i), int64(-1), int64(i)}
			})},
			{Name: SourceFilesData, Columns: colsSourceFilesData, Rows: resultset.IndexedRows(len(srcFiles), func(i int) []any {
				return []any{files[i].percent(), int64(-1), srcFiles[i].name, files[i].covered, int64(0), int64(i), int64(-1), int64(i)}
			})},
			{Name: RoutinesData, Columns: colsRoutinesData, Rows: routineRows(func(id int64, r spooledRoutine) []any {
				return []any{r.AnalysisResult, r.Class, r.CodeType, r.Count,
					name(r.mod, modules), int64(0), name(r.file, srcFiles), r.SourceLine, id, int64(-1), id}
			})},
			{Name: Lines, Columns: colsLines, Rows: lineRows(func(id, parent, pos, src, count int64) []any {
				return []any{count, src, id, parent, pos}
			})},
		},
	}
}

// replay yields the first n rows of s with their positions; a nil row ends
// it, with the error in b.err.
func (b *Builder) replay(s *spool.Spool, n int64) iter.Seq2[int64, []any] {
	return func(yield func(int64, []any) bool) {
		if b.err != nil {
			yield(-1, nil)
			return
		}
		if n == 0 {
			return
		}
		i := int64(0)
		for row, err := range s.Rows() {
			if err != nil {
				b.err = fmt.Errorf("lightcoverage: %w", err)
				yield(-1, nil)
				return
			}
			if !yield(i, row) {
				return
			}
			if i++; i == n {
				return
			}
		}
	}
}

// spooledRoutine is a routine read back from the spool.
type spooledRoutine struct {
	RoutineInfo
	mod, file int64
}

// decodeRoutine reads back a routine flush wrote.
func decodeRoutine(v []any) (spooledRoutine, error) {
	var r spooledRoutine
	if len(v) != 15 {
		return r, errors.New("lightcoverage: corrupt spooled routine")
	}
	var addr int64
	ints := []*int64{&r.mod, &r.file, &r.SourceLine, &r.Count, &addr, &r.Token}
	strs := []*string{&r.Name, &r.Class, &r.Namespace, &r.CodeType, &r.UnitName, &r.SymbolMoniker, &r.AnalysisResult}
	ok := true
	for i, p := range []int{0, 1, 5, 7, 9, 10} {
		*ints[i], ok = v[p].(int64)
		if !ok {
			return r, errors.New("lightcoverage: corrupt spooled routine")
		}
	}
	for i, p := range []int{2, 3, 4, 6, 11, 12, 13} {
		*strs[i], ok = v[p].(string)
		if !ok {
			return r, errors.New("lightcoverage: corrupt spooled routine")
		}
	}
	if r.LineLevel, ok = v[8].(bool); !ok {
		return r, errors.New("lightcoverage: corrupt spooled routine")
	}
	r.Address = uint64(addr)
	return r, nil
}
