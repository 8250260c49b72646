package lightcoverage

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/profdb/profdb/internal/spool"
	"github.com/profdb/profdb/resultset"
)

// Builder assembles one Light Coverage result set in the profiler's own
// vocabulary: modules, source files, routines and their lines. It fills the
// identifier columns so that the tables link up as the Light Coverage
// document describes:
//
//   - ID is zero-based and unique per table within the result set, in the
//     order the rows were first mentioned (lines: routine by routine, each
//     routine's lines in their order). The META_ROUTINES and
//     ROUTINES_DATA rows of one routine share an ID, as do the META_MODULES
//     and MODULES_DATA rows of a module, the META_SOURCE_FILES and
//     SOURCE_FILES_DATA rows of a source file, and the META_LINES and LINES
//     rows of a line.
//   - REC_ID of LINES and META_LINES is the line's zero-based position in its
//     routine's list of lines ("the line's identifier within the routine's
//     lines list"); REC_ID of the other tables, "a helper field", repeats ID.
//   - PARENT_ID of LINES is the routine's ROUTINES_DATA ID and of META_LINES
//     its META_ROUTINES ID (the same number); every other PARENT_ID is "Not
//     used" and holds -1 (docs/layout.md, "Keys and identifiers").
//   - COL_CALCULATED is -1 and COL_SKIP_COUNT 0, as documented.
//
// Derived figures, computed when the result set is produced:
//
//   - COL____COVERED of a module or source file = lines with a count above 0
//     ÷ all lines of its routines × 100, and 0 when its routines have no
//     lines.
//   - COL_MARK of MODULES_DATA is 1 when any routine of the module ran
//     (Count > 0) or any of their lines ran, else 0.
//   - COL_HIT_COUNT of SOURCE_FILES_DATA ("a helper field") is the number of
//     covered lines of the file's routines: the numerator of its % Covered.
//
// Modules and source files are created on first mention by name; a routine
// with an empty Module (SourceFile) belongs to no module (source file) and
// counts towards none.
//
// After SetSpool, routines and their lines go to a temporary spool as the
// next routine is added, so that memory stays bounded by the number of
// modules and source files, not of routines and lines (see SetSpool).
//
// A Builder is not safe for concurrent use. Do not change it while a result
// set it returned is being exported.
type Builder struct {
	modules   []*group
	moduleIdx map[string]int
	files     []*group
	fileIdx   map[string]int
	routines  []*Routine

	// Spooling (SetSpool): every routine but the last added is in
	// routineSpool and its lines in lineSpool.
	spooled      bool
	memLimit     int
	dir          string
	routineSpool *spool.Spool
	lineSpool    *spool.Spool
	last         *Routine // the routine lines may still be added to
	nRoutines    int64    // routines added
	modTally     []tally  // of the spooled routines
	fileTally    []tally
	row          []any
	err          error // sticky: a spool failure or a line added too late
}

type group struct {
	name string
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{moduleIdx: map[string]int{}, fileIdx: map[string]int{}}
}

// SetSpool makes the Builder keep routines and lines in a temporary spool:
// in memory up to memLimit bytes, then in a file in dir (spool.DefaultMemLimit
// and os.TempDir() for 0 and ""). A routine's lines are final once the next
// routine is added or a result set is produced: adding a line to an earlier
// routine is an error the result set's rows report. Call Close when done.
// SetSpool has an effect only before the first AddRoutine.
func (b *Builder) SetSpool(memLimit int, dir string) {
	if b.nRoutines == 0 && len(b.routines) == 0 {
		b.spooled, b.memLimit, b.dir = true, memLimit, dir
	}
}

// Close releases the spool's temporary files, if any. The Builder and the
// result sets it returned are unusable afterwards.
func (b *Builder) Close() error {
	var errs []error
	for _, s := range []*spool.Spool{b.routineSpool, b.lineSpool} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	b.routineSpool, b.lineSpool = nil, nil
	if b.spooled && b.err == nil {
		b.err = errors.New("lightcoverage: builder closed")
	}
	return errors.Join(errs...)
}

