package gate

import (
	"context"
	"fmt"

	"github.com/profdb/profdb/internal/textout"
	"github.com/profdb/profdb/readback"
)

func maxTimeIncrease(ctx context.Context, r *readback.Reader, base, now readback.Instance, limit float64, top int) (Rule, error) {
	rule := Rule{Name: RuleMaxTimeIncrease, Limit: limit}
	f, unit := readback.TimeScale(now)
	tb, err := r.TotalTime(ctx, base)
	if err != nil {
		return rule, err
	}
	tn, err := r.TotalTime(ctx, now)
	if err != nil {
		return rule, err
	}
	before, after := float64(tb)*f, float64(tn)*f
	rule.Time = &TotalTime{Before: before, After: after, Unit: unit}
	pct, measured := readback.PercentChange(before, after)
	switch {
	case measured:
		rule.Value = pct
		rule.Passed = after*100 <= before*(100+limit) // exactly, not through the rounded quotient
	case after > 0:
		rule.Unbounded = true
	default:
		rule.Passed = true
	}
	rule.Summary = fmt.Sprintf("total time %s from %s to %s (baseline %d), at most +%s%% allowed",
		change(rule), readback.FormatTime(before, unit), readback.FormatTime(after, unit), base.InstID, textout.Number(limit))
	// The routines that slowed most, by own time.
	worst := readback.NewTop(top, func(a, b RoutineChange) bool {
		da, db := a.After-a.Before, b.After-b.Before
		if da != db {
			return da > db
		}
		if a.FullName() != b.FullName() {
			return a.FullName() < b.FullName()
		}
		return a.Module < b.Module
	})
	err = r.OwnTimes(ctx, base, now, func(k readback.RoutineID, ob, on int64) error {
		rc := RoutineChange{Module: k.Module, Namespace: k.Namespace, Class: k.Class, Name: k.Name, Before: float64(ob) * f, After: float64(on) * f, Unit: unit}
		if rc.After > rc.Before {
			worst.Add(rc)
		}
		return nil
	})
	rule.Routines, rule.Omitted = listed(worst)
	return rule, err
}

// change describes a % change: "changed +12.5%", "changed -3.0%", "grew
// from nothing".
func change(rule Rule) string {
	if rule.Unbounded {
		return "grew from nothing"
	}
	return "changed " + textout.PercentChange(rule.Value)
}
