package readback

import (
	"context"
	"database/sql"
	"fmt"
)

// Coverage is the summary of a Light Coverage result set.
type Coverage struct {
	Lines    Ratio            `json:"lines"`
	Routines Ratio            `json:"routines"`
	Modules  List[Group]      `json:"modules"`      // worst covered first
	Files    List[Group]      `json:"source_files"` // worst covered first
	Least    List[RoutineCov] `json:"least_covered_routines"`
}

// Group is the coverage of a module or source file: the lines of its
// routines.
type Group struct {
	Name    string  `json:"name"`
	Covered int64   `json:"covered"`
	Total   int64   `json:"total"`
	Percent float64 `json:"percent"`
}

// RoutineCov is the coverage of one routine.
type RoutineCov struct {
	Name    string  `json:"name" db:"name"`
	Class   string  `json:"class,omitempty" db:"class"`
	File    string  `json:"source_file" db:"source_file"`
	Covered int64   `json:"covered" db:"covered"`
	Total   int64   `json:"total" db:"total"`
	Percent float64 `json:"percent" db:"-"`
}

// coveredCase counts a LINES row (alias l) as covered.
const coveredCase = "CASE WHEN {l." + lcLines + ".COL_MARK} > 0 THEN 1 ELSE 0 END"

func (r *Reader) coverage(ctx context.Context, in Instance, o Options) (*Coverage, error) {
	if err := r.need(in, lcRoutines, lcLines, lcMetaRoutines); err != nil {
		return nil, err
	}
	c := &Coverage{}
	wrap := func(what string, err error) error {
		return fmt.Errorf("read: result set %d: %s: %w", in.InstID, what, err)
	}
	var err error
	if c.Lines, err = r.LineCoverage(ctx, in); err != nil {
		return nil, err
	}
	if c.Routines, err = r.RoutinesCovered(ctx, in); err != nil {
		return nil, err
	}
	if c.Modules, err = r.groups(ctx, in.InstID, "COL_MODULE_NAME", o.top()); err != nil {
		return nil, wrap("coverage by module", err)
	}
	files := NewTop(o.top(), groupBefore)
	err = r.FileCoverage(ctx, in, in, func(f FilePair) error {
		files.Add(Group{Name: f.Name, Covered: f.A.Covered, Total: f.A.Total, Percent: f.A.Percent()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.Files = files.List()
	// Least covered routines first; of equally covered ones, the longest.
	c.Least, err = top[RoutineCov](ctx, r, in.InstID, o.top(), `SELECT
		COALESCE({m.`+lcMetaRoutines+`.COL_ROUTINE_NAME}, '') AS name, COALESCE({m.`+lcMetaRoutines+`.COL_CLASS_NAME}, '') AS class,
		COALESCE({rd.`+lcRoutines+`.COL_SOURCE_FILE}, '') AS source_file, a.total, a.covered
		FROM (SELECT {l.`+lcLines+`.PARENT_ID} AS rid, COUNT(*) AS total, SUM(`+coveredCase+`) AS covered
			FROM {l:`+lcLines+`} WHERE {l.`+lcLines+`.INST_ID} = {?} GROUP BY {l.`+lcLines+`.PARENT_ID}) a
		JOIN {rd:`+lcRoutines+`} ON {rd.`+lcRoutines+`.INST_ID} = {?} AND {rd.`+lcRoutines+`.ID} = a.rid
		LEFT JOIN {m:`+lcMetaRoutines+`} ON {m.`+lcMetaRoutines+`.INST_ID} = {?} AND {m.`+lcMetaRoutines+`.ID} = a.rid
		ORDER BY a.covered * 1.0 / a.total, a.total DESC, a.rid`)
	if err != nil {
		return nil, wrap("least covered routines", err)
	}
	for i := range c.Least.Items {
		x := &c.Least.Items[i]
		x.Percent = Ratio{x.Covered, x.Total}.Percent()
	}
	return c, nil
}

type groupRow struct {
	Name    sql.NullString `db:"name"`
	Covered int64          `db:"covered"`
	Total   int64          `db:"total"`
}

// groupBefore orders groups worst covered first; of equally covered
// ones, the largest first.
func groupBefore(a, b Group) bool {
	if a.Percent != b.Percent {
		return a.Percent < b.Percent
	}
	if a.Total != b.Total {
		return a.Total > b.Total
	}
	return a.Name < b.Name
}

// groups aggregates the lines of the routines by a ROUTINES_DATA column
// (module), compared exactly, worst covered first, keeping the first n.
// Routines with no module count towards none.
func (r *Reader) groups(ctx context.Context, inst int64, col string, n int) (List[Group], error) {
	all := NewTop(n, groupBefore)
	name := r.ExactText(`{rd.` + lcRoutines + `.` + col + `}`)
	err := query(ctx, r, inst, `SELECT `+name+` AS name, COUNT({l.`+lcLines+`.ID}) AS total,
		COALESCE(SUM(`+coveredCase+`), 0) AS covered
		FROM {rd:`+lcRoutines+`} LEFT JOIN {l:`+lcLines+`} ON {l.`+lcLines+`.INST_ID} = {?}
			AND {l.`+lcLines+`.PARENT_ID} = {rd.`+lcRoutines+`.ID}
		WHERE {rd.`+lcRoutines+`.INST_ID} = {?} AND {rd.`+lcRoutines+`.`+col+`} IS NOT NULL
		GROUP BY `+name,
		func(v *groupRow) bool {
			if v.Name.String != "" {
				all.Add(Group{Name: v.Name.String, Covered: v.Covered, Total: v.Total, Percent: Ratio{v.Covered, v.Total}.Percent()})
			}
			return true
		})
	if err != nil {
		return List[Group]{}, err
	}
	return all.List(), nil
}

// lineCoverageSQL counts the lines of a Light Coverage result set (its
// LINES rows) and those that ran, as total and covered; linesByInstSQL
// counts them for each of several (FiguresOf).
var lineCoverageSQL = aggregateSQL(linesAggregates, "{l:"+lcLines+"}", "{l."+lcLines+".INST_ID}", "")

func linesByInstSQL(list string) string {
	return aggregateSQL(linesAggregates, "{l:"+lcLines+"}", "{l."+lcLines+".INST_ID}", list)
}

const linesAggregates = `COUNT(*) AS total, COALESCE(SUM(` + coveredCase + `), 0) AS covered`

// routinesCoveredSQL counts the routines of a Light Coverage result set
// (its ROUTINES_DATA rows) and those covered, as total and covered: a
// routine is covered when it ran (COL_MARK) or a line of it ran. The
// subquery names the INST_ID itself, not through rd: Citus then plans the
// query on the one shard that holds the result set (docs/clusters.md,
// "Citus"). routinesByInstSQL counts them for each of several result sets,
// the subquery's INST_ID that of rd (FiguresOf, not on Citus).
var routinesCoveredSQL = aggregateSQL(routinesAggregates("{?}"), "{rd:"+lcRoutines+"}", "{rd."+lcRoutines+".INST_ID}", "")

func routinesByInstSQL(list string) string {
	return aggregateSQL(routinesAggregates("{rd."+lcRoutines+".INST_ID}"), "{rd:"+lcRoutines+"}", "{rd."+lcRoutines+".INST_ID}", list)
}

// routinesAggregates are routinesCoveredSQL's figures, inst the INST_ID
// its subquery reads the lines of.
func routinesAggregates(inst string) string {
	return `COUNT(*) AS total, COALESCE(SUM(CASE WHEN {rd.` + lcRoutines + `.COL_MARK} > 0
	OR EXISTS (SELECT 1 FROM {l:` + lcLines + `} WHERE {l.` + lcLines + `.INST_ID} = ` + inst + `
		AND {l.` + lcLines + `.PARENT_ID} = {rd.` + lcRoutines + `.ID} AND {l.` + lcLines + `.COL_MARK} > 0)
	THEN 1 ELSE 0 END), 0) AS covered`
}

// aggregateSQL is the query template of figures (aggregates, as a select
// list) over the rows of from whose INST_ID (the column inst) is a result
// set's: of one, {?}, when list is "", else of each INST_ID list names
// ("{?1}, {?2}"), as a row each with the INST_ID as inst. The figures of
// one result set and of several are so read by one text.
func aggregateSQL(aggregates, from, inst, list string) string {
	if list == "" {
		return "SELECT " + aggregates + " FROM " + from + " WHERE " + inst + " = {?}"
	}
	return "SELECT " + inst + " AS inst, " + aggregates + " FROM " + from + " WHERE " + inst + " IN (" + list + ") GROUP BY " + inst
}

// LineCoverage reads the lines of Light Coverage result set in (its LINES
// rows) and how many of them ran: the line coverage show prints, compare
// compares and check's min-coverage and max-drop rules hold to a limit.
func (r *Reader) LineCoverage(ctx context.Context, in Instance) (Ratio, error) {
	var c Ratio
	if err := r.need(in, lcLines); err != nil {
		return c, err
	}
	err := query(ctx, r, in.InstID, lineCoverageSQL, func(v *Ratio) bool { c = *v; return false })
	if err != nil {
		return c, fmt.Errorf("read: result set %d: lines covered: %w", in.InstID, err)
	}
	return c, nil
}

// RoutinesCovered reads the routines of Light Coverage result set in (its
// ROUTINES_DATA rows) and how many of them are covered: a routine is
// covered when it ran (COL_MARK) or a line of it ran.
func (r *Reader) RoutinesCovered(ctx context.Context, in Instance) (Ratio, error) {
	var c Ratio
	if err := r.need(in, lcRoutines, lcLines); err != nil {
		return c, err
	}
	err := query(ctx, r, in.InstID, routinesCoveredSQL, func(v *Ratio) bool { c = *v; return false })
	if err != nil {
		return c, fmt.Errorf("read: result set %d: routines covered: %w", in.InstID, err)
	}
	return c, nil
}

// Line is one source line of a Light Coverage result set.
type Line struct {
	File    string  `json:"source_file" db:"source_file"`
	Line    int64   `json:"line" db:"line"`
	Count   NullDec `json:"count" db:"count"` // times it ran (the largest of its routines' counts)
	Routine string  `json:"routine" db:"routine"`
}

// Lines streams the lines of a Light Coverage result set ordered by source
// file and line, calling each until it returns false. uncoveredOnly keeps
// the lines that did not run.
func (r *Reader) Lines(ctx context.Context, in Instance, uncoveredOnly bool, each func(Line) bool) error {
	if err := r.need(in, lcRoutines, lcLines, lcMetaRoutines); err != nil {
		return err
	}
	where := ""
	if uncoveredOnly {
		where = " AND ({l." + lcLines + ".COL_MARK} IS NULL OR {l." + lcLines + ".COL_MARK} <= 0)"
	}
	err := query(ctx, r, in.InstID, `SELECT COALESCE({rd.`+lcRoutines+`.COL_SOURCE_FILE}, '') AS source_file,
		COALESCE({l.`+lcLines+`.COL_SOURCE_LINE}, 0) AS line, {l.`+lcLines+`.COL_MARK} AS count,
		COALESCE({m.`+lcMetaRoutines+`.COL_ROUTINE_NAME}, '') AS routine
		FROM {l:`+lcLines+`}
		JOIN {rd:`+lcRoutines+`} ON {rd.`+lcRoutines+`.INST_ID} = {?} AND {rd.`+lcRoutines+`.ID} = {l.`+lcLines+`.PARENT_ID}
		LEFT JOIN {m:`+lcMetaRoutines+`} ON {m.`+lcMetaRoutines+`.INST_ID} = {?} AND {m.`+lcMetaRoutines+`.ID} = {l.`+lcLines+`.PARENT_ID}
		WHERE {l.`+lcLines+`.INST_ID} = {?}`+where+`
		ORDER BY {rd.`+lcRoutines+`.COL_SOURCE_FILE}, {l.`+lcLines+`.COL_SOURCE_LINE}`,
		func(v *Line) bool { return each(*v) })
	if err != nil {
		return fmt.Errorf("read: result set %d: lines: %w", in.InstID, err)
	}
	return nil
}
