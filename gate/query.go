package gate

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/profdb/profdb/readback"
)

// Tables the figures are read from.
const (
	lcRoutines = "LIGHT_COVERAGE_PROFILER_ROUTINES_DATA"
	lcLines    = "LIGHT_COVERAGE_PROFILER_LINES"
	ftMeta     = "FUNCTION_TRACE_PROFILER_META_ROUTINES"
	ftCalls    = "FUNCTION_TRACE_PROFILER_CALL_TRACE"
)

// covered is 1 for a LINES row (alias l) that ran, else 0.
const covered = "CASE WHEN {l." + lcLines + ".COL_MARK} > 0 THEN 1 ELSE 0 END"

// need checks that the database has the tables a rule reads.
func need(r *readback.Reader, in readback.Instance, tables ...string) error {
	for _, t := range tables {
		if !r.Has(t) {
			return fmt.Errorf("result set %d (%s): table %s is missing from the database", in.InstID, in.Profiler, t)
		}
	}
	return nil
}

// lineCoverage reads the lines and covered lines of a Light Coverage
// result set (LINES rows, as `profdb show` counts them).
func lineCoverage(ctx context.Context, r *readback.Reader, inst int64) (readback.Ratio, error) {
	var c readback.Ratio
	err := r.Query(ctx, `SELECT COUNT(*), COALESCE(SUM(`+covered+`), 0)
		FROM {l:`+lcLines+`} WHERE {l.`+lcLines+`.INST_ID} = {?1}`, []any{inst},
		func(rows *sql.Rows) error { return rows.Scan(&c.Total, &c.Covered) })
	if err != nil {
		return c, fmt.Errorf("result set %d: line coverage: %w", inst, err)
	}
	return c, nil
}

// fileCoverage streams the coverage per source file of result sets a and
// b, matched by file name; a file one of them lacks has 0 of 0 lines
// there. Files come in no particular order.
func fileCoverage(ctx context.Context, r *readback.Reader, a, b int64, each func(name string, a, b readback.Ratio) error) error {
	const rd, l = "{rd." + lcRoutines, "{l." + lcLines
	err := r.Query(ctx, `SELECT `+rd+`.COL_SOURCE_FILE},
		SUM(CASE WHEN `+rd+`.INST_ID} = {?1} THEN 1 ELSE 0 END),
		SUM(CASE WHEN `+rd+`.INST_ID} = {?1} AND `+l+`.COL_MARK} > 0 THEN 1 ELSE 0 END),
		SUM(CASE WHEN `+rd+`.INST_ID} = {?2} THEN 1 ELSE 0 END),
		SUM(CASE WHEN `+rd+`.INST_ID} = {?2} AND `+l+`.COL_MARK} > 0 THEN 1 ELSE 0 END)
		FROM {rd:`+lcRoutines+`} JOIN {l:`+lcLines+`} ON `+l+`.INST_ID} = `+rd+`.INST_ID} AND `+l+`.PARENT_ID} = `+rd+`.ID}
		WHERE `+rd+`.INST_ID} IN ({?1}, {?2}) AND `+rd+`.COL_SOURCE_FILE} IS NOT NULL
		GROUP BY `+rd+`.COL_SOURCE_FILE}`, []any{a, b},
		func(rows *sql.Rows) error {
			var name string
			var ca, cb readback.Ratio
			if err := rows.Scan(&name, &ca.Total, &ca.Covered, &cb.Total, &cb.Covered); err != nil {
				return fmt.Errorf("scan: %w", err)
			}
			return each(name, ca, cb)
		})
	if err != nil {
		return fmt.Errorf("result sets %d and %d: coverage by file: %w", a, b, err)
	}
	return nil
}

// sourceFiles streams the distinct source file names of a Light Coverage
// result set's routines that have lines.
func sourceFiles(ctx context.Context, r *readback.Reader, inst int64, each func(string)) error {
	const rd = "{rd." + lcRoutines
	err := r.Query(ctx, `SELECT DISTINCT `+rd+`.COL_SOURCE_FILE} FROM {rd:`+lcRoutines+`}
		WHERE `+rd+`.INST_ID} = {?1} AND `+rd+`.COL_SOURCE_FILE} IS NOT NULL`, []any{inst},
		func(rows *sql.Rows) error {
			var name string
			if err := rows.Scan(&name); err != nil {
				return fmt.Errorf("scan: %w", err)
			}
			each(name)
			return nil
		})
	if err != nil {
		return fmt.Errorf("result set %d: source files: %w", inst, err)
	}
	return nil
}

// fewFiles is the most source files whose lines changedLines selects by
// name in its query; for more it reads every line of the result set once.
const fewFiles = 32

