package compare

import (
	"context"
	"fmt"

	"github.com/profdb/profdb/readback"
)

// ClassDiff compares the classes of two Resource or two Reference Count
// result sets.
type ClassDiff struct {
	// LiveCount and LiveSize are each result set's live objects over
	// every class (readback.LiveObjects, show's for a Resource result set).
	LiveCount Figure `json:"live_count"`
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
	st := o.style()
	top := readback.NewTop(o.top(), func(x, y ClassFigDiff) bool {
		if dx, dy := o.key(x.LiveCount.Delta()), o.key(y.LiveCount.Delta()); dx != dy {
			return dx > dy
		}
		if dx, dy := o.key(x.LiveSize.Delta()), o.key(y.LiveSize.Delta()); dx != dy {
			return dx > dy
		}
		return nameLess(x.Module, x.Name, y.Module, y.Name)
	})
	na, sa, err := r.LiveObjects(ctx, ia)
	if err != nil {
		return nil, fmt.Errorf("compare: result sets %d and %d: %w", ia.InstID, ib.InstID, err)
	}
	nb, sb, err := r.LiveObjects(ctx, ib)
	if err != nil {
		return nil, fmt.Errorf("compare: result sets %d and %d: %w", ia.InstID, ib.InstID, err)
	}
	d := &ClassDiff{LiveCount: figure(st, na.Float(), nb.Float()), LiveSize: figure(st, sa.Float(), sb.Float())}
	err = r.ClassCompare(ctx, ia, ib, func(v readback.ClassPair) error {
		x := ClassFigDiff{Module: v.Module, Name: v.Name, In: presence(v.InA, v.InB),
			LiveCount:   figure(st, v.LiveCount[0], v.LiveCount[1]),
			LiveSize:    figure(st, v.LiveSize[0], v.LiveSize[1]),
			PeakCreated: figure(st, v.PeakCreated[0], v.PeakCreated[1]),
			PeakSize:    figure(st, v.PeakSize[0], v.PeakSize[1])}
		switch x.In {
		case OnlyA:
			d.OnlyA++
		case OnlyB:
			d.OnlyB++
		}
		top.Add(x)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	d.Classes = top.List()
	return d, nil
}
