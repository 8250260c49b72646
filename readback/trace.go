package readback

import (
	"context"
	"fmt"
	"strconv"
)

// Trace is the summary of a Function Trace result set. Times are in the
// counter's ticks (INSTANCES.COUNTER_FREQUENCY per second when it is set).
// Calls is the sum of its routines' calls (RoutineTime.Calls), as compare
// sums them; TotalTime is TotalTime's.
type Trace struct {
	Counter   string                `json:"counter"`
	Frequency float64               `json:"frequency"` // ticks per second; 0 when unknown
	TotalTime int64                 `json:"total_time"`
	Calls     int64                 `json:"calls"`
	ByOwn     List[RoutineTime]     `json:"by_own_time"`
	ByTotal   List[RoutineTime]     `json:"by_time_with_children"`
	ByCalls   List[RoutineTime]     `json:"by_calls"`
	Threads   List[ThreadTime]      `json:"threads"`
	names     map[int64]RoutineTime // by REC_ID, for the call tree
}

// RoutineTime is the time spent in one routine over all its calls.
// WithChild is its time with children as `go tool pprof` computes cum: the
// time with children of its calls that have no call of the same routine
// above them (a recursive routine's nested calls are in the outer call's
// time already).
//
// Calls has one meaning wherever profdb prints calls of a routine (show,
// compare, check, report): the times the routine was called as the
// profiler counted them, its ROUTINES row's COL_HIT_COUNT (for a sampling
// profile, such as a pprof one, its samples); for a routine without a
// ROUTINES row, the number of its CALL_TRACE rows (stored calls).
type RoutineTime struct {
	RecID     int64  `json:"rec_id" db:"rid"`
	Name      string `json:"name" db:"name"`
	Namespace string `json:"namespace,omitempty" db:"namespace"`
	Class     string `json:"class,omitempty" db:"class"`
	Module    string `json:"module,omitempty" db:"module"`
	Calls     int64  `json:"calls" db:"calls"`
	Own       int64  `json:"own_time" db:"own"`
	WithChild int64  `json:"time_with_children" db:"total"`
}

// ID is the routine's identity across result sets.
func (rt RoutineTime) ID() RoutineID {
	return RoutineID{Module: rt.Module, Namespace: rt.Namespace, Class: rt.Class, Name: rt.Name}
}

// FullName is Namespace.Class::Name (see RoutineID.FullName), or "routine
// REC_ID" for a routine without a name.
func (rt RoutineTime) FullName() string {
	if rt.Name == "" && rt.Class == "" && rt.Namespace == "" {
		return "routine " + strconv.FormatInt(rt.RecID, 10)
	}
	return rt.ID().FullName()
}

// Times are a routine's calls, own time and time with children (see
// RoutineTime).
type Times struct {
	Calls     int64 `json:"calls"`
	Own       int64 `json:"own_time"`
	WithChild int64 `json:"time_with_children"`
}

// ThreadTime is one thread's time (of its top-level calls) and, in Calls,
// the number of its CALL_TRACE rows: the calls of its stored call tree,
// which a sampling profile stores once per distinct call path (a thread
// has no hit count of its own).
type ThreadTime struct {
	ID            int64   `json:"id" db:"id"`
	Win32ThreadID NullDec `json:"win32_thread_id" db:"tid"`
	Calls         int64   `json:"calls" db:"calls"`
	Time          int64   `json:"time" db:"total"`
}

// Seconds converts ticks to seconds; ok is false when the frequency is
// unknown.
func (t *Trace) Seconds(ticks int64) (float64, bool) {
	if t.Frequency <= 0 {
		return 0, false
	}
	return float64(ticks) / t.Frequency, true
}

// Format formats ticks as time ("12.345 ms") when the frequency is known,
// else as the counter's ticks.
func (t *Trace) Format(ticks int64) string {
	s, ok := t.Seconds(ticks)
	if !ok {
		return strconv.FormatInt(ticks, 10) + " " + t.Unit()
	}
	return FormatTime(s*1000, "ms")
}

// TimeScale returns what turns the ticks of Function Trace result set in,
// and of those that compare with it (Comparable: one counter, one
// frequency), into one unit: milliseconds when the counter gives a
// frequency, else its ticks (Trace.Unit names the unit).
func TimeScale(in Instance) (scale float64, unit string) {
	t := Trace{Counter: in.CounterName, Frequency: in.CounterFrequency.Float()}
	if t.Frequency > 0 {
		return 1000 / t.Frequency, t.Unit()
	}
	return 1, t.Unit()
}

