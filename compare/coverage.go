package compare

import (
	"context"
	"fmt"

	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/readback"
)

// CoverageDiff compares two Light Coverage result sets. Percentages are of
// lines; their change is in the comparison's style (difference: percentage
// points).
type CoverageDiff struct {
	Lines    Cover `json:"lines"`    // every line of the result set
	Routines Cover `json:"routines"` // a routine is covered when it or a line of it ran
	// Files in both result sets, by source file name, largest change of %
	// covered first; files in one of them only, most lines first.
	Files      List[GroupDiff] `json:"source_files"`
	FilesOnlyA List[GroupDiff] `json:"source_files_only_in_a"`
	FilesOnlyB List[GroupDiff] `json:"source_files_only_in_b"`
	// Routines matched by readback.RoutineID (module, namespace, class and
	// name; overloads of one full name are added up), likewise.
	RoutineList   List[GroupDiff] `json:"routine_list"`
	RoutinesOnlyA List[GroupDiff] `json:"routines_only_in_a"`
	RoutinesOnlyB List[GroupDiff] `json:"routines_only_in_b"`
	NewMisses     List[LineDiff]  `json:"new_misses"` // lines covered in A, in B not covered; by file and line
	NewHits       List[LineDiff]  `json:"new_hits"`   // lines not covered in A, covered in B
	LinesOnlyA    int64           `json:"lines_only_in_a"`
	LinesOnlyB    int64           `json:"lines_only_in_b"`
}

// Cover is a covered/total count in A and B, and the % covered compared.
type Cover struct {
	CoveredA int64  `json:"covered_a"`
	TotalA   int64  `json:"total_a"`
	CoveredB int64  `json:"covered_b"`
	TotalB   int64  `json:"total_b"`
	Percent  Figure `json:"percent"`
}

func cover(st Style, a, b readback.Ratio) Cover {
	return Cover{CoveredA: a.Covered, TotalA: a.Total, CoveredB: b.Covered, TotalB: b.Total, Percent: figure(st, a.Percent(), b.Percent())}
}

// GroupDiff is the coverage of one source file or routine in A and B.
type GroupDiff struct {
	Module    string   `json:"module,omitempty"`    // routines only
	File      string   `json:"source_file"`         // of a routine: the first of its overloads' files
	Namespace string   `json:"namespace,omitempty"` // routines only
	Class     string   `json:"class,omitempty"`     // routines only
	Name      string   `json:"name,omitempty"`      // routines only
	In        Presence `json:"in"`
	Cover
}

// LineState is a source line's state in one result set
// (readback.LineState).
type LineState = readback.LineState

// The states of a line.
const (
	Absent    = readback.Absent
	Uncovered = readback.Uncovered
	Covered   = readback.Covered
)

// LineDiff is a source line whose state differs between A and B.
type LineDiff struct {
	File string    `json:"source_file"`
	Line int64     `json:"line"`
	A    LineState `json:"a"`
	B    LineState `json:"b"`
}

// Coverage compares two Light Coverage result sets (ErrIncomparable for
// another profiler).
func Coverage(ctx context.Context, r *readback.Reader, a, b int64, o Options) (*CoverageDiff, error) {
	ia, ib, err := pair(ctx, r, a, b, lightcoverage.Name)
	if err != nil {
		return nil, err
	}
	return coverage(ctx, r, ia, ib, o)
}

