package readback

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/profilers/referencecount"
	"github.com/profdb/profdb/profilers/resource"
	"github.com/profdb/profdb/store"
)

// figuresBatch is the most result sets one query of FiguresOf names.
const figuresBatch = 200

// FiguresOf reads the headline figures of each result set of ins, the
// same figures Figures reads of one, with a few queries for all of them:
// one per profiler table a figure is read from (a Light Coverage set's
// lines and routines, a Function Trace's calls, a Resource or Reference
// Count set's classes or objects), grouped by INST_ID, for at most
// figuresBatch result sets each. A result set of which a grouped query
// returns no row (one without rows in that table) is read by Figures,
// so that its figures are exactly those. On a server that spreads tables
// over nodes (Citus) each result set is read by Figures, on the one node
// that holds it. An error is the first one Figures would give, in the
// order of ins.
func (r *Reader) FiguresOf(ctx context.Context, ins []Instance) (map[int64]*Figures, error) {
	out := make(map[int64]*Figures, len(ins))
	return out, r.figuresOf(ctx, ins, false, out)
}

// Headlines returns the headline (Figures.Headline, the line show prints
// under a result set's description) of each of the listed result sets,
// read as FiguresOf reads their figures, but for a Light Coverage set's
// routines, which its headline does not show. A result set whose figures cannot
// be read for want of its profiler or of a table gets none; an error is
// a query's.
func (r *Reader) Headlines(ctx context.Context, ls []store.Listing) (map[int64]string, error) {
	var ins []Instance
	for _, l := range ls {
		in := InstanceOf(l)
		if err := r.need(in, figureTables(in.Profiler)...); err != nil || len(figureTables(in.Profiler)) == 0 {
			continue
		}
		ins = append(ins, in)
	}
	figs := make(map[int64]*Figures, len(ins))
	if err := r.figuresOf(ctx, ins, true, figs); err != nil {
		return nil, err
	}
	out := make(map[int64]string, len(figs))
	for id, f := range figs {
		out[id] = f.Headline()
	}
	return out, nil
}

// figureTables are the tables Figures needs of a result set of profiler;
// nil for a profiler it has no figures of.
func figureTables(profiler string) []string {
	switch profiler {
	case lightcoverage.Name:
		return []string{lcRoutines, lcLines, lcMetaRoutines}
	case functiontrace.Name:
		return []string{ftRoutines, ftMetaRoutines, ftThreads, ftCallTrace}
	case resource.Name:
		return []string{rsClasses, rsObjects, rsCreation, rsMetaRoutines, rsErrors}
	case referencecount.Name:
		return []string{rcClasses, rcObjects, rcMetaClasses}
	}
	return nil
}

// figuresOf fills out with the figures of ins: from the reader's cache
// where it has them, else read, and kept there. headline asks for the
// figures of the headline only: a Light Coverage set's lines, not its
// routines.
func (r *Reader) figuresOf(ctx context.Context, ins []Instance, headline bool, out map[int64]*Figures) error {
	for _, in := range ins {
		if err := r.need(in, figureTables(in.Profiler)...); err != nil {
			return err
		}
		if figureTables(in.Profiler) == nil {
			return fmt.Errorf("read: result set %d: profiler %s has no summary in this build", in.InstID, in.Profiler)
		}
	}
	if r.cache != nil {
		var missed []Instance
		for _, in := range ins {
			if f := r.cache.get(in, headline); f != nil {
				out[in.InstID] = f
			} else {
				missed = append(missed, in)
			}
		}
		defer func() {
			for _, in := range missed {
				if f := out[in.InstID]; f != nil {
					r.cache.put(in, f, headline)
				}
			}
		}()
		ins = missed
	}
	spread := false
	if d, ok := r.d.(dialects.Distributor); ok && len(ins) > 1 {
		var err error
		if spread, err = d.Distributes(ctx, r.q); err != nil {
			return fmt.Errorf("read: %w", err)
		}
	}
	byProfiler := map[string][]Instance{}
	var order []string
	for _, in := range ins {
		if spread {
			f, err := r.Figures(ctx, in)
			if err != nil {
				return err
			}
			out[in.InstID] = f
			continue
		}
		if _, ok := byProfiler[in.Profiler]; !ok {
			order = append(order, in.Profiler)
		}
		byProfiler[in.Profiler] = append(byProfiler[in.Profiler], in)
	}
	for _, p := range order {
		all := byProfiler[p]
		for from := 0; from < len(all); from += figuresBatch {
			batch := all[from:min(from+figuresBatch, len(all))]
			if err := r.figuresBatch(ctx, p, batch, headline, out); err != nil {
				return err
			}
		}
	}
	// A set no grouped query had a row of: Figures reads it.
	for _, in := range ins {
		if _, ok := out[in.InstID]; ok {
			continue
		}
		f, err := r.Figures(ctx, in)
		if err != nil {
			return err
		}
		out[in.InstID] = f
	}
	return nil
}

// inList is the INST_IDs of ins as the arguments of a query template, and
// the parameters that name them: "{?1}, {?2}, …".
func inList(ins []Instance) (string, []any) {
	marks := make([]string, len(ins))
	args := make([]any, len(ins))
	for i, in := range ins {
		marks[i], args[i] = "{?"+strconv.Itoa(i+1)+"}", in.InstID
	}
	return strings.Join(marks, ", "), args
}