// Unit names what times are measured in.
func (t *Trace) Unit() string {
	if t.Frequency > 0 {
		return "ms"
	}
	if t.Counter != "" {
		return t.Counter
	}
	return "ticks"
}

func (r *Reader) trace(ctx context.Context, in Instance, o Options) (*Trace, error) {
	if err := r.need(in, ftRoutines, ftMetaRoutines, ftThreads, ftCallTrace); err != nil {
		return nil, err
	}
	wrap := func(what string, err error) error {
		return fmt.Errorf("read: result set %d: %s: %w", in.InstID, what, err)
	}
	t := &Trace{Counter: in.CounterName, Frequency: in.CounterFrequency.Float(), names: map[int64]RoutineTime{}}
	all, err := r.routineTimes(ctx, in.InstID)
	if err != nil {
		return nil, wrap("routines", err)
	}
	idx := make(map[int64]int32, len(all))
	for i, v := range all {
		idx[v.RecID] = int32(i)
	}
	cum, err := r.withChildren(ctx, in.InstID, len(all), func(rid int64) int32 {
		if i, ok := idx[rid]; ok {
			return i
		}
		return -1
	})
	if err != nil {
		return nil, wrap("routines", err)
	}
	for i := range all {
		all[i].WithChild = cum[i]
		t.names[all[i].RecID] = all[i]
	}
	fig, err := r.traceFigures(ctx, in.InstID)
	if err != nil {
		return nil, err
	}
	t.TotalTime, t.Calls = fig.Total, fig.Calls
	t.ByOwn = sorted(all, o.top(), func(a, b RoutineTime) bool { return a.Own > b.Own })
	t.ByTotal = sorted(all, o.top(), func(a, b RoutineTime) bool { return a.WithChild > b.WithChild })
	t.ByCalls = sorted(all, o.top(), func(a, b RoutineTime) bool { return a.Calls > b.Calls })
	// Every thread (they are few), for the totals; the list keeps the first.
	var threads []ThreadTime
	err = query(ctx, r, in.InstID, `SELECT {t.`+ftThreads+`.ID} AS id, {t.`+ftThreads+`.COL_WIN32THREADID} AS tid,
		COUNT({c.`+ftCallTrace+`.ID}) AS calls,
		COALESCE(SUM(CASE WHEN {c.`+ftCallTrace+`.COL_PARENT_NO} = -1 THEN {c.`+ftCallTrace+`.COL__S_WITH_CHILDREN} ELSE 0 END), 0) AS total
		FROM {t:`+ftThreads+`} LEFT JOIN {c:`+ftCallTrace+`} ON {c.`+ftCallTrace+`.INST_ID} = {?}
			AND {c.`+ftCallTrace+`.PARENT_ID} = {t.`+ftThreads+`.ID}
		WHERE {t.`+ftThreads+`.INST_ID} = {?}
		GROUP BY {t.`+ftThreads+`.ID}, {t.`+ftThreads+`.COL_WIN32THREADID}
		ORDER BY 4 DESC, {t.`+ftThreads+`.ID}`,
		func(v *ThreadTime) bool {
			threads = append(threads, *v)
			return true
		})
	if err != nil {
		return nil, wrap("threads", err)
	}
	t.Threads = List[ThreadTime]{Items: threads, Total: int64(len(threads))}
	if len(threads) > o.top() {
		t.Threads.Items = threads[:o.top()]
	}
	return t, nil
}

// TotalTime reads the total time of Function Trace result set in, in its
// counter's ticks: the time with children of its top-level calls (those
// with no caller, COL_PARENT_NO -1), over every thread, as show's total
// time and trend read it (traceFigures). check's max-time-increase rule
// reads it.
func (r *Reader) TotalTime(ctx context.Context, in Instance) (int64, error) {
	if err := r.need(in, ftRoutines, ftCallTrace); err != nil {
		return 0, err
	}
	v, err := r.traceFigures(ctx, in.InstID)
	return v.Total, err
}

// sorted returns the first n of all by less, ties by REC_ID.
func sorted(all []RoutineTime, n int, less func(a, b RoutineTime) bool) List[RoutineTime] {
	t := NewTop(n, func(a, b RoutineTime) bool {
		if less(a, b) {
			return true
		}
		if less(b, a) {
			return false
		}
		return a.RecID < b.RecID
	})
	for _, v := range all {
		t.Add(v)
	}
	return t.List()
}

