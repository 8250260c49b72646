package compare

import (
	"context"
	"fmt"

	"github.com/profdb/profdb/readback"
)

// The CLASSES_DATA table of each profiler with classes.
var classTables = map[string]string{
	"resource":        "RESOURCE_PROFILER_CLASSES_DATA",
	"reference-count": "REFERENCE_COUNT_PROFILER_CLASSES_DATA",
}

// ClassDiff compares the classes of two Resource or two Reference Count
// result sets.
type ClassDiff struct {
	LiveCount Figure `json:"live_count"` // over every class
	LiveSize  Figure `json:"live_size"`
	OnlyA     int64  `json:"classes_only_in_a"`
	OnlyB     int64  `json:"classes_only_in_b"`
	// Classes matched by module and name, largest change of live count
	// first, then of live size.
	Classes List[ClassFigDiff] `json:"classes"`
}

// ClassFigDiff is one class's figures in A and B.
type ClassFigDiff struct {
	Module      string   `json:"module"`
	Name        string   `json:"name"`
	In          Presence `json:"in"`
	LiveCount   Figure   `json:"live_count"`
	LiveSize    Figure   `json:"live_size"`
	PeakCreated Figure   `json:"peak_created"`
	PeakSize    Figure   `json:"peak_size"`
}

type classRow struct {
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

// Classes compares the classes of two Resource or two Reference Count
// result sets (ErrIncomparable for another profiler, or two different
// ones).
func Classes(ctx context.Context, r *readback.Reader, a, b int64, o Options) (*ClassDiff, error) {
	ia, ib, err := pair(ctx, r, a, b, "classes")
	if err != nil {
		return nil, err
	}
	return classes(ctx, r, ia, ib, o)
}

func classes(ctx context.Context, r *readback.Reader, ia, ib readback.Instance, o Options) (*ClassDiff, error) {
	t := classTables[ia.Profiler]
	if !r.Has(t) {
		return nil, fmt.Errorf("compare: table %s is missing from the database", t)
	}
	st := o.style()
	col := func(c, as string) string { return "{c." + t + "." + c + "} AS " + as }
	inner := `SELECT {c.` + t + `.INST_ID} AS inst, ` + r.ExactText(`COALESCE({c.`+t+`.COL_MODULE_NAME}, '')`) + ` AS module,
		` + r.ExactText(`COALESCE({c.`+t+`.COL_CLASS_NAME}, '')`) + ` AS name, ` +
		col("COL_LIVE_COUNT", "live_count") + ", " + col("COL_LIVE_SIZE", "live_size") + ", " +
		col("COL_PEAK_CREATED", "peak_created") + ", " + col("COL_PEAK_SIZE", "peak_size") + `
		FROM {c:` + t + `} WHERE {c.` + t + `.INST_ID} IN ({?1}, {?2})`
	cols := []string{"live_count", "live_size", "peak_created", "peak_size"}
	top := newTop(o.top(), func(x, y ClassFigDiff) bool {
		if dx, dy := o.key(x.LiveCount.Delta()), o.key(y.LiveCount.Delta()); dx != dy {
			return dx > dy
		}
		if dx, dy := o.key(x.LiveSize.Delta()), o.key(y.LiveSize.Delta()); dx != dy {
			return dx > dy
		}
		return nameLess(x.Module, x.Name, y.Module, y.Name)
	})
	d := &ClassDiff{}
	var count, size [2]float64
	err := readback.Each(ctx, r, byName(cols, inner, "module", "name"), []any{ia.InstID, ib.InstID},
		func(v *classRow) error {
			x := ClassFigDiff{Module: v.Module, Name: v.Name, In: presence(v.InA, v.InB),
				LiveCount:   figure(st, v.LiveCountA, v.LiveCountB),
				LiveSize:    figure(st, v.LiveSizeA, v.LiveSizeB),
				PeakCreated: figure(st, v.PeakCreatedA, v.PeakCreatedB),
				PeakSize:    figure(st, v.PeakSizeA, v.PeakSizeB)}
			switch x.In {
			case OnlyA:
				d.OnlyA++
			case OnlyB:
				d.OnlyB++
			}
			count[0] += v.LiveCountA
			count[1] += v.LiveCountB
			size[0] += v.LiveSizeA
			size[1] += v.LiveSizeB
			top.add(x)
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("compare: result sets %d and %d: classes: %w", ia.InstID, ib.InstID, err)
	}
	d.LiveCount = figure(st, count[0], count[1])
	d.LiveSize = figure(st, size[0], size[1])
	d.Classes = top.list()
	return d, nil
}
