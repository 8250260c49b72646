package readback

import (
	"context"
	"fmt"

	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/profilers/referencecount"
	"github.com/profdb/profdb/profilers/resource"
	"github.com/profdb/profdb/store"
)

// Figures are the headline figures of one result set, the ones Summarize
// reads for show, without its lists: exactly the fields of the result
// set's profiler are set. They cost a few queries driven by the INST_ID,
// so that trend can read them for a hundred result sets at once.
type Figures struct {
	// Light Coverage: Coverage.Lines and Coverage.Routines.
	Lines    *Ratio `json:"lines,omitempty"`
	Routines *Ratio `json:"routines,omitempty"`
	// Function Trace: Trace.TotalTime and Trace.Calls, in the counter's
	// ticks (Frequency per second when known, else 0).
	TotalTime *int64  `json:"total_time,omitempty"`
	Calls     *int64  `json:"calls,omitempty"`
	Frequency float64 `json:"frequency,omitempty"`
	Counter   string  `json:"counter,omitempty"`
	// Resource: Resource.LiveCount and Resource.LiveSize.
	LiveCount *NullDec `json:"live_count,omitempty"`
	LiveSize  *NullDec `json:"live_size,omitempty"`
	// Reference Count: ReferenceCount.Objects.Total and
	// ReferenceCount.Alive.Total.
	Objects *int64 `json:"objects,omitempty"`
	Alive   *int64 `json:"alive_at_the_end,omitempty"`
}

// Figures reads the headline figures of result set in.
func (r *Reader) Figures(ctx context.Context, in Instance) (*Figures, error) {
	f := &Figures{}
	switch in.Profiler {
	case lightcoverage.Name:
		if err := r.need(in, lcRoutines, lcLines, lcMetaRoutines); err != nil {
			return nil, err
		}
		// LineCoverage's and RoutinesCovered's queries side by side, in
		// one round trip.
		var v coverageFigures
		err := query(ctx, r, in.InstID, `SELECT x.total AS lines_total, x.covered AS lines_covered,
			y.total AS routines_total, y.covered AS routines_covered
			FROM (`+lineCoverageSQL+`) x CROSS JOIN (`+routinesCoveredSQL+`) y`,
			func(row *coverageFigures) bool { v = *row; return false })
		if err != nil {
			return nil, fmt.Errorf("read: result set %d: coverage: %w", in.InstID, err)
		}
		f.Lines = &Ratio{Covered: v.LinesCovered, Total: v.LinesTotal}
		f.Routines = &Ratio{Covered: v.RoutinesCovered, Total: v.RoutinesTotal}
	case functiontrace.Name:
		if err := r.need(in, ftRoutines, ftMetaRoutines, ftThreads, ftCallTrace); err != nil {
			return nil, err
		}
		v, err := r.traceFigures(ctx, in.InstID)
		if err != nil {
			return nil, err
		}
		f.TotalTime, f.Calls = &v.Total, &v.Calls
		f.Frequency, f.Counter = in.CounterFrequency.Float(), in.CounterName
	case resource.Name:
		if err := r.need(in, rsClasses, rsObjects, rsCreation, rsMetaRoutines, rsErrors); err != nil {
			return nil, err
		}
		n, size, err := r.classTotals(ctx, rsClasses, in.InstID)
		if err != nil {
			return nil, fmt.Errorf("read: result set %d: live objects: %w", in.InstID, err)
		}
		f.LiveCount, f.LiveSize = &n, &size
	case referencecount.Name:
		if err := r.need(in, rcClasses, rcObjects, rcMetaClasses); err != nil {
			return nil, err
		}
		objects, alive, err := r.refObjects(ctx, in.InstID)
		if err != nil {
			return nil, fmt.Errorf("read: result set %d: objects: %w", in.InstID, err)
		}
		f.Objects, f.Alive = &objects, &alive
	default:
		return nil, fmt.Errorf("read: result set %d: profiler %s has no summary in this build", in.InstID, in.Profiler)
	}
	return f, nil
}

// traceFigures is a row of traceFiguresSQL.
type traceFigures struct {
	Calls int64 `db:"calls"`
	Total int64 `db:"total"`
}

// traceFigures reads the calls and total time of Function Trace result
// set inst (traceFiguresSQL): the one place they are computed, for show
// (Trace), check (TotalTime) and trend (Figures).
func (r *Reader) traceFigures(ctx context.Context, inst int64) (traceFigures, error) {
	var v traceFigures
	err := query(ctx, r, inst, traceFiguresSQL, func(row *traceFigures) bool { v = *row; return false })
	if err != nil {
		return v, fmt.Errorf("read: result set %d: total time and calls: %w", inst, err)
	}
	return v, nil
}

// traceFiguresSQL reads a Function Trace result set's calls (Calls: per
// routine of CALL_TRACE, its ROUTINES row's hit count, else its calls
// counted, as routineTimes reads them, added up) and total time
// (TotalTime: the time with children of the calls with no caller, over
// every thread) in one pass over its CALL_TRACE rows, without the
// routines' names that routineTimes joins for show.
// traceFiguresOf reads them for each of several result sets.
var traceFiguresSQL = traceFiguresOf("")

