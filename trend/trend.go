package trend

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/profdb/profdb/optionerr"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/profilers/referencecount"
	"github.com/profdb/profdb/profilers/resource"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// Options say which result sets a trend follows and what it holds.
type Options struct {
	// Filter chooses the result sets (store.Filter), oldest first.
	Filter store.Filter
	// File, when set, adds one source file's line coverage per run
	// (Light Coverage), the file named exactly as the result sets hold it.
	File string
	// Routine, when set, adds one routine's figures per run: its line
	// coverage (Light Coverage) or its calls, own time and time with
	// children (Function Trace). The routine is named by its full name
	// (readback.RoutineID.FullName); routines of that full name in several
	// modules are added up.
	Routine string
	// Top is the most movers listed; 0 means 10.
	Top int
}

// ErrUsage is wrapped by the error of Options that make no trend
// (Options.Check).
var ErrUsage = errors.New("trend: usage")

// Check reports whether the options make a trend: File and Routine each
// name the one item a trend follows, so at most one is given. Its error
// is an *optionerr.Error naming the fields, wrapping ErrUsage. Compute
// checks the options so; a command checks them before it opens a
// database.
func (o Options) Check() error {
	if o.File != "" && o.Routine != "" {
		return optionerr.New(ErrUsage, "trend.Options", "%[1]s and %[2]s: give one of them", "File", "Routine")
	}
	return nil
}

// ErrNoMatch is wrapped by the error of a filter that chooses no result
// set.
var ErrNoMatch = errors.New("no result set matches")

// ErrMixed is wrapped by the error of a filter that chooses result sets of
// several profilers, or function traces of different counters. For
// several profilers it is an *optionerr.Error naming Filter.Profiler,
// which chooses one.
var ErrMixed = errors.New("result sets that do not form one series")

// ErrNoItemFigures is wrapped by the error of Options.File or
// Options.Routine on result sets of a profiler that has no figures of a
// source file or a routine: an *optionerr.Error naming the field.
var ErrNoItemFigures = errors.New("trend: the result sets have no figures of that item")

// Trend is the figures of a series of result sets of one profiler, oldest
// first.
type Trend struct {
	Profiler string `json:"profiler"`
	// Item is the file or routine Options named, nil when none.
	Item *Item `json:"item,omitempty"`
	// Unit is what the times are in: "ms" when the counter's frequency is
	// known, else the counter's name (Function Trace only).
	Unit   string   `json:"time_unit,omitempty"`
	Runs   []Run    `json:"runs"`
	Series []Series `json:"series"`
	// Movers are the items whose figure changed most from the first run to
	// the last; nil with fewer than two runs.
	Movers *Movers `json:"movers,omitempty"`
}

// Item names the one file or routine a trend follows.
type Item struct {
	Kind string `json:"kind"` // "source file" or "routine"
	Name string `json:"name"`
}

// Run is one result set of the series: who it is and its figures.
type Run struct {
	InstID     int64             `json:"inst_id"`
	Caption    string            `json:"caption"`
	ExportedAt string            `json:"exported_at,omitempty"` // UTC, store.TimeFormat; "" where not recorded
	Identity   *resultset.Run    `json:"run,omitempty"`         // commit, branch, build, labels, where recorded
	Figures    *readback.Figures `json:"figures"`
	Item       *ItemFigures      `json:"item,omitempty"`
}

// ItemFigures are the figures of the file or routine a trend follows in
// one run. Present is false when the run does not have it.
type ItemFigures struct {
	Present   bool            `json:"present"`
	Lines     *readback.Ratio `json:"lines,omitempty"`              // Light Coverage
	Calls     *int64          `json:"calls,omitempty"`              // Function Trace
	Own       *int64          `json:"own_time,omitempty"`           // Function Trace, ticks
	WithChild *int64          `json:"time_with_children,omitempty"` // Function Trace, ticks
}

// Series is one figure over the runs, for a chart: Values has one entry
// per run, nil where the run lacks the figure (an item it does not have).
type Series struct {
	Key    string     `json:"key"`   // line_coverage, routine_coverage, total_time, calls, live_objects, live_size, objects, alive, item_…
	Label  string     `json:"label"` // for people: "line coverage"
	Unit   string     `json:"unit"`  // "%", "ms" or the counter, "calls", "objects", "bytes"
	Values []*float64 `json:"values"`
}

