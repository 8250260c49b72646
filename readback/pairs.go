package readback

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/profdb/profdb/profilers/referencecount"
	"github.com/profdb/profdb/profilers/resource"
)

// The figures of two result sets side by side, matched by name in SQL
// (compare and check read them): each query reads the rows of each result
// set, aggregates them per result set and item, and groups the aggregates
// by name compared exactly (ExactText), so that one row per name comes
// back with A's and B's figures and memory does not grow with the rows.
// Names that differ only in case are two items on every dialect.
//
// Each result set is read by a branch of its own (UNION ALL) in which
// every table is joined on its INST_ID given as a parameter, never on
// another table's INST_ID column nor through INST_ID IN (A, B): so each
// join is driven by the (INST_ID, ID) or (INST_ID, PARENT_ID) index with
// both its columns known, and a planner whose statistics are stale cannot
// take the (INST_ID, ID) index for a lookup by INST_ID alone (MariaDB did,
// reading every line of a result set once per routine: 12 s for a compare
// of two 5,752-row coverage sets; docs/performance.md, "Indexes").

// branches is the derived table of both result sets' rows: inner(p) reads
// the rows of the result set whose INST_ID is the parameter p ({?1} for A,
// {?2} for B); one branch when A and B are one result set, whose rows
// must then come once.
func branches(a, b Instance, inner func(p string) string) string {
	if a.InstID == b.InstID {
		return inner("{?1}")
	}
	return inner("{?1}") + "\n\tUNION ALL\n\t" + inner("{?2}")
}

// pairQuery sums the rows of both result sets per keys (columns of x; a
// key that holds a space is an aggregate to select, not a key): x (see
// branches) has inst and the figures named in cols; it gives <col>_a,
// <col>_b, in_a and in_b. Its parameters are A ({?1}) and B ({?2}).
func pairQuery(cols []string, x string, keys ...string) string {
	var s strings.Builder
	s.WriteString("SELECT ")
	var group []string
	for _, k := range keys {
		if strings.Contains(k, " ") {
			s.WriteString(k + ", ")
			continue
		}
		s.WriteString("x." + k + ", ")
		group = append(group, "x."+k)
	}
	for _, c := range cols {
		s.WriteString("COALESCE(SUM(CASE WHEN x.inst = {?1} THEN x." + c + " END), 0) AS " + c + "_a, " +
			"COALESCE(SUM(CASE WHEN x.inst = {?2} THEN x." + c + " END), 0) AS " + c + "_b, ")
	}
	s.WriteString("MAX(CASE WHEN x.inst = {?1} THEN 1 ELSE 0 END) AS in_a, MAX(CASE WHEN x.inst = {?2} THEN 1 ELSE 0 END) AS in_b FROM (" +
		x + ") x GROUP BY " + strings.Join(group, ", "))
	return s.String()
}

// CoverPair is an item's lines (of a routine: lines; see RoutinePairs) in
// result sets A and B, and whether it is in each.
type CoverPair struct {
	A, B     Ratio
	InA, InB bool
}

// FilePair is a source file's coverage in A and B.
type FilePair struct {
	Name string
	CoverPair
}

// RoutinePair is a routine's coverage in A and B: its lines, and in Ran
// whether it ran (it or a line of it), per result set; File is the first
// of its overloads' source files.
type RoutinePair struct {
	RoutineID
	File string
	CoverPair
	RanA, RanB bool
}

type coverPairRow struct {
	Module    string `db:"module"`
	Namespace string `db:"namespace"`
	Class     string `db:"class"`
	Name      string `db:"name"`
	File      string `db:"srcfile"`
	CoveredA  int64  `db:"covered_a"`
	CoveredB  int64  `db:"covered_b"`
	TotalA    int64  `db:"total_a"`
	TotalB    int64  `db:"total_b"`
	RanA      int64  `db:"ran_a"`
	RanB      int64  `db:"ran_b"`
	InA       int64  `db:"in_a"`
	InB       int64  `db:"in_b"`
}

func (v *coverPairRow) pair() CoverPair {
	return CoverPair{A: Ratio{v.CoveredA, v.TotalA}, B: Ratio{v.CoveredB, v.TotalB}, InA: v.InA > 0, InB: v.InB > 0}
}

// coveragePair checks that a and b are Light Coverage result sets whose
// tables the database has.
func (r *Reader) coveragePair(a, b Instance) error {
	for _, in := range []Instance{a, b} {
		if err := r.need(in, lcRoutines, lcLines, lcMetaRoutines); err != nil {
			return err
		}
	}
	return nil
}