// routineTimes reads the calls and own time of every routine of Function
// Trace result set inst that has calls, one per REC_ID of CALL_TRACE's
// COL_ROUTINE_NAME (-1 for NULL), with its identity; WithChild is left 0.
func (r *Reader) routineTimes(ctx context.Context, inst int64) ([]RoutineTime, error) {
	var all []RoutineTime
	err := query(ctx, r, inst, `SELECT a.rid, `+r.RoutineIDColumns("m", ftMetaRoutines)+`,
		COALESCE({rt.`+ftRoutines+`.COL_HIT_COUNT}, a.n) AS calls, a.own, 0 AS total
		FROM (SELECT COALESCE({c.`+ftCallTrace+`.COL_ROUTINE_NAME}, -1) AS rid, COUNT(*) AS n,
			COALESCE(SUM({c.`+ftCallTrace+`.COL__S}), 0) AS own
			FROM {c:`+ftCallTrace+`} WHERE {c.`+ftCallTrace+`.INST_ID} = {?} GROUP BY COALESCE({c.`+ftCallTrace+`.COL_ROUTINE_NAME}, -1)) a
		LEFT JOIN {m:`+ftMetaRoutines+`} ON {m.`+ftMetaRoutines+`.INST_ID} = {?} AND {m.`+ftMetaRoutines+`.REC_ID} = a.rid
		LEFT JOIN {rt:`+ftRoutines+`} ON {rt.`+ftRoutines+`.INST_ID} = {?} AND {rt.`+ftRoutines+`.REC_ID} = a.rid`,
		func(v *RoutineTime) bool { all = append(all, *v); return true })
	return all, err
}

// TimesByRoutine reads the calls, own time and time with children of the
// routines of Function Trace result set in by RoutineID: routines of one
// identity (overloads) are one, their calls and own times added up, their
// time with children that of their calls with no call of the identity
// above them (`go tool pprof`'s cum). compare and check use it. Memory
// grows with the routines, not with the calls.
func (r *Reader) TimesByRoutine(ctx context.Context, in Instance) (map[RoutineID]Times, error) {
	if err := r.need(in, ftRoutines, ftMetaRoutines, ftCallTrace); err != nil {
		return nil, err
	}
	all, err := r.routineTimes(ctx, in.InstID)
	if err != nil {
		return nil, fmt.Errorf("read: result set %d: routines: %w", in.InstID, err)
	}
	ids := map[RoutineID]int32{}
	byRec := make(map[int64]int32, len(all))
	var order []RoutineID
	out := map[RoutineID]Times{}
	for _, v := range all {
		id := v.ID()
		k, ok := ids[id]
		if !ok {
			k = int32(len(order))
			ids[id] = k
			order = append(order, id)
		}
		byRec[v.RecID] = k
		t := out[id]
		t.Calls += v.Calls
		t.Own += v.Own
		out[id] = t
	}
	cum, err := r.withChildren(ctx, in.InstID, len(order), func(rid int64) int32 {
		if k, ok := byRec[rid]; ok {
			return k
		}
		return -1
	})
	if err != nil {
		return nil, fmt.Errorf("read: result set %d: %w", in.InstID, err)
	}
	for k, id := range order {
		t := out[id]
		t.WithChild = cum[k]
		out[id] = t
	}
	return out, nil
}

// OwnTimes streams the own time per routine of Function Trace result sets
// a and b (the own times TimesByRoutine reads, without the walk for time
// with children), routines matched by RoutineID; a routine one of them
// lacks has 0 there. Routines come in no particular order; each stops the
// stream by returning an error, which OwnTimes returns. check's
// max-time-increase rule reads it. Memory grows with the routines.
func (r *Reader) OwnTimes(ctx context.Context, a, b Instance, each func(id RoutineID, ownA, ownB int64) error) error {
	own := map[RoutineID]*[2]int64{}
	for i, in := range []Instance{a, b} {
		if err := r.need(in, ftRoutines, ftMetaRoutines, ftCallTrace); err != nil {
			return err
		}
		all, err := r.routineTimes(ctx, in.InstID)
		if err != nil {
			return fmt.Errorf("read: result set %d: routines: %w", in.InstID, err)
		}
		for _, v := range all {
			p := own[v.ID()]
			if p == nil {
				p = new([2]int64)
				own[v.ID()] = p
			}
			p[i] += v.Own
		}
	}
	for id, p := range own {
		if err := each(id, p[0], p[1]); err != nil {
			return err
		}
	}
	return nil
}