// Movers are the items whose figure changed most between the first run
// (A) and the last (B), largest change first.
type Movers struct {
	Kind   string  `json:"kind"`   // "source file", "routine", "class"
	Figure string  `json:"figure"` // "line coverage", "own time", "live objects"
	Unit   string  `json:"unit"`
	A      int64   `json:"a"` // INST_IDs
	B      int64   `json:"b"`
	Items  []Mover `json:"items"`
	Total  int64   `json:"changed"` // items whose figure changed; Items holds the first Top
}

// Mover is one item's figure in A and B.
type Mover struct {
	Name string  `json:"name"`
	A    float64 `json:"a"`
	B    float64 `json:"b"`
	InA  bool    `json:"in_a"`
	InB  bool    `json:"in_b"`
}

// Delta is B − A.
func (m Mover) Delta() float64 { return m.B - m.A }

// Drawable returns nil when Compute would find, for o, result sets of one
// profiler that form one series, and otherwise its error (wrapping
// ErrNoMatch or ErrMixed, or o's own). It reads the listing only, not the
// runs' figures: for a page that links to a trend only where there is one.
func Drawable(ctx context.Context, r *readback.Reader, o Options) error {
	if err := o.Check(); err != nil {
		return fmt.Errorf("trend: %w", err)
	}
	list, err := r.Select(ctx, o.Filter)
	if err != nil {
		return fmt.Errorf("trend: %w", err)
	}
	if len(list) == 0 {
		return fmt.Errorf("trend: %w %s", ErrNoMatch, Describe(o.Filter))
	}
	if err := oneProfiler(list); err != nil {
		return fmt.Errorf("trend: %w", err)
	}
	if _, err := oneSeries(list); err != nil {
		return fmt.Errorf("trend: %w", err)
	}
	return nil
}

// oneSeries returns the instances of list, an error wrapping ErrMixed
// unless each compares with the first (readback.Comparable: a trace's
// counter). The listing says all a run's figures need of it, a trace's
// counter too: a run costs the queries of its figures alone.
func oneSeries(list []store.Listing) ([]readback.Instance, error) {
	ins := make([]readback.Instance, len(list))
	for i, l := range list {
		ins[i] = readback.InstanceOf(l)
		if i > 0 {
			if err := readback.Comparable(ins[0], ins[i]); err != nil {
				return nil, fmt.Errorf("%w: %w", ErrMixed, err)
			}
		}
	}
	return ins, nil
}

// Compute reads the trend o describes through r.
func Compute(ctx context.Context, r *readback.Reader, o Options) (*Trend, error) {
	if err := o.Check(); err != nil {
		return nil, fmt.Errorf("trend: %w", err)
	}
	list, err := r.Select(ctx, o.Filter)
	if err != nil {
		return nil, fmt.Errorf("trend: %w", err)
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("trend: %w %s", ErrNoMatch, Describe(o.Filter))
	}
	if err := oneProfiler(list); err != nil {
		return nil, fmt.Errorf("trend: %w", err)
	}
	t := &Trend{Profiler: list[0].Profiler}
	switch {
	case o.File != "":
		if t.Profiler != lightcoverage.Name {
			return nil, fmt.Errorf("trend: %w", optionerr.New(ErrNoItemFigures, "trend.Options",
				"%[1]s: "+escape(t.Profiler)+" result sets have no source file figures (light-coverage ones do)", "File"))
		}
		t.Item = &Item{Kind: "source file", Name: o.File}
	case o.Routine != "":
		if t.Profiler != lightcoverage.Name && t.Profiler != functiontrace.Name {
			return nil, fmt.Errorf("trend: %w", optionerr.New(ErrNoItemFigures, "trend.Options",
				"%[1]s: "+escape(t.Profiler)+" result sets have no routine figures (light-coverage and function-trace ones do)", "Routine"))
		}
		t.Item = &Item{Kind: "routine", Name: o.Routine}
	}
	ins, err := oneSeries(list)
	if err != nil {
		return nil, fmt.Errorf("trend: %w", err)
	}
	// Every run's figures in a few queries (readback.FiguresOf).
	figs, err := r.FiguresOf(ctx, ins)
	if err != nil {
		return nil, fmt.Errorf("trend: %w", err)
	}
	for i, l := range list {
		in := ins[i]
		run := Run{InstID: l.InstID, Caption: l.Caption, ExportedAt: l.ExportedAt, Identity: l.Run, Figures: figs[l.InstID]}
		if t.Item != nil {
			if run.Item, err = itemFigures(ctx, r, in, o); err != nil {
				return nil, fmt.Errorf("trend: %w", err)
			}
		}
		t.Runs = append(t.Runs, run)
	}
	if t.Profiler == functiontrace.Name {
		_, t.Unit = readback.TimeScale(ins[0])
	}
	t.Series = t.series(ins[0])
	if len(ins) > 1 {
		if t.Movers, err = movers(ctx, r, ins[0], ins[len(ins)-1], o); err != nil {
			return nil, fmt.Errorf("trend: %w", err)
		}
	}
	return t, nil
}