// flush moves the last routine added, with its lines, to the spool and adds
// it to the module and source file tallies.
func (b *Builder) flush() {
	r := b.last
	if r == nil {
		return
	}
	b.last = nil
	r.flushed = true
	if b.err != nil {
		return
	}
	if b.routineSpool == nil {
		b.routineSpool = spool.New(b.memLimit, b.dir)
		b.lineSpool = spool.New(b.memLimit, b.dir)
	}
	for len(b.modTally) < len(b.modules) {
		b.modTally = append(b.modTally, tally{})
	}
	for len(b.fileTally) < len(b.files) {
		b.fileTally = append(b.fileTally, tally{})
	}
	r.addTo(b.modTally, b.fileTally)
	in := r.info
	b.row = append(b.row[:0], int64(r.mod), int64(r.file), in.Name, in.Class, in.Namespace, in.SourceLine,
		in.CodeType, in.Count, in.LineLevel, int64(in.Address), in.Token, in.UnitName, in.SymbolMoniker,
		in.AnalysisResult, int64(len(r.lines)))
	if err := b.routineSpool.Append(b.row); err != nil {
		b.err = fmt.Errorf("lightcoverage: %w", err)
		return
	}
	for pos, l := range r.lines {
		b.row = append(b.row[:0], r.id, int64(pos), l.src, l.count)
		if err := b.lineSpool.Append(b.row); err != nil {
			b.err = fmt.Errorf("lightcoverage: %w", err)
			return
		}
	}
	r.lines, r.lineIdx = nil, nil
}

// RoutineInfo describes one routine.
type RoutineInfo struct {
	Name, Class, Namespace string // COL_ROUTINE_NAME, COL_CLASS_NAME, COL_NAMESPACE
	Module                 string // module name: META_MODULES / MODULES_DATA row, COL_MODULE_NAME
	SourceFile             string // source file: META_SOURCE_FILES / SOURCE_FILES_DATA row, COL_SOURCE_FILE
	SourceLine             int64  // first line of the routine (COL_SOURCE_LINE)
	CodeType               string // COL_CODE_TYPE, e.g. "Byte-code", "x64"
	Count                  int64  // times the routine was executed (COL_MARK of ROUTINES_DATA)
	LineLevel              bool   // profiled on line level: COL_PROFILELINES -1, else 0 (per the Light Coverage doc)
	Address                uint64 // COL_ADDRESS (0 for managed)
	Token                  int64  // COL_TOKEN (0 for unmanaged)
	// UnitName, SymbolMoniker and AnalysisResult fill COL_UNIT_NAME,
	// COL_SYMBOL_MONIKER and COL_ANALYSIS_RESULT ("" when instrumented).
	UnitName, SymbolMoniker, AnalysisResult string
}

// Routine is a routine added to a Builder; add its lines with AddLine.
type Routine struct {
	id      int64
	info    RoutineInfo
	mod     int // index in Builder.modules, -1 for none
	file    int // index in Builder.files, -1 for none
	lines   []line
	lineIdx map[int64]int // source line -> index in lines; built when lines come out of order
	flushed bool          // in the spool: no more lines
	b       *Builder
}

type line struct {
	src, count int64
}

// AddRoutine adds a routine (a META_ROUTINES and a ROUTINES_DATA row) and
// creates its module and source file if they are new. Every call adds a
// routine, even one named like an earlier one (overloads).
func (b *Builder) AddRoutine(r RoutineInfo) *Routine {
	if b.spooled {
		b.flush()
	}
	rt := &Routine{
		id:   b.nRoutines,
		info: r,
		mod:  intern(r.Module, &b.modules, b.moduleIdx),
		file: intern(r.SourceFile, &b.files, b.fileIdx),
		b:    b,
	}
	b.nRoutines++
	if b.spooled {
		b.last = rt
	} else {
		b.routines = append(b.routines, rt)
	}
	return rt
}