// grouped runs a query template over the result sets of ins and calls each
// with every row (one per INST_ID).
func grouped[T any](ctx context.Context, r *Reader, tmpl string, args []any, each func(*T)) error {
	return Each(ctx, r, tmpl, args, func(v *T) error { each(v); return nil })
}

// figuresBatch reads the figures of ins, result sets of profiler p, into
// out: a set is added only when every query of its profiler had its row.
func (r *Reader) figuresBatch(ctx context.Context, p string, ins []Instance, headline bool, out map[int64]*Figures) error {
	list, args := inList(ins)
	got := map[int64]*Figures{}
	fig := func(id int64) *Figures {
		if got[id] == nil {
			got[id] = &Figures{}
		}
		return got[id]
	}
	complete := func(*Figures) bool { return true }
	var err error
	var what string // the figures, for the error
	switch p {
	case lightcoverage.Name:
		what = "coverage"
		type row struct {
			Inst int64 `db:"inst"`
			Ratio
		}
		err = grouped(ctx, r, linesByInstSQL(list), args, func(v *row) { fig(v.Inst).Lines = &Ratio{Covered: v.Covered, Total: v.Total} })
		if err == nil && !headline {
			err = grouped(ctx, r, routinesByInstSQL(list), args, func(v *row) {
				if f := got[v.Inst]; f != nil {
					f.Routines = &Ratio{Covered: v.Covered, Total: v.Total}
				}
			})
			complete = func(f *Figures) bool { return f.Routines != nil }
		}
	case functiontrace.Name:
		what = "total time and calls"
		type row struct {
			Inst int64 `db:"inst"`
			traceFigures
		}
		err = grouped(ctx, r, traceFiguresOf(list), args, func(v *row) {
			f := fig(v.Inst)
			f.TotalTime, f.Calls = &v.Total, &v.Calls
		})
	case resource.Name:
		what = "live objects"
		type row struct {
			Inst      int64   `db:"inst"`
			LiveCount NullDec `db:"live_count"`
			LiveSize  NullDec `db:"live_size"`
		}
		err = grouped(ctx, r, classTotalsByInstSQL(rsClasses, list), args, func(v *row) {
			f := fig(v.Inst)
			f.LiveCount, f.LiveSize = &v.LiveCount, &v.LiveSize
		})
	case referencecount.Name:
		what = "objects"
		type row struct {
			Inst int64 `db:"inst"`
			refCounts
		}
		err = grouped(ctx, r, refObjectsByInstSQL(list), args, func(v *row) {
			f := fig(v.Inst)
			f.Objects, f.Alive = &v.Objects, &v.Alive
		})
	}
	if err != nil {
		return fmt.Errorf("read: result sets %d to %d: %s: %w", ins[0].InstID, ins[len(ins)-1].InstID, what, err)
	}
	for _, in := range ins {
		if f := got[in.InstID]; f != nil && complete(f) {
			if p == functiontrace.Name {
				f.Frequency, f.Counter = in.CounterFrequency.Float(), in.CounterName
			}
			out[in.InstID] = f
		}
	}
	return nil
}

// FigureCache keeps the figures of result sets that FiguresOf and
// Headlines read, for the readers of one database that follow each other
// (profdb serve's requests, each in a snapshot of its own): a result set
// is written once, in one transaction, and never changed, so its figures
// read in one snapshot are those of any later one that still holds it.
// Only the figures of a result set profdb's ledger (PROFDB_RESULT_SETS)
// lists are kept, under its INST_ID and export time: an INST_ID the
// ledger gave out is never given out again (a deleted set's row stays,
// marked), so no other result set can be found under it; a result set
// without a ledger row (AQTime's, or one written where the ledger could
// not be created) is read each time. It holds at most its size's figures,
// and is safe for concurrent use.
type FigureCache struct {
	mu   sync.Mutex
	size int
	m    map[int64]cachedFigures
}

type cachedFigures struct {
	exportedAt string
	f          Figures
	headline   bool // the headline's figures only (Headlines)
}

// NewFigureCache returns a cache of the figures of at most size result
// sets (about 200 bytes each).
func NewFigureCache(size int) *FigureCache {
	return &FigureCache{size: max(size, 1), m: map[int64]cachedFigures{}}
}

// UseCache has the reader's FiguresOf and Headlines take figures from c
// and keep there those they read; nil for none.
func (r *Reader) UseCache(c *FigureCache) { r.cache = c }

// get returns a copy of the figures kept of in, nil when none are, or
// when only the headline's are and headline does not say they will do.
func (c *FigureCache) get(in Instance, headline bool) *Figures {
	if in.exportedAt == "" {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[in.InstID]
	if !ok || e.exportedAt != in.exportedAt || e.headline && !headline {
		return nil
	}
	f := e.f
	return &f
}

// put keeps a copy of the figures f of in, when the ledger lists in
// (headline: the headline's figures only); a full cache is emptied first
// (the figures are read again on demand).
func (c *FigureCache) put(in Instance, f *Figures, headline bool) {
	if in.exportedAt == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.size {
		clear(c.m)
	}
	if e, ok := c.m[in.InstID]; ok && !e.headline && headline && e.exportedAt == in.exportedAt {
		return // all the figures are kept already
	}
	c.m[in.InstID] = cachedFigures{exportedAt: in.exportedAt, f: *f, headline: headline}
}