// routinesInner is a routine per row of the result set whose INST_ID is
// the parameter p (inst, module, namespace, class, name, srcfile, total
// and covered lines, ran).
func (r *Reader) routinesInner(p string) string {
	return `SELECT {rd.` + lcRoutines + `.INST_ID} AS inst, ` + r.RoutineIDColumns("m", lcMetaRoutines) + `,
	` + r.ExactText(`COALESCE({rd.`+lcRoutines+`.COL_SOURCE_FILE}, '')`) + ` AS srcfile,
	COALESCE(a.total, 0) AS total, COALESCE(a.covered, 0) AS covered,
	CASE WHEN {rd.` + lcRoutines + `.COL_MARK} > 0 OR a.covered > 0 THEN 1 ELSE 0 END AS ran
	FROM {rd:` + lcRoutines + `}
	LEFT JOIN (SELECT {l.` + lcLines + `.PARENT_ID} AS rid, COUNT(*) AS total, SUM(` + coveredCase + `) AS covered
		FROM {l:` + lcLines + `} WHERE {l.` + lcLines + `.INST_ID} = ` + p + `
		GROUP BY {l.` + lcLines + `.PARENT_ID}) a
		ON a.rid = {rd.` + lcRoutines + `.ID}
	LEFT JOIN {m:` + lcMetaRoutines + `} ON {m.` + lcMetaRoutines + `.INST_ID} = ` + p + ` AND {m.` + lcMetaRoutines + `.ID} = {rd.` + lcRoutines + `.ID}
	WHERE {rd.` + lcRoutines + `.INST_ID} = ` + p
}

// FileCoverage streams the coverage per source file of Light Coverage
// result sets a and b (a may be b), files matched by name exactly: the
// lines of the routines of the file. A file one of them lacks has 0 of 0
// lines there; a routine without a source file counts towards none. Files
// come in no particular order; each stops the stream by returning an
// error, which FileCoverage returns.
func (r *Reader) FileCoverage(ctx context.Context, a, b Instance, each func(FilePair) error) error {
	if err := r.coveragePair(a, b); err != nil {
		return err
	}
	file := r.ExactText(`{rd.` + lcRoutines + `.COL_SOURCE_FILE}`)
	inner := func(p string) string {
		return `SELECT {rd.` + lcRoutines + `.INST_ID} AS inst, ` + file + ` AS srcfile,
	COUNT({l.` + lcLines + `.ID}) AS total, COALESCE(SUM(` + coveredCase + `), 0) AS covered
	FROM {rd:` + lcRoutines + `} LEFT JOIN {l:` + lcLines + `} ON {l.` + lcLines + `.INST_ID} = ` + p + `
		AND {l.` + lcLines + `.PARENT_ID} = {rd.` + lcRoutines + `.ID}
	WHERE {rd.` + lcRoutines + `.INST_ID} = ` + p + ` AND {rd.` + lcRoutines + `.COL_SOURCE_FILE} IS NOT NULL
	GROUP BY {rd.` + lcRoutines + `.INST_ID}, ` + file
	}
	err := Each(ctx, r, pairQuery([]string{"total", "covered"}, branches(a, b, inner), "srcfile"), []any{a.InstID, b.InstID}, func(v *coverPairRow) error {
		if v.File == "" {
			return nil
		}
		return each(FilePair{Name: v.File, CoverPair: v.pair()})
	})
	if err != nil {
		return fmt.Errorf("read: result sets %d and %d: coverage by source file: %w", a.InstID, b.InstID, err)
	}
	return nil
}

// RoutineCoverage streams the coverage per routine of Light Coverage
// result sets a and b, routines matched by RoutineID (overloads of one
// identity added up), as FileCoverage streams files.
func (r *Reader) RoutineCoverage(ctx context.Context, a, b Instance, each func(RoutinePair) error) error {
	if err := r.coveragePair(a, b); err != nil {
		return err
	}
	q := pairQuery([]string{"total", "covered", "ran"}, branches(a, b, r.routinesInner), "module", "namespace", "class", "name", "MIN(x.srcfile) AS srcfile")
	err := Each(ctx, r, q, []any{a.InstID, b.InstID}, func(v *coverPairRow) error {
		return each(RoutinePair{RoutineID: RoutineID{Module: v.Module, Namespace: v.Namespace, Class: v.Class, Name: v.Name},
			File: v.File, CoverPair: v.pair(), RanA: v.RanA > 0, RanB: v.RanB > 0})
	})
	if err != nil {
		return fmt.Errorf("read: result sets %d and %d: coverage by routine: %w", a.InstID, b.InstID, err)
	}
	return nil
}

// LineState is a source line's state in one result set: absent, not
// covered (no row of it ran) or covered (a row of it, of any routine, ran).
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

