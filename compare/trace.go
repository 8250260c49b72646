package compare

import (
	"context"
	"fmt"

	"github.com/profdb/profdb/readback"
)

// Function Trace tables compared.
const (
	ftRoutines     = "FUNCTION_TRACE_PROFILER_ROUTINES"
	ftMetaRoutines = "FUNCTION_TRACE_PROFILER_META_ROUTINES"
	ftCallTrace    = "FUNCTION_TRACE_PROFILER_CALL_TRACE"
)

// TraceDiff compares two Function Trace result sets of the same counter.
// Times are in the counter's ticks (Frequency per second, when known).
type TraceDiff struct {
	Counter   string  `json:"counter"`
	Frequency float64 `json:"frequency"` // ticks per second; 0 when unknown
	Calls     Figure  `json:"calls"`     // over every routine
	Time      Figure  `json:"time"`      // own time over every routine: the time of the whole run
	OnlyA     int64   `json:"routines_only_in_a"`
	OnlyB     int64   `json:"routines_only_in_b"`
	// Routines are matched by module, class and name (overloads of one
	// name are added up), largest change of own time first, then of time
	// with children.
	Routines List[RoutineTimeDiff] `json:"routines"`
}

// RoutineTimeDiff is one routine's calls and times in A and B.
type RoutineTimeDiff struct {
	Module    string   `json:"module"`
	Class     string   `json:"class,omitempty"`
	Name      string   `json:"name"`
	In        Presence `json:"in"`
	Calls     Figure   `json:"calls"`
	Own       Figure   `json:"own_time"`
	WithChild Figure   `json:"time_with_children"`
}

// FullName is Class::Name, or Name.
func (d RoutineTimeDiff) FullName() string { return qualified(d.Class, d.Name) }

func qualified(class, name string) string {
	if class != "" {
		return class + "::" + name
	}
	return name
}

type traceRow struct {
	Module string `db:"module"`
	Class  string `db:"class"`
	Name   string `db:"name"`
	CallsA int64  `db:"calls_a"`
	CallsB int64  `db:"calls_b"`
	OwnA   int64  `db:"own_a"`
	OwnB   int64  `db:"own_b"`
	TotalA int64  `db:"total_a"`
	TotalB int64  `db:"total_b"`
	InA    int64  `db:"in_a"`
	InB    int64  `db:"in_b"`
}

// Trace compares two Function Trace result sets: refused
// (ErrIncomparable) when they are of another profiler or were measured
// with different counters (name or frequency).
func Trace(ctx context.Context, r *readback.Reader, a, b int64, o Options) (*TraceDiff, error) {
	ia, ib, err := pair(ctx, r, a, b, "function-trace")
	if err != nil {
		return nil, err
	}
	return trace(ctx, r, ia, ib, o)
}

// byName sums the rows of both result sets per (module, class, name): x has
// inst and the figures named in cols; it gives <col>_a, <col>_b, in_a and
// in_b.
func byName(cols []string, x string, keys ...string) string {
	s := "SELECT "
	for _, k := range keys {
		s += "x." + k + ", "
	}
	for _, c := range cols {
		s += "COALESCE(SUM(CASE WHEN x.inst = {?1} THEN x." + c + " END), 0) AS " + c + "_a, " +
			"COALESCE(SUM(CASE WHEN x.inst = {?2} THEN x." + c + " END), 0) AS " + c + "_b, "
	}
	s += "MAX(CASE WHEN x.inst = {?1} THEN 1 ELSE 0 END) AS in_a, MAX(CASE WHEN x.inst = {?2} THEN 1 ELSE 0 END) AS in_b FROM (" + x + ") x GROUP BY "
	for i, k := range keys {
		if i > 0 {
			s += ", "
		}
		s += "x." + k
	}
	return s
}