// oneProfiler checks that the listed result sets are of one known
// profiler.
func oneProfiler(list []store.Listing) error {
	seen := map[string]bool{}
	var names []string
	for _, l := range list {
		if l.Profiler == "" {
			return fmt.Errorf("result set %d is of no profiler this build knows", l.InstID)
		}
		if !seen[l.Profiler] {
			seen[l.Profiler] = true
			names = append(names, l.Profiler)
		}
	}
	if len(names) > 1 {
		sort.Strings(names)
		msg := fmt.Sprintf("%s: result sets of %d profilers match (%s): name one with ", ErrMixed, len(names), strings.Join(names, ", "))
		return optionerr.New(ErrMixed, "trend.Options", escape(msg)+"%[1]s", "Filter.Profiler")
	}
	return nil
}

// escape is s in an optionerr message: its % signs doubled.
func escape(s string) string { return strings.ReplaceAll(s, "%", "%%") }

// Describe says what a filter looks for, for messages.
func Describe(f store.Filter) string {
	var parts []string
	if f.Profiler != "" {
		parts = append(parts, "profiler "+f.Profiler)
	}
	if f.Branch != "" {
		parts = append(parts, fmt.Sprintf("branch %q", f.Branch))
	}
	if f.Commit != "" {
		parts = append(parts, fmt.Sprintf("commit %q", f.Commit))
	}
	keys := make([]string, 0, len(f.Labels))
	for k := range f.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("label %q", k+"="+f.Labels[k]))
	}
	if f.Since != "" {
		parts = append(parts, "exported since "+f.Since)
	}
	if f.Caption != "" {
		parts = append(parts, fmt.Sprintf("caption containing %q", f.Caption))
	}
	if f.Before > 0 {
		parts = append(parts, fmt.Sprintf("INST_ID below %d", f.Before))
	}
	if len(parts) == 0 {
		return "(the database holds none)"
	}
	return strings.Join(parts, ", ")
}