// LinePair is a source line's state in A and B.
type LinePair struct {
	File string
	Line int64
	A, B LineState
}

type linePairRow struct {
	File string `db:"srcfile"`
	Line int64  `db:"line"`
	A    int64  `db:"a"`
	B    int64  `db:"b"`
}

// ChangedLines streams the source lines, matched by source file (exactly)
// and line number, whose state differs between Light Coverage result sets
// a and b, ordered by file and line; each stops the stream by returning an
// error, which ChangedLines returns.
func (r *Reader) ChangedLines(ctx context.Context, a, b Instance, each func(LinePair) error) error {
	if err := r.coveragePair(a, b); err != nil {
		return err
	}
	file := r.ExactText(`COALESCE({rd.` + lcRoutines + `.COL_SOURCE_FILE}, '')`)
	line := `COALESCE({l.` + lcLines + `.COL_SOURCE_LINE}, 0)`
	inner := func(p string) string {
		return `SELECT {l.` + lcLines + `.INST_ID} AS inst, ` + file + ` AS srcfile, ` + line + ` AS line, MAX(` + coveredCase + `) AS cov
			FROM {l:` + lcLines + `}
			JOIN {rd:` + lcRoutines + `} ON {rd.` + lcRoutines + `.INST_ID} = ` + p + ` AND {rd.` + lcRoutines + `.ID} = {l.` + lcLines + `.PARENT_ID}
			WHERE {l.` + lcLines + `.INST_ID} = ` + p + `
			GROUP BY {l.` + lcLines + `.INST_ID}, ` + file + `, ` + line
	}
	q := `SELECT z.srcfile, z.line, z.a, z.b FROM (
		SELECT y.srcfile, y.line, SUM(CASE WHEN y.inst = {?1} THEN 1 + y.cov ELSE 0 END) AS a, SUM(CASE WHEN y.inst = {?2} THEN 1 + y.cov ELSE 0 END) AS b
		FROM (` + branches(a, b, inner) + `) y
		GROUP BY y.srcfile, y.line) z
		WHERE z.a <> z.b ORDER BY z.srcfile, z.line`
	err := Each(ctx, r, q, []any{a.InstID, b.InstID}, func(v *linePairRow) error {
		return each(LinePair{File: v.File, Line: v.Line, A: lineState(v.A), B: lineState(v.B)})
	})
	if err != nil {
		return fmt.Errorf("read: result sets %d and %d: lines: %w", a.InstID, b.InstID, err)
	}
	return nil
}

// fewFiles is the most source files whose lines LinesOf selects by name in
// its query; for more it reads every line of the result set once.
const fewFiles = 32

// LinesOf streams the LINES rows of Light Coverage result set in that
// belong to the source files named exactly (every file when there are more
// than fewFiles), each with its file, line and whether it ran, in no
// particular order and not grouped: a line of several routines comes once
// per row. It is one query however many files are named, a join driven by
// the lines' INST_ID with no sort, so its time grows with the result set's
// lines once, and memory not at all. check's patch coverage reads it.
func (r *Reader) LinesOf(ctx context.Context, in Instance, files []string, each func(file string, line int64, covered bool) error) error {
	if err := r.need(in, lcRoutines, lcLines); err != nil {
		return err
	}
	const rd, l = "{rd." + lcRoutines, "{l." + lcLines
	file := r.ExactText(rd + `.COL_SOURCE_FILE}`)
	args := []any{in.InstID}
	where := ""
	if len(files) <= fewFiles {
		ps := make([]string, len(files))
		for i, f := range files {
			args = append(args, f)
			ps[i] = "{?" + strconv.Itoa(i+2) + "}"
		}
		where = ` AND ` + file + ` IN (` + strings.Join(ps, ", ") + `)`
	}
	var f string
	var line, cov int64
	err := r.rows(ctx, `SELECT `+rd+`.COL_SOURCE_FILE}, `+l+`.COL_SOURCE_LINE}, `+coveredCase+`
		FROM {l:`+lcLines+`} JOIN {rd:`+lcRoutines+`} ON `+rd+`.INST_ID} = {?1} AND `+rd+`.ID} = `+l+`.PARENT_ID}
		WHERE `+l+`.INST_ID} = {?1} AND `+rd+`.COL_SOURCE_FILE} IS NOT NULL AND `+l+`.COL_SOURCE_LINE} IS NOT NULL`+where,
		args, func(rows *sqlx.Rows) error {
			if err := rows.Scan(&f, &line, &cov); err != nil {
				return fmt.Errorf("scan: %w", err)
			}
			return each(f, line, cov > 0)
		})
	if err != nil {
		return fmt.Errorf("read: result set %d: lines of the named files: %w", in.InstID, err)
	}
	return nil
}