// traceFiguresOf is traceFiguresSQL of one result set (list "") or of each
// that list names (aggregateSQL).
func traceFiguresOf(list string) string {
	ct := func(col string) string { return "{c." + ftCallTrace + "." + col + "}" }
	rid := "COALESCE(" + ct("COL_ROUTINE_NAME") + ", -1)"
	inner := rid + " AS rid, COUNT(*) AS n, SUM(CASE WHEN " + ct("COL_PARENT_NO") + " = -1 THEN " + ct("COL__S_WITH_CHILDREN") + " ELSE 0 END) AS roots FROM {c:" + ftCallTrace + "}"
	figures := "COALESCE(SUM(COALESCE({rt." + ftRoutines + ".COL_HIT_COUNT}, a.n)), 0) AS calls, COALESCE(SUM(a.roots), 0) AS total"
	if list == "" {
		return "SELECT " + figures + " FROM (SELECT " + inner + " WHERE " + ct("INST_ID") + " = {?} GROUP BY " + rid + `) a
	LEFT JOIN {rt:` + ftRoutines + "} ON {rt." + ftRoutines + ".INST_ID} = {?} AND {rt." + ftRoutines + ".REC_ID} = a.rid"
	}
	return "SELECT a.inst AS inst, " + figures + " FROM (SELECT " + ct("INST_ID") + " AS inst, " + inner + " WHERE " + ct("INST_ID") + " IN (" + list + ") GROUP BY " + ct("INST_ID") + ", " + rid + `) a
	LEFT JOIN {rt:` + ftRoutines + "} ON {rt." + ftRoutines + ".INST_ID} = a.inst AND {rt." + ftRoutines + ".REC_ID} = a.rid GROUP BY a.inst"
}

// LiveObjects reads the live count and live size over every class of a
// Resource or Reference Count result set (its CLASSES_DATA): for a
// Resource result set, show's live objects and trend's (Figures); compare
// reads both sides' totals here.
func (r *Reader) LiveObjects(ctx context.Context, in Instance) (count, size NullDec, err error) {
	t, ok := classTable(in.Profiler)
	if !ok {
		return "", "", fmt.Errorf("read: result set %d: profiler %s has no classes", in.InstID, in.Profiler)
	}
	if err := r.need(in, t); err != nil {
		return "", "", err
	}
	count, size, err = r.classTotals(ctx, t, in.InstID)
	if err != nil {
		return "", "", fmt.Errorf("read: result set %d: live objects: %w", in.InstID, err)
	}
	return count, size, nil
}

// classTotals sums COL_LIVE_COUNT and COL_LIVE_SIZE of the CLASSES_DATA
// table t for result set inst: the one place live objects are computed
// (classTotalsByInstSQL).
func (r *Reader) classTotals(ctx context.Context, t string, inst int64) (count, size NullDec, err error) {
	err = query(ctx, r, inst, classTotalsByInstSQL(t, ""),
		func(v *ClassFigures) bool { count, size = v.LiveCount, v.LiveSize; return false })
	return count, size, err
}

// classTotalsByInstSQL is the live count and size of a result set in the
// CLASSES_DATA table t: of one (list "") or of each that list names
// (aggregateSQL).
func classTotalsByInstSQL(t, list string) string {
	return aggregateSQL(`COALESCE(SUM({c.`+t+`.COL_LIVE_COUNT}), 0) AS live_count,
		COALESCE(SUM({c.`+t+`.COL_LIVE_SIZE}), 0) AS live_size`, `{c:`+t+`}`, `{c.`+t+`.INST_ID}`, list)
}

// refObjects counts the objects of a Reference Count result set, and those
// with live references at the end: the totals of show's object lists.
func (r *Reader) refObjects(ctx context.Context, inst int64) (objects, alive int64, err error) {
	var v refCounts
	err = query(ctx, r, inst, refObjectsByInstSQL(""), func(x *refCounts) bool { v = *x; return false })
	return v.Objects, v.Alive, err
}

// refObjectsByInstSQL counts the objects of a Reference Count result set
// and those alive at the end: of one (list "") or of each that list names
// (aggregateSQL), its classes joined by the INST_ID given or the object's.
func refObjectsByInstSQL(list string) string {
	inst := "{?}"
	if list != "" {
		inst = "{o." + rcObjects + ".INST_ID}"
	}
	return aggregateSQL(`COUNT(*) AS objects,
		COALESCE(SUM(CASE WHEN {o.`+rcObjects+`.COL_LIVE_REFERENCES} > 0 THEN 1 ELSE 0 END), 0) AS alive`,
		`{o:`+rcObjects+`} LEFT JOIN {c:`+rcMetaClasses+`} ON {c.`+rcMetaClasses+`.INST_ID} = `+inst+`
			AND {c.`+rcMetaClasses+`.REC_ID} = {o.`+rcObjects+`.COL_CLASSRID}`, `{o.`+rcObjects+`.INST_ID}`, list)
}

type coverageFigures struct {
	LinesTotal      int64 `db:"lines_total"`
	LinesCovered    int64 `db:"lines_covered"`
	RoutinesTotal   int64 `db:"routines_total"`
	RoutinesCovered int64 `db:"routines_covered"`
}

type refCounts struct {
	Objects int64 `db:"objects"`
	Alive   int64 `db:"alive"`
}

// Select chooses result sets as store.DB.Select does, in the reader's
// snapshot.
func (r *Reader) Select(ctx context.Context, f store.Filter) ([]store.Listing, error) {
	if !r.has(profilers.InstancesTable) {
		return nil, fmt.Errorf("read: %w", r.cat.NoInstances())
	}
	out, err := r.cat.Select(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("read: select result sets: %w", err)
	}
	return out, nil
}

// Commits returns the commits recorded for the result sets, as
// store.DB.Commits does, in the reader's snapshot.
func (r *Reader) Commits(ctx context.Context, profiler string) (map[string]bool, error) {
	out, err := r.cat.Commits(ctx, profiler)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	return out, nil
}

// List lists every result set as store.DB.List does (what list prints
// without a filter), in the reader's snapshot.
func (r *Reader) List(ctx context.Context) ([]store.Listing, error) {
	if !r.has(profilers.InstancesTable) {
		return nil, fmt.Errorf("read: %w", r.cat.NoInstances())
	}
	out, err := r.cat.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	return out, nil
}