func trace(ctx context.Context, r *readback.Reader, ia, ib readback.Instance, o Options) (*TraceDiff, error) {
	for _, t := range []string{ftRoutines, ftMetaRoutines, ftCallTrace} {
		if !r.Has(t) {
			return nil, fmt.Errorf("compare: table %s is missing from the database", t)
		}
	}
	st := o.style()
	d := &TraceDiff{Counter: ia.CounterName, Frequency: ia.CounterFrequency.Float()}
	// Per result set and routine (REC_ID) first, as few rows as routines;
	// then by name across the two, names compared exactly.
	x := r.ExactText
	inner := `SELECT a.inst, ` + x(`COALESCE({m.`+ftMetaRoutines+`.COL_MODULE_NAME}, '')`) + ` AS module,
		` + x(`COALESCE({m.`+ftMetaRoutines+`.COL_CLASS_NAME}, '')`) + ` AS class, ` + x(`COALESCE({m.`+ftMetaRoutines+`.COL_ROUTINE_NAME}, '')`) + ` AS name,
		COALESCE({rt.` + ftRoutines + `.COL_HIT_COUNT}, a.n) AS calls, a.own, a.total
		FROM (SELECT {c.` + ftCallTrace + `.INST_ID} AS inst, COALESCE({c.` + ftCallTrace + `.COL_ROUTINE_NAME}, -1) AS rid, COUNT(*) AS n,
			COALESCE(SUM({c.` + ftCallTrace + `.COL__S}), 0) AS own, COALESCE(SUM({c.` + ftCallTrace + `.COL__S_WITH_CHILDREN}), 0) AS total
			FROM {c:` + ftCallTrace + `} WHERE {c.` + ftCallTrace + `.INST_ID} IN ({?1}, {?2})
			GROUP BY {c.` + ftCallTrace + `.INST_ID}, COALESCE({c.` + ftCallTrace + `.COL_ROUTINE_NAME}, -1)) a
		LEFT JOIN {m:` + ftMetaRoutines + `} ON {m.` + ftMetaRoutines + `.INST_ID} = a.inst AND {m.` + ftMetaRoutines + `.REC_ID} = a.rid
		LEFT JOIN {rt:` + ftRoutines + `} ON {rt.` + ftRoutines + `.INST_ID} = a.inst AND {rt.` + ftRoutines + `.REC_ID} = a.rid`
	cols := []string{"calls", "own", "total"}
	top := newTop(o.top(), func(x, y RoutineTimeDiff) bool {
		if dx, dy := o.key(x.Own.Delta()), o.key(y.Own.Delta()); dx != dy {
			return dx > dy
		}
		if dx, dy := o.key(x.WithChild.Delta()), o.key(y.WithChild.Delta()); dx != dy {
			return dx > dy
		}
		return nameLess(x.Module, x.Class, x.Name, y.Module, y.Class, y.Name)
	})
	var calls, time [2]float64
	err := readback.Each(ctx, r, byName(cols, inner, "module", "class", "name"), []any{ia.InstID, ib.InstID},
		func(v *traceRow) error {
			x := RoutineTimeDiff{Module: v.Module, Class: v.Class, Name: v.Name, In: presence(v.InA, v.InB),
				Calls:     figure(st, float64(v.CallsA), float64(v.CallsB)),
				Own:       figure(st, float64(v.OwnA), float64(v.OwnB)),
				WithChild: figure(st, float64(v.TotalA), float64(v.TotalB))}
			switch x.In {
			case OnlyA:
				d.OnlyA++
			case OnlyB:
				d.OnlyB++
			}
			calls[0] += x.Calls.A
			calls[1] += x.Calls.B
			time[0] += x.Own.A
			time[1] += x.Own.B
			top.add(x)
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("compare: result sets %d and %d: routines: %w", ia.InstID, ib.InstID, err)
	}
	d.Calls = figure(st, calls[0], calls[1])
	d.Time = figure(st, time[0], time[1])
	d.Routines = top.list()
	return d, nil
}

// nameLess orders names part by part.
func nameLess(x ...string) bool {
	n := len(x) / 2
	for i := range n {
		if x[i] != x[n+i] {
			return x[i] < x[n+i]
		}
	}
	return false
}