// SourceFiles streams the distinct source file names of Light Coverage
// result set in's routines, distinct exactly.
func (r *Reader) SourceFiles(ctx context.Context, in Instance, each func(string) error) error {
	if err := r.need(in, lcRoutines); err != nil {
		return err
	}
	const rd = "{rd." + lcRoutines
	file := r.ExactText(rd + `.COL_SOURCE_FILE}`)
	var name string
	err := r.rows(ctx, `SELECT DISTINCT `+file+` FROM {rd:`+lcRoutines+`}
		WHERE `+rd+`.INST_ID} = {?1} AND `+rd+`.COL_SOURCE_FILE} IS NOT NULL`, []any{in.InstID},
		func(rows *sqlx.Rows) error {
			if err := rows.Scan(&name); err != nil {
				return fmt.Errorf("scan: %w", err)
			}
			return each(name)
		})
	if err != nil {
		return fmt.Errorf("read: result set %d: source files: %w", in.InstID, err)
	}
	return nil
}

// ClassPair is a class's figures in A and B (Resource or Reference Count),
// matched by module and name exactly.
type ClassPair struct {
	Module      string
	Name        string
	InA, InB    bool
	LiveCount   [2]float64
	LiveSize    [2]float64
	PeakCreated [2]float64
	PeakSize    [2]float64
}

type classPairRow struct {
	Module       string  `db:"module"`
	Name         string  `db:"name"`
	LiveCountA   float64 `db:"live_count_a"`
	LiveCountB   float64 `db:"live_count_b"`
	LiveSizeA    float64 `db:"live_size_a"`
	LiveSizeB    float64 `db:"live_size_b"`
	PeakCreatedA float64 `db:"peak_created_a"`
	PeakCreatedB float64 `db:"peak_created_b"`
	PeakSizeA    float64 `db:"peak_size_a"`
	PeakSizeB    float64 `db:"peak_size_b"`
	InA          int64   `db:"in_a"`
	InB          int64   `db:"in_b"`
}

// classTable is the CLASSES_DATA table of a profiler with classes.
func classTable(profiler string) (string, bool) {
	switch profiler {
	case resource.Name:
		return rsClasses, true
	case referencecount.Name:
		return rcClasses, true
	}
	return "", false
}

// ClassCompare streams the classes of two Resource or two Reference Count
// result sets (CLASSES_DATA) side by side, matched by module and name
// exactly, in no particular order.
func (r *Reader) ClassCompare(ctx context.Context, a, b Instance, each func(ClassPair) error) error {
	t, ok := classTable(a.Profiler)
	if !ok {
		return fmt.Errorf("read: result set %d: profiler %s has no classes", a.InstID, a.Profiler)
	}
	for _, in := range []Instance{a, b} {
		if err := r.need(in, t); err != nil {
			return err
		}
	}
	col := func(c, as string) string { return "{c." + t + "." + c + "} AS " + as }
	inner := func(p string) string {
		return `SELECT {c.` + t + `.INST_ID} AS inst, ` + r.ExactText(`COALESCE({c.`+t+`.COL_MODULE_NAME}, '')`) + ` AS module,
		` + r.ExactText(`COALESCE({c.`+t+`.COL_CLASS_NAME}, '')`) + ` AS name, ` +
			col("COL_LIVE_COUNT", "live_count") + ", " + col("COL_LIVE_SIZE", "live_size") + ", " +
			col("COL_PEAK_CREATED", "peak_created") + ", " + col("COL_PEAK_SIZE", "peak_size") + `
		FROM {c:` + t + `} WHERE {c.` + t + `.INST_ID} = ` + p
	}
	cols := []string{"live_count", "live_size", "peak_created", "peak_size"}
	err := Each(ctx, r, pairQuery(cols, branches(a, b, inner), "module", "name"), []any{a.InstID, b.InstID}, func(v *classPairRow) error {
		return each(ClassPair{Module: v.Module, Name: v.Name, InA: v.InA > 0, InB: v.InB > 0,
			LiveCount: [2]float64{v.LiveCountA, v.LiveCountB}, LiveSize: [2]float64{v.LiveSizeA, v.LiveSizeB},
			PeakCreated: [2]float64{v.PeakCreatedA, v.PeakCreatedB}, PeakSize: [2]float64{v.PeakSizeA, v.PeakSizeB}})
	})
	if err != nil {
		return fmt.Errorf("read: result sets %d and %d: classes: %w", a.InstID, b.InstID, err)
	}
	return nil
}
