package gate

import (
	"context"
	"fmt"
	"strconv"

	"github.com/profdb/profdb/readback"
)

// timeScale returns what turns the ticks of base and now into one unit:
// milliseconds when both counters give a frequency, else ticks of their
// common counter. Result sets of different counters do not compare.
func timeScale(base, now readback.Instance) (fb, fn float64, unit string, err error) {
	if base.CounterName != now.CounterName {
		return 0, 0, "", usageErr(fmt.Sprintf("check: result sets %d and %d were measured with different counters (%q and %q): their times do not compare",
			base.InstID, now.InstID, base.CounterName, now.CounterName))
	}
	qb, qn := base.CounterFrequency.Float(), now.CounterFrequency.Float()
	if qb > 0 && qn > 0 {
		return 1000 / qb, 1000 / qn, "ms", nil
	}
	if qb != qn {
		return 0, 0, "", usageErr(fmt.Sprintf("check: result sets %d and %d: one counter has a frequency, the other none: their times do not compare",
			base.InstID, now.InstID))
	}
	unit = now.CounterName
	if unit == "" {
		unit = "ticks"
	}
	return 1, 1, unit, nil
}

// formatTime formats a time in unit.
func formatTime(v float64, unit string) string {
	if unit == "ms" {
		return strconv.FormatFloat(v, 'f', 3, 64) + " ms"
	}
	return strconv.FormatFloat(v, 'f', -1, 64) + " " + unit
}

func maxTimeIncrease(ctx context.Context, r *readback.Reader, base, now readback.Instance, limit float64, top int) (Rule, error) {
	rule := Rule{Name: RuleMaxTimeIncrease, Limit: limit}
	fb, fn, unit, err := timeScale(base, now)
	if err != nil {
		return rule, err
	}
	tb, err := traceTotal(ctx, r, base.InstID)
	if err != nil {
		return rule, err
	}
	tn, err := traceTotal(ctx, r, now.InstID)
	if err != nil {
		return rule, err
	}
	before, after := float64(tb)*fb, float64(tn)*fn
	switch {
	case before > 0:
		rule.Value = (after - before) * 100 / before
		rule.Passed = after*100 <= before*(100+limit)
	case after > 0:
		rule.Unbounded = true
	default:
		rule.Passed = true
	}
	rule.Summary = fmt.Sprintf("total time %s from %s to %s (baseline %d), at most +%s%% allowed",
		change(rule), formatTime(before, unit), formatTime(after, unit), base.InstID, num(limit))
	// The routines that slowed most, by own time.
	worst := newTop(top, func(a, b RoutineChange) bool {
		da, db := a.After-a.Before, b.After-b.Before
		if da != db {
			return da > db
		}
		if a.FullName() != b.FullName() {
			return a.FullName() < b.FullName()
		}
		return a.Module < b.Module
	})
	err = routineTimes(ctx, r, base.InstID, now.InstID, func(k readback.RoutineID, ob, on int64) error {
		rc := RoutineChange{Module: k.Module, Namespace: k.Namespace, Class: k.Class, Name: k.Name, Before: float64(ob) * fb, After: float64(on) * fn, Unit: unit}
		if rc.After > rc.Before {
			worst.add(rc)
		}
		return nil
	})
	rule.Routines, rule.Omitted = worst.items, worst.omitted()
	return rule, err
}

// change describes a % change: "+12.5%", "-3.0%", "grew from nothing".
func change(rule Rule) string {
	v := rule.Value
	switch {
	case rule.Unbounded:
		return "grew from nothing"
	case v >= 0:
		return "changed +" + strconv.FormatFloat(v, 'f', 1, 64) + "%"
	}
	return "changed " + strconv.FormatFloat(v, 'f', 1, 64) + "%"
}
