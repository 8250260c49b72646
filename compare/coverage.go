package compare

import (
	"context"
	"fmt"

	"github.com/profdb/profdb/readback"
)

// Light Coverage tables compared.
const (
	lcRoutines     = "LIGHT_COVERAGE_PROFILER_ROUTINES_DATA"
	lcLines        = "LIGHT_COVERAGE_PROFILER_LINES"
	lcMetaRoutines = "LIGHT_COVERAGE_PROFILER_META_ROUTINES"
)

// CoverageDiff compares two Light Coverage result sets. Percentages are of
// lines; their change is in the comparison's style (difference: percentage
// points).
type CoverageDiff struct {
	Lines    Cover `json:"lines"`    // every line of the result set
	Routines Cover `json:"routines"` // a routine is covered when it or a line of it ran
	// Files in both result sets, by source file name, largest change of %
	// covered first; files in one of them only, most lines first.
	Files      List[GroupDiff] `json:"source_files"`
	FilesOnlyA List[GroupDiff] `json:"source_files_only_in_a"`
	FilesOnlyB List[GroupDiff] `json:"source_files_only_in_b"`
	// Routines matched by readback.RoutineID (module, namespace, class and
	// name; overloads of one full name are added up), likewise.
	RoutineList   List[GroupDiff] `json:"routine_list"`
	RoutinesOnlyA List[GroupDiff] `json:"routines_only_in_a"`
	RoutinesOnlyB List[GroupDiff] `json:"routines_only_in_b"`
	NewMisses     List[LineDiff]  `json:"new_misses"` // lines covered in A, in B not covered; by file and line
	NewHits       List[LineDiff]  `json:"new_hits"`   // lines not covered in A, covered in B
	LinesOnlyA    int64           `json:"lines_only_in_a"`
	LinesOnlyB    int64           `json:"lines_only_in_b"`
}

// Cover is a covered/total count in A and B, and the % covered compared.
type Cover struct {
	CoveredA int64  `json:"covered_a"`
	TotalA   int64  `json:"total_a"`
	CoveredB int64  `json:"covered_b"`
	TotalB   int64  `json:"total_b"`
	Percent  Figure `json:"percent"`
}

func cover(st Style, ca, ta, cb, tb int64) Cover {
	return Cover{CoveredA: ca, TotalA: ta, CoveredB: cb, TotalB: tb,
		Percent: figure(st, readback.Ratio{Covered: ca, Total: ta}.Percent(), readback.Ratio{Covered: cb, Total: tb}.Percent())}
}

// GroupDiff is the coverage of one source file or routine in A and B.
type GroupDiff struct {
	Module    string   `json:"module,omitempty"`    // routines only
	File      string   `json:"source_file"`         // of a routine: the first of its overloads' files
	Namespace string   `json:"namespace,omitempty"` // routines only
	Class     string   `json:"class,omitempty"`     // routines only
	Name      string   `json:"name,omitempty"`      // routines only
	In        Presence `json:"in"`
	Cover
}

// LineState is a source line's state in one result set.
type LineState string

// The states of a line.
const (
	Absent    LineState = "absent"
	Uncovered LineState = "uncovered"
	Covered   LineState = "covered"
)

func lineState(n int64) LineState {
	switch n {
	case 0:
		return Absent
	case 1:
		return Uncovered
	}
	return Covered
}

// LineDiff is a source line whose state differs between A and B.
type LineDiff struct {
	File string    `json:"source_file"`
	Line int64     `json:"line"`
	A    LineState `json:"a"`
	B    LineState `json:"b"`
}

// coveredCase counts a LINES row (alias l) as covered.
const coveredCase = "CASE WHEN {l." + lcLines + ".COL_MARK} > 0 THEN 1 ELSE 0 END"