func coverage(ctx context.Context, r *readback.Reader, ia, ib readback.Instance, o Options) (*CoverageDiff, error) {
	st := o.style()
	wrap := func(err error) error { return fmt.Errorf("compare: %w", err) }
	d := &CoverageDiff{}
	// Totals, per result set: the figures show prints.
	var lines, routines [2]readback.Ratio
	for i, in := range []readback.Instance{ia, ib} {
		var err error
		if lines[i], err = r.LineCoverage(ctx, in); err != nil {
			return nil, wrap(err)
		}
		if routines[i], err = r.RoutinesCovered(ctx, in); err != nil {
			return nil, wrap(err)
		}
	}
	d.Lines = cover(st, lines[0], lines[1])
	d.Routines = cover(st, routines[0], routines[1])

	// Files and routines, by name.
	n := o.top()
	type lists struct{ both, a, b *readback.Top[GroupDiff] }
	newLists := func() lists {
		both := readback.NewTop(n, func(x, y GroupDiff) bool {
			if dx, dy := o.key(x.Percent.Delta()), o.key(y.Percent.Delta()); dx != dy {
				return dx > dy
			}
			if dx, dy := o.key(float64(x.CoveredB-x.CoveredA)), o.key(float64(y.CoveredB-y.CoveredA)); dx != dy {
				return dx > dy
			}
			return groupLess(x, y)
		})
		biggest := func(x, y GroupDiff) bool {
			if tx, ty := max(x.TotalA, x.TotalB), max(y.TotalA, y.TotalB); tx != ty {
				return tx > ty
			}
			return groupLess(x, y)
		}
		return lists{both, readback.NewTop(n, biggest), readback.NewTop(n, biggest)}
	}
	add := func(l lists, x GroupDiff) {
		switch x.In {
		case Both:
			l.both.Add(x)
		case OnlyA:
			l.a.Add(x)
		default:
			l.b.Add(x)
		}
	}
	files, funcs := newLists(), newLists()
	err := r.FileCoverage(ctx, ia, ib, func(v readback.FilePair) error {
		add(files, GroupDiff{File: v.Name, In: presence(v.InA, v.InB), Cover: cover(st, v.A, v.B)})
		return nil
	})
	if err != nil {
		return nil, wrap(err)
	}
	err = r.RoutineCoverage(ctx, ia, ib, func(v readback.RoutinePair) error {
		add(funcs, GroupDiff{Module: v.Module, File: v.File, Namespace: v.Namespace, Class: v.Class, Name: v.Name,
			In: presence(v.InA, v.InB), Cover: cover(st, v.A, v.B)})
		return nil
	})
	if err != nil {
		return nil, wrap(err)
	}
	d.Files, d.FilesOnlyA, d.FilesOnlyB = files.both.List(), files.a.List(), files.b.List()
	d.RoutineList, d.RoutinesOnlyA, d.RoutinesOnlyB = funcs.both.List(), funcs.a.List(), funcs.b.List()

	// Lines whose state changed.
	misses, hits := readback.NewTop[LineDiff](n, nil), readback.NewTop[LineDiff](n, nil)
	err = r.ChangedLines(ctx, ia, ib, func(l readback.LinePair) error {
		x := LineDiff(l)
		switch {
		case l.A == Covered && l.B == Uncovered:
			misses.Add(x)
		case l.A == Uncovered && l.B == Covered:
			hits.Add(x)
		case l.B == Absent:
			d.LinesOnlyA++
		case l.A == Absent:
			d.LinesOnlyB++
		}
		return nil
	})
	if err != nil {
		return nil, wrap(err)
	}
	d.NewMisses, d.NewHits = misses.List(), hits.List()
	return d, nil
}

func groupLess(x, y GroupDiff) bool {
	return nameLess(x.File, x.Module, x.Namespace, x.Class, x.Name, y.File, y.Module, y.Namespace, y.Class, y.Name)
}

// ID is a routine's identity (routines only).
func (g GroupDiff) ID() readback.RoutineID {
	return readback.RoutineID{Module: g.Module, Namespace: g.Namespace, Class: g.Class, Name: g.Name}
}

// FullName is a routine's Namespace.Class::Name (readback.FullName).
func (g GroupDiff) FullName() string { return g.ID().FullName() }

// Lines streams the source lines (matched by source file and line number)
// whose state differs between Light Coverage result sets a and b: covered
// in one and not the other, or in one only. They come ordered by file and
// line; each stops the stream by returning an error, which Lines returns.
// A line is covered when any of its rows (routines) ran.
func Lines(ctx context.Context, r *readback.Reader, a, b int64, each func(LineDiff) error) error {
	ia, ib, err := pair(ctx, r, a, b, lightcoverage.Name)
	if err != nil {
		return err
	}
	if err := r.ChangedLines(ctx, ia, ib, func(l readback.LinePair) error { return each(LineDiff(l)) }); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	return nil
}