func intern(name string, list *[]*group, idx map[string]int) int {
	if name == "" {
		return -1
	}
	if i, ok := idx[name]; ok {
		return i
	}
	idx[name] = len(*list)
	*list = append(*list, &group{name: name})
	return len(*list) - 1
}

// ID returns the routine's ID in META_ROUTINES and ROUTINES_DATA (the
// PARENT_ID of its lines).
func (r *Routine) ID() int64 { return r.id }

// AddLine records a source line of the routine and how often it ran (0 = not executed):
// a LINES row (child of ROUTINES_DATA) and a META_LINES row (child of META_ROUTINES).
//
// Lines keep the order of their first AddLine. Recording the same source
// line of a routine again does not add a row: the line keeps the larger of
// the two counts (two code blocks on one line ran as often as the busier one;
// the line is covered when either ran). A negative count is taken as 0.
func (r *Routine) AddLine(sourceLine, count int64) {
	if r.flushed {
		if r.b.err == nil {
			r.b.err = fmt.Errorf("lightcoverage: line %d added to routine %d (%s) after the next routine", sourceLine, r.id, r.info.Name)
		}
		return
	}
	if count < 0 {
		count = 0
	}
	// Lines usually come in ascending order: only a line not after the last
	// one can be a repeat, and only then is the index built.
	if n := len(r.lines); n > 0 && sourceLine <= r.lines[n-1].src {
		if r.lineIdx == nil {
			r.lineIdx = make(map[int64]int, n)
			for i, l := range r.lines {
				r.lineIdx[l.src] = i
			}
		}
		if i, ok := r.lineIdx[sourceLine]; ok {
			if count > r.lines[i].count {
				r.lines[i].count = count
			}
			return
		}
	}
	if r.lineIdx != nil {
		r.lineIdx[sourceLine] = len(r.lines)
	}
	r.lines = append(r.lines, line{src: sourceLine, count: count})
}

// Column lists, in document order, without INST_ID (the writer fills it).
var (
	colsMetaModules     = []string{"COL_MODULE_NAME", "ID", "PARENT_ID", "REC_ID"}
	colsMetaSourceFiles = []string{"COL_FILE_NAME", "COL_SYMBOL_MONIKER", "ID", "PARENT_ID", "REC_ID"}
	colsMetaRoutines    = []string{"COL_ADDRESS", "COL_ANALYSIS_RESULT", "COL_CLASS_NAME", "COL_CODE_TYPE",
		"COL_MODULE_NAME", "COL_NAMESPACE", "COL_PROFILELINES", "COL_ROUTINE_NAME", "COL_SOURCE_FILE",
		"COL_SOURCE_LINE", "COL_SYMBOL_MONIKER", "COL_TOKEN", "COL_UNIT_NAME", "ID", "PARENT_ID", "REC_ID"}
	colsMetaLines   = []string{"COL_SOURCE_LINE", "ID", "PARENT_ID", "REC_ID"}
	colsModulesData = []string{"COL____COVERED", "COL_CALCULATED", "COL_MARK", "COL_MODULE_NAME",
		"COL_SKIP_COUNT", "ID", "PARENT_ID", "REC_ID"}
	colsSourceFilesData = []string{"COL____COVERED", "COL_CALCULATED", "COL_FILE_NAME", "COL_HIT_COUNT",
		"COL_SKIP_COUNT", "ID", "PARENT_ID", "REC_ID"}
	colsRoutinesData = []string{"COL_ANALYSIS_RESULT", "COL_CLASS_NAME", "COL_CODE_TYPE", "COL_MARK",
		"COL_MODULE_NAME", "COL_SKIP_COUNT", "COL_SOURCE_FILE", "COL_SOURCE_LINE", "ID", "PARENT_ID", "REC_ID"}
	colsLines = []string{"COL_MARK", "COL_SOURCE_LINE", "ID", "PARENT_ID", "REC_ID"}
)

// tally is the coverage of a module or source file.
type tally struct {
	lines, covered int64
	ran            bool
}