// Coverage compares two Light Coverage result sets (ErrIncomparable for
// another profiler).
func Coverage(ctx context.Context, r *readback.Reader, a, b int64, o Options) (*CoverageDiff, error) {
	ia, ib, err := pair(ctx, r, a, b, "light-coverage")
	if err != nil {
		return nil, err
	}
	return coverage(ctx, r, ia, ib, o)
}

func needCoverage(r *readback.Reader) error {
	for _, t := range []string{lcRoutines, lcLines, lcMetaRoutines} {
		if !r.Has(t) {
			return fmt.Errorf("compare: table %s is missing from the database", t)
		}
	}
	return nil
}

type instRatio struct {
	Inst    int64 `db:"inst"`
	Covered int64 `db:"covered"`
	Total   int64 `db:"total"`
}

type groupRow struct {
	Module    string `db:"module"`
	Namespace string `db:"namespace"`
	File      string `db:"srcfile"`
	Class     string `db:"class"`
	Name      string `db:"name"`
	CoveredA  int64  `db:"covered_a"`
	CoveredB  int64  `db:"covered_b"`
	TotalA    int64  `db:"total_a"`
	TotalB    int64  `db:"total_b"`
	InA       int64  `db:"in_a"`
	InB       int64  `db:"in_b"`
}

// routinesInner is a routine per row of both result sets (inst, module,
// namespace, class, name, srcfile, total and covered lines, ran); its
// parameters are A, B.
func routinesInner(r *readback.Reader) string {
	return `SELECT {rd.` + lcRoutines + `.INST_ID} AS inst, ` + r.RoutineIDColumns("m", lcMetaRoutines) + `,
	` + r.ExactText(`COALESCE({rd.`+lcRoutines+`.COL_SOURCE_FILE}, '')`) + ` AS srcfile,
	COALESCE(a.total, 0) AS total, COALESCE(a.covered, 0) AS covered,
	CASE WHEN {rd.` + lcRoutines + `.COL_MARK} > 0 OR a.covered > 0 THEN 1 ELSE 0 END AS ran
	FROM {rd:` + lcRoutines + `}
	LEFT JOIN (SELECT {l.` + lcLines + `.INST_ID} AS inst, {l.` + lcLines + `.PARENT_ID} AS rid, COUNT(*) AS total, SUM(` + coveredCase + `) AS covered
		FROM {l:` + lcLines + `} WHERE {l.` + lcLines + `.INST_ID} IN ({?1}, {?2})
		GROUP BY {l.` + lcLines + `.INST_ID}, {l.` + lcLines + `.PARENT_ID}) a
		ON a.inst = {rd.` + lcRoutines + `.INST_ID} AND a.rid = {rd.` + lcRoutines + `.ID}
	LEFT JOIN {m:` + lcMetaRoutines + `} ON {m.` + lcMetaRoutines + `.INST_ID} = {rd.` + lcRoutines + `.INST_ID} AND {m.` + lcMetaRoutines + `.ID} = {rd.` + lcRoutines + `.ID}
	WHERE {rd.` + lcRoutines + `.INST_ID} IN ({?1}, {?2})`
}

// filesInner is a source file per row of both result sets (inst, srcfile,
// total and covered lines of its routines); parameters A, B.
func filesInner(r *readback.Reader) string {
	file := r.ExactText(`{rd.` + lcRoutines + `.COL_SOURCE_FILE}`)
	return `SELECT {rd.` + lcRoutines + `.INST_ID} AS inst, ` + file + ` AS srcfile,
	COUNT({l.` + lcLines + `.ID}) AS total, COALESCE(SUM(` + coveredCase + `), 0) AS covered
	FROM {rd:` + lcRoutines + `} LEFT JOIN {l:` + lcLines + `} ON {l.` + lcLines + `.INST_ID} = {rd.` + lcRoutines + `.INST_ID}
		AND {l.` + lcLines + `.PARENT_ID} = {rd.` + lcRoutines + `.ID}
	WHERE {rd.` + lcRoutines + `.INST_ID} IN ({?1}, {?2}) AND {rd.` + lcRoutines + `.COL_SOURCE_FILE} IS NOT NULL
	GROUP BY {rd.` + lcRoutines + `.INST_ID}, ` + file
}