func itemFigures(ctx context.Context, r *readback.Reader, in readback.Instance, o Options) (*ItemFigures, error) {
	it := &ItemFigures{}
	switch {
	case o.File != "":
		var lines readback.Ratio
		err := r.FileCoverage(ctx, in, in, func(f readback.FilePair) error {
			if f.Name == o.File && f.InA {
				it.Present = true
				lines = f.A
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if it.Present {
			it.Lines = &lines
		}
	case in.Profiler == lightcoverage.Name:
		var lines readback.Ratio
		err := r.RoutineCoverage(ctx, in, in, func(p readback.RoutinePair) error {
			if p.InA && p.FullName() == o.Routine {
				it.Present = true
				lines.Covered += p.A.Covered
				lines.Total += p.A.Total
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if it.Present {
			it.Lines = &lines
		}
	default:
		times, err := r.TimesByRoutine(ctx, in)
		if err != nil {
			return nil, err
		}
		var calls, own, with int64
		for id, v := range times {
			if id.FullName() == o.Routine {
				it.Present = true
				calls += v.Calls
				own += v.Own
				with += v.WithChild
			}
		}
		if it.Present {
			it.Calls, it.Own, it.WithChild = &calls, &own, &with
		}
	}
	return it, nil
}

// series lays the runs' figures out as charts take them.
func (t *Trend) series(first readback.Instance) []Series {
	var out []Series
	add := func(key, label, unit string, v func(Run) (float64, bool)) {
		s := Series{Key: key, Label: label, Unit: unit, Values: make([]*float64, len(t.Runs))}
		for i, run := range t.Runs {
			if x, ok := v(run); ok {
				s.Values[i] = &x
			}
		}
		out = append(out, s)
	}
	pct := func(r *readback.Ratio) (float64, bool) {
		if r == nil || r.Total == 0 {
			return 0, false
		}
		return r.Percent(), true
	}
	i64 := func(p *int64) (float64, bool) {
		if p == nil {
			return 0, false
		}
		return float64(*p), true
	}
	dec := func(p *readback.NullDec) (float64, bool) {
		if p == nil || *p == "" {
			return 0, false
		}
		return p.Float(), true
	}
	// The runs' counters are one (readback.Comparable), so one scale.
	scale, _ := readback.TimeScale(first)
	tm := func(p *int64) (float64, bool) {
		if p == nil {
			return 0, false
		}
		return float64(*p) * scale, true
	}
	switch t.Profiler {
	case lightcoverage.Name:
		add("line_coverage", "line coverage", "%", func(r Run) (float64, bool) { return pct(r.Figures.Lines) })
		add("routine_coverage", "routine coverage", "%", func(r Run) (float64, bool) { return pct(r.Figures.Routines) })
	case functiontrace.Name:
		add("total_time", "total time", t.Unit, func(r Run) (float64, bool) { return tm(r.Figures.TotalTime) })
		add("calls", "calls", "calls", func(r Run) (float64, bool) { return i64(r.Figures.Calls) })
	case resource.Name:
		add("live_objects", "live objects", "objects", func(r Run) (float64, bool) { return dec(r.Figures.LiveCount) })
		add("live_size", "live size", "bytes", func(r Run) (float64, bool) { return dec(r.Figures.LiveSize) })
	case referencecount.Name:
		add("alive", "objects alive at the end", "objects", func(r Run) (float64, bool) { return i64(r.Figures.Alive) })
		add("objects", "objects", "objects", func(r Run) (float64, bool) { return i64(r.Figures.Objects) })
	}
	if t.Item == nil {
		return out
	}
	name := t.Item.Kind + " " + t.Item.Name
	item := func(r Run) *ItemFigures {
		if r.Item == nil || !r.Item.Present {
			return nil
		}
		return r.Item
	}
	if t.Profiler == lightcoverage.Name {
		add("item_line_coverage", name+": line coverage", "%", func(r Run) (float64, bool) {
			if it := item(r); it != nil {
				return pct(it.Lines)
			}
			return 0, false
		})
		return out
	}
	ticks := func(p func(*ItemFigures) *int64) func(Run) (float64, bool) {
		return func(r Run) (float64, bool) {
			if it := item(r); it != nil {
				return tm(p(it))
			}
			return 0, false
		}
	}
	add("item_own_time", name+": own time", t.Unit, ticks(func(it *ItemFigures) *int64 { return it.Own }))
	add("item_time_with_children", name+": time with children", t.Unit, ticks(func(it *ItemFigures) *int64 { return it.WithChild }))
	add("item_calls", name+": calls", "calls", func(r Run) (float64, bool) {
		if it := item(r); it != nil {
			return i64(it.Calls)
		}
		return 0, false
	})
	return out
}

// movers compares the first run with the last: source files by line
// coverage (files in both), routines by own time, classes by live count.
func movers(ctx context.Context, r *readback.Reader, a, b readback.Instance, o Options) (*Movers, error) {
	top := o.Top
	if top <= 0 {
		top = 10
	}
	m := &Movers{A: a.InstID, B: b.InstID}
	// The items that changed, kept by readback.Top: memory grows with
	// top, not with the items.
	moved := readback.NewTop(top, func(x, y Mover) bool {
		if dx, dy := math.Abs(x.Delta()), math.Abs(y.Delta()); dx != dy {
			return dx > dy
		}
		return x.Name < y.Name
	})
	add := func(x Mover) {
		if x.Delta() != 0 {
			moved.Add(x)
		}
	}
	var err error
	switch a.Profiler {
	case lightcoverage.Name:
		m.Kind, m.Figure, m.Unit = "source file", "line coverage", "%"
		err = r.FileCoverage(ctx, a, b, func(f readback.FilePair) error {
			if f.InA && f.InB && f.A.Total > 0 && f.B.Total > 0 {
				add(Mover{Name: f.Name, A: f.A.Percent(), B: f.B.Percent(), InA: true, InB: true})
			}
			return nil
		})
	case functiontrace.Name:
		var scale float64
		scale, m.Unit = readback.TimeScale(a)
		m.Kind, m.Figure = "routine", "own time"
		err = r.OwnTimes(ctx, a, b, func(id readback.RoutineID, ownA, ownB int64) error {
			add(Mover{Name: id.FullName(), A: float64(ownA) * scale, B: float64(ownB) * scale, InA: ownA != 0, InB: ownB != 0})
			return nil
		})
	case resource.Name, referencecount.Name:
		m.Kind, m.Figure, m.Unit = "class", "live objects", "objects"
		err = r.ClassCompare(ctx, a, b, func(c readback.ClassPair) error {
			name := c.Name
			if c.Module != "" {
				name = c.Module + ": " + c.Name
			}
			add(Mover{Name: name, A: c.LiveCount[0], B: c.LiveCount[1], InA: c.InA, InB: c.InB})
			return nil
		})
	}
	if err != nil {
		return nil, err
	}
	l := moved.List()
	m.Items, m.Total = l.Items, l.Total
	return m, nil
}
