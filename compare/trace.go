package compare

import (
	"context"
	"fmt"

	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/readback"
)

// TraceDiff compares two Function Trace result sets of the same counter.
// Times are in the counter's ticks (Frequency per second, when known).
type TraceDiff struct {
	Counter   string  `json:"counter"`
	Frequency float64 `json:"frequency"` // ticks per second; 0 when unknown
	// Calls and Time are show's figures of each result set
	// (readback.Figures): the calls of every routine, and the total time,
	// the time with children of the calls that have no caller.
	Calls Figure `json:"calls"`
	Time  Figure `json:"time"`
	OnlyA int64  `json:"routines_only_in_a"`
	OnlyB int64  `json:"routines_only_in_b"`
	// Routines are matched by readback.RoutineID (module, namespace, class
	// and name; overloads of one full name are added up), largest change of
	// own time first, then of time with children.
	Routines List[RoutineTimeDiff] `json:"routines"`
}

// RoutineTimeDiff is one routine's calls and times in A and B. Time with
// children is go tool pprof's cum (readback.RoutineTime).
type RoutineTimeDiff struct {
	Module    string   `json:"module"`
	Namespace string   `json:"namespace,omitempty"`
	Class     string   `json:"class,omitempty"`
	Name      string   `json:"name"`
	In        Presence `json:"in"`
	Calls     Figure   `json:"calls"`
	Own       Figure   `json:"own_time"`
	WithChild Figure   `json:"time_with_children"`
}

// ID is the routine's identity.
func (d RoutineTimeDiff) ID() readback.RoutineID {
	return readback.RoutineID{Module: d.Module, Namespace: d.Namespace, Class: d.Class, Name: d.Name}
}

// FullName is Namespace.Class::Name (readback.RoutineID.FullName).
func (d RoutineTimeDiff) FullName() string { return d.ID().FullName() }

// Trace compares two Function Trace result sets: refused
// (ErrIncomparable) when they are of another profiler or were measured
// with different counters (name or frequency).
func Trace(ctx context.Context, r *readback.Reader, a, b int64, o Options) (*TraceDiff, error) {
	ia, ib, err := pair(ctx, r, a, b, functiontrace.Name)
	if err != nil {
		return nil, err
	}
	return trace(ctx, r, ia, ib, o)
}

func trace(ctx context.Context, r *readback.Reader, ia, ib readback.Instance, o Options) (*TraceDiff, error) {
	st := o.style()
	d := &TraceDiff{Counter: ia.CounterName, Frequency: ia.CounterFrequency.Float()}
	fa, err := r.Figures(ctx, ia)
	if err != nil {
		return nil, fmt.Errorf("compare: result sets %d and %d: %w", ia.InstID, ib.InstID, err)
	}
	fb, err := r.Figures(ctx, ib)
	if err != nil {
		return nil, fmt.Errorf("compare: result sets %d and %d: %w", ia.InstID, ib.InstID, err)
	}
	d.Calls = figure(st, float64(*fa.Calls), float64(*fb.Calls))
	d.Time = figure(st, float64(*fa.TotalTime), float64(*fb.TotalTime))
	// Per result set and routine identity (readback.RoutineID), with time
	// with children as go tool pprof's cum; then matched in memory, which
	// holds one entry per routine, not per call.
	ta, err := r.TimesByRoutine(ctx, ia)
	if err != nil {
		return nil, fmt.Errorf("compare: result sets %d and %d: routines: %w", ia.InstID, ib.InstID, err)
	}
	tb, err := r.TimesByRoutine(ctx, ib)
	if err != nil {
		return nil, fmt.Errorf("compare: result sets %d and %d: routines: %w", ia.InstID, ib.InstID, err)
	}
	top := readback.NewTop(o.top(), func(x, y RoutineTimeDiff) bool {
		if dx, dy := o.key(x.Own.Delta()), o.key(y.Own.Delta()); dx != dy {
			return dx > dy
		}
		if dx, dy := o.key(x.WithChild.Delta()), o.key(y.WithChild.Delta()); dx != dy {
			return dx > dy
		}
		return x.ID().Compare(y.ID()) < 0
	})
	add := func(id readback.RoutineID, a, b readback.Times, inA, inB bool) {
		x := RoutineTimeDiff{Module: id.Module, Namespace: id.Namespace, Class: id.Class, Name: id.Name, In: presence(inA, inB),
			Calls:     figure(st, float64(a.Calls), float64(b.Calls)),
			Own:       figure(st, float64(a.Own), float64(b.Own)),
			WithChild: figure(st, float64(a.WithChild), float64(b.WithChild))}
		switch x.In {
		case OnlyA:
			d.OnlyA++
		case OnlyB:
			d.OnlyB++
		}
		top.Add(x)
	}
	for id, a := range ta {
		b, inB := tb[id]
		add(id, a, b, true, inB)
	}
	for id, b := range tb {
		if _, inA := ta[id]; !inA {
			add(id, readback.Times{}, b, false, true)
		}
	}
	d.Routines = top.List()
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