// changedLines streams the LINES rows of a Light Coverage result set that
// belong to the source files named (every file when there are more than
// fewFiles), each with its file, line and whether it ran, in no particular
// order and not grouped: a line of several routines comes once per row. It
// is one query however many files a diff names, a join driven by the
// lines' INST_ID with no sort, so its time grows with the result set's
// lines once, and memory not at all.
func changedLines(ctx context.Context, r *readback.Reader, inst int64, files []string, each func(file string, line int64, covered bool) error) error {
	const rd, l = "{rd." + lcRoutines, "{l." + lcLines
	args := []any{inst}
	where := ""
	if len(files) <= fewFiles {
		ps := make([]string, len(files))
		for i, f := range files {
			args = append(args, f)
			ps[i] = "{?" + strconv.Itoa(i+2) + "}"
		}
		where = ` AND ` + rd + `.COL_SOURCE_FILE} IN (` + strings.Join(ps, ", ") + `)`
	}
	err := r.Query(ctx, `SELECT `+rd+`.COL_SOURCE_FILE}, `+l+`.COL_SOURCE_LINE}, `+covered+`
		FROM {l:`+lcLines+`} JOIN {rd:`+lcRoutines+`} ON `+rd+`.INST_ID} = `+l+`.INST_ID} AND `+rd+`.ID} = `+l+`.PARENT_ID}
		WHERE `+l+`.INST_ID} = {?1} AND `+rd+`.COL_SOURCE_FILE} IS NOT NULL AND `+l+`.COL_SOURCE_LINE} IS NOT NULL`+where,
		args, func(rows *sql.Rows) error {
			var file string
			var line, cov int64
			if err := rows.Scan(&file, &line, &cov); err != nil {
				return fmt.Errorf("scan: %w", err)
			}
			return each(file, line, cov > 0)
		})
	if err != nil {
		return fmt.Errorf("result set %d: lines of the changed files: %w", inst, err)
	}
	return nil
}

// traceTotal reads the total time of a Function Trace result set: the time
// with children of its top-level calls, as `profdb show` counts it.
func traceTotal(ctx context.Context, r *readback.Reader, inst int64) (int64, error) {
	const c = "{c." + ftCalls
	var total int64
	err := r.Query(ctx, `SELECT COALESCE(SUM(`+c+`.COL__S_WITH_CHILDREN}), 0) FROM {c:`+ftCalls+`}
		WHERE `+c+`.INST_ID} = {?1} AND `+c+`.COL_PARENT_NO} = -1`, []any{inst},
		func(rows *sql.Rows) error { return rows.Scan(&total) })
	if err != nil {
		return 0, fmt.Errorf("result set %d: total time: %w", inst, err)
	}
	return total, nil
}

// routineTimes streams the own time per routine of Function Trace result
// sets a and b, routines matched by readback.RoutineID (module, namespace,
// class and name, as compare matches them); a routine one of them lacks
// has no time there. CALL_TRACE is first summed per result set and routine
// ID, so the join with META_ROUTINES (which has no index on REC_ID) is over
// one row per routine, not one per call.
func routineTimes(ctx context.Context, r *readback.Reader, a, b int64, each func(k readback.RoutineID, ownA, ownB int64) error) error {
	const c, m = "{c." + ftCalls, "{m." + ftMeta
	err := r.Query(ctx, `SELECT x.module, x.namespace, x.class, x.name,
		COALESCE(SUM(CASE WHEN x.inst = {?1} THEN x.own ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN x.inst = {?2} THEN x.own ELSE 0 END), 0)
		FROM (SELECT t.inst, t.own, `+r.RoutineIDColumns("m", ftMeta)+`
			FROM (SELECT `+c+`.INST_ID} AS inst, `+c+`.COL_ROUTINE_NAME} AS rid, SUM(`+c+`.COL__S}) AS own
				FROM {c:`+ftCalls+`} WHERE `+c+`.INST_ID} IN ({?1}, {?2})
				GROUP BY `+c+`.INST_ID}, `+c+`.COL_ROUTINE_NAME}) t
			LEFT JOIN {m:`+ftMeta+`} ON `+m+`.INST_ID} = t.inst AND `+m+`.REC_ID} = t.rid) x
		GROUP BY x.module, x.namespace, x.class, x.name`, []any{a, b},
		func(rows *sql.Rows) error {
			var k readback.RoutineID
			var oa, ob int64
			if err := rows.Scan(&k.Module, &k.Namespace, &k.Class, &k.Name, &oa, &ob); err != nil {
				return fmt.Errorf("scan: %w", err)
			}
			return each(k, oa, ob)
		})
	if err != nil {
		return fmt.Errorf("result sets %d and %d: time by routine: %w", a, b, err)
	}
	return nil
}