func (t tally) percent() float64 {
	if t.lines == 0 {
		return 0
	}
	return float64(t.covered) * 100 / float64(t.lines)
}

func (b *Builder) tallies() (mods, files []tally) {
	mods = make([]tally, len(b.modules))
	files = make([]tally, len(b.files))
	copy(mods, b.modTally)
	copy(files, b.fileTally)
	for _, r := range b.routines {
		r.addTo(mods, files)
	}
	return mods, files
}

// addTo adds the routine's lines to the tallies of its module and source
// file.
func (r *Routine) addTo(mods, files []tally) {
	var t tally
	t.ran = r.info.Count > 0
	for _, l := range r.lines {
		t.lines++
		if l.count > 0 {
			t.covered++
			t.ran = true
		}
	}
	for _, x := range []struct {
		i int
		s []tally
	}{{r.mod, mods}, {r.file, files}} {
		if x.i >= 0 {
			x.s[x.i].lines += t.lines
			x.s[x.i].covered += t.covered
			x.s[x.i].ran = x.s[x.i].ran || t.ran
		}
	}
}

// ResultSet returns the result set built so far, captioned caption, with
// the eight Light Coverage tables in parent-before-child order. Each table's
// rows are produced fresh on every iteration (each row a new slice).
func (b *Builder) ResultSet(caption string) *resultset.ResultSet {
	if b.spooled {
		return b.spooledResultSet(caption)
	}
	mods, files := b.tallies()
	routines := b.routines
	modules, srcFiles := b.modules, b.files
	name := func(i int, list []*group) string {
		if i < 0 {
			return ""
		}
		return list[i].name
	}
	profileLines := func(r *Routine) int64 {
		if r.info.LineLevel {
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
			{Name: MetaRoutines, Columns: colsMetaRoutines, Rows: resultset.IndexedRows(len(routines), func(i int) []any {
				r := routines[i]
				return []any{r.info.Address, r.info.AnalysisResult, r.info.Class, r.info.CodeType,
					name(r.mod, modules), r.info.Namespace, profileLines(r), r.info.Name, name(r.file, srcFiles),
					r.info.SourceLine, r.info.SymbolMoniker, r.info.Token, r.info.UnitName, r.id, int64(-1), r.id}
			})},
			{Name: MetaLines, Columns: colsMetaLines, Rows: lineRows(routines, func(r *Routine, id int64, pos int, l line) []any {
				return []any{l.src, id, r.id, int64(pos)}
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
			{Name: RoutinesData, Columns: colsRoutinesData, Rows: resultset.IndexedRows(len(routines), func(i int) []any {
				r := routines[i]
				return []any{r.info.AnalysisResult, r.info.Class, r.info.CodeType, r.info.Count,
					name(r.mod, modules), int64(0), name(r.file, srcFiles), r.info.SourceLine, r.id, int64(-1), r.id}
			})},
			{Name: Lines, Columns: colsLines, Rows: lineRows(routines, func(r *Routine, id int64, pos int, l line) []any {
				return []any{l.count, l.src, id, r.id, int64(pos)}
			})},
		},
	}
}

// Export writes the result set built so far to t (see ResultSet and
// resultset.Export).
func (b *Builder) Export(ctx context.Context, t resultset.Target, caption string) (resultset.Result, error) {
	return resultset.Export(ctx, t, b.ResultSet(caption))
}

// lineRows yields the lines of all routines, routine by routine; a line's ID
// counts lines in that order.
func lineRows(routines []*Routine, row func(r *Routine, id int64, pos int, l line) []any) iter.Seq2[[]any, error] {
	// The number of lines per routine is taken now, with the tallies.
	n := make([]int, len(routines))
	for i, r := range routines {
		n[i] = len(r.lines)
	}
	return func(yield func([]any, error) bool) {
		id := int64(0)
		for i, r := range routines {
			for pos, l := range r.lines[:n[i]] {
				if !yield(row(r, id, pos, l), nil) {
					return
				}
				id++
			}
		}
	}
}