func coverage(ctx context.Context, r *readback.Reader, ia, ib readback.Instance, o Options) (*CoverageDiff, error) {
	if err := needCoverage(r); err != nil {
		return nil, err
	}
	a, b := ia.InstID, ib.InstID
	st := o.style()
	wrap := func(what string, err error) error {
		return fmt.Errorf("compare: result sets %d and %d: %s: %w", a, b, what, err)
	}
	d := &CoverageDiff{}
	// Totals, per result set.
	var lines, routines [2]instRatio
	collect := func(into *[2]instRatio) func(v *instRatio) error {
		return func(v *instRatio) error {
			if v.Inst == a {
				into[0] = *v
			}
			if v.Inst == b {
				into[1] = *v
			}
			return nil
		}
	}
	err := readback.Each(ctx, r, `SELECT {l.`+lcLines+`.INST_ID} AS inst, COUNT(*) AS total, COALESCE(SUM(`+coveredCase+`), 0) AS covered
		FROM {l:`+lcLines+`} WHERE {l.`+lcLines+`.INST_ID} IN ({?1}, {?2}) GROUP BY {l.`+lcLines+`.INST_ID}`, []any{a, b}, collect(&lines))
	if err != nil {
		return nil, wrap("lines covered", err)
	}
	err = readback.Each(ctx, r, `SELECT x.inst, COUNT(*) AS total, COALESCE(SUM(x.ran), 0) AS covered FROM (`+routinesInner(r)+`) x GROUP BY x.inst`,
		[]any{a, b}, collect(&routines))
	if err != nil {
		return nil, wrap("routines covered", err)
	}
	d.Lines = cover(st, lines[0].Covered, lines[0].Total, lines[1].Covered, lines[1].Total)
	d.Routines = cover(st, routines[0].Covered, routines[0].Total, routines[1].Covered, routines[1].Total)

	// Files and routines, by name.
	n := o.top()
	for _, g := range []struct {
		what       string
		query      string
		args       []any
		both, a, b *List[GroupDiff]
	}{
		{"source files", byName([]string{"total", "covered"}, filesInner(r), "srcfile"), []any{a, b}, &d.Files, &d.FilesOnlyA, &d.FilesOnlyB},
		{"routines", byName([]string{"total", "covered"}, routinesInner(r), "module", "namespace", "class", "name", "MIN(x.srcfile) AS srcfile"), []any{a, b},
			&d.RoutineList, &d.RoutinesOnlyA, &d.RoutinesOnlyB},
	} {
		both := newTop(n, func(x, y GroupDiff) bool {
			if dx, dy := o.key(x.Percent.Delta()), o.key(y.Percent.Delta()); dx != dy {
				return dx > dy
			}
			if dx, dy := o.key(float64(x.CoveredB-x.CoveredA)), o.key(float64(y.CoveredB-y.CoveredA)); dx != dy {
				return dx > dy
			}
			return groupLess(x, y)
		})
		biggest := func(x, y GroupDiff) bool {
			if tx, ty := max(x.TotalA, x.TotalB), max(y.TotalA, y.TotalB); tx != ty {
				return tx > ty
			}
			return groupLess(x, y)
		}
		onlyA, onlyB := newTop(n, biggest), newTop(n, biggest)
		err := readback.Each(ctx, r, g.query, g.args, func(v *groupRow) error {
			if g.what == "source files" && v.File == "" {
				return nil // a routine with no source file counts towards none
			}
			x := GroupDiff{Module: v.Module, File: v.File, Namespace: v.Namespace, Class: v.Class, Name: v.Name, In: presence(v.InA, v.InB),
				Cover: cover(st, v.CoveredA, v.TotalA, v.CoveredB, v.TotalB)}
			switch x.In {
			case Both:
				both.add(x)
			case OnlyA:
				onlyA.add(x)
			default:
				onlyB.add(x)
			}
			return nil
		})
		if err != nil {
			return nil, wrap(g.what, err)
		}
		*g.both, *g.a, *g.b = both.list(), onlyA.list(), onlyB.list()
	}

	// Lines whose state changed.
	misses, hits := firstN[LineDiff]{n: n}, firstN[LineDiff]{n: n}
	err = lineDiffs(ctx, r, a, b, func(l LineDiff) error {
		switch {
		case l.A == Covered && l.B == Uncovered:
			misses.add(l)
		case l.A == Uncovered && l.B == Covered:
			hits.add(l)
		case l.B == Absent:
			d.LinesOnlyA++
		case l.A == Absent:
			d.LinesOnlyB++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	d.NewMisses, d.NewHits = misses.list(), hits.list()
	return d, nil
}

func groupLess(x, y GroupDiff) bool {
	return nameLess(x.File, x.Module, x.Namespace, x.Class, x.Name, y.File, y.Module, y.Namespace, y.Class, y.Name)
}

// ID is a routine's identity (routines only).
func (g GroupDiff) ID() readback.RoutineID {
	return readback.RoutineID{Module: g.Module, Namespace: g.Namespace, Class: g.Class, Name: g.Name}
}

type lineRow struct {
	File string `db:"srcfile"`
	Line int64  `db:"line"`
	A    int64  `db:"a"`
	B    int64  `db:"b"`
}

// Lines streams the source lines (matched by source file and line number)
// whose state differs between Light Coverage result sets a and b: covered
// in one and not the other, or in one only. They come ordered by file and
// line; each stops the stream by returning an error, which Lines returns.
// A line is covered when any of its rows (routines) ran.
func Lines(ctx context.Context, r *readback.Reader, a, b int64, each func(LineDiff) error) error {
	if _, _, err := pair(ctx, r, a, b, "light-coverage"); err != nil {
		return err
	}
	return lineDiffs(ctx, r, a, b, each)
}

func lineDiffs(ctx context.Context, r *readback.Reader, a, b int64, each func(LineDiff) error) error {
	if err := needCoverage(r); err != nil {
		return err
	}
	file := r.ExactText(`COALESCE({rd.` + lcRoutines + `.COL_SOURCE_FILE}, '')`)
	line := `COALESCE({l.` + lcLines + `.COL_SOURCE_LINE}, 0)`
	q := `SELECT z.srcfile, z.line, z.a, z.b FROM (
		SELECT y.srcfile, y.line, SUM(CASE WHEN y.inst = {?1} THEN 1 + y.cov ELSE 0 END) AS a, SUM(CASE WHEN y.inst = {?2} THEN 1 + y.cov ELSE 0 END) AS b
		FROM (SELECT {l.` + lcLines + `.INST_ID} AS inst, ` + file + ` AS srcfile, ` + line + ` AS line, MAX(` + coveredCase + `) AS cov
			FROM {l:` + lcLines + `}
			JOIN {rd:` + lcRoutines + `} ON {rd.` + lcRoutines + `.INST_ID} = {l.` + lcLines + `.INST_ID} AND {rd.` + lcRoutines + `.ID} = {l.` + lcLines + `.PARENT_ID}
			WHERE {l.` + lcLines + `.INST_ID} IN ({?1}, {?2})
			GROUP BY {l.` + lcLines + `.INST_ID}, ` + file + `, ` + line + `) y
		GROUP BY y.srcfile, y.line) z
		WHERE z.a <> z.b ORDER BY z.srcfile, z.line`
	err := readback.Each(ctx, r, q, []any{a, b}, func(v *lineRow) error {
		return each(LineDiff{File: v.File, Line: v.Line, A: lineState(v.A), B: lineState(v.B)})
	})
	if err != nil {
		return fmt.Errorf("compare: result sets %d and %d: lines: %w", a, b, err)
	}
	return nil
}
