package lcov

import (
	"bufio"
	"bytes"
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dustin/go-humanize/english"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
)

// FormatName is the name the format is registered under.
const FormatName = "lcov"

func init() {
	input.Register(input.Format{Name: FormatName, Sniff: Sniff, Read: Read})
}

// Sniff reports whether head starts like an LCOV tracefile: its first
// non-blank line is a TN: or SF: record.
func Sniff(head []byte) bool {
	head = bytes.TrimPrefix(head, []byte("\uFEFF"))
	sc := bufio.NewScanner(bytes.NewReader(head))
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		return bytes.HasPrefix(line, []byte("TN:")) || bytes.HasPrefix(line, []byte("SF:"))
	}
	return false
}

// Read reads the LCOV tracefile r (named name in messages) and writes one
// light-coverage result set to t. Nothing is written when a record is
// malformed. Warnings (o.Warnf) report what the tracefile holds that the
// tables cannot: lines outside every function, FNDA counts of unknown
// functions, negative counts, unknown record types. A note (o.Notef) gives
// the tracefile's own totals as lcov --summary prints them, lines outside
// every function included. A tracefile with no DA record (no SF record, or
// only function records) holds no result set: Read writes nothing and
// returns none.
func Read(ctx context.Context, r io.Reader, name string, t resultset.Target, o input.Options) ([]resultset.Result, error) {
	warnf := o.Warnf
	if warnf == nil {
		warnf = func(string, ...any) {}
	}
	tr, err := parseTrace(ctx, r, name)
	if err != nil {
		return nil, err
	}
	if o.Notef != nil {
		o.Notef("%s", tr.summary(name))
	}
	if !tr.hasLines() {
		return nil, nil
	}
	b := build(tr, name, warnf)
	defer b.Close()
	caption := "lcov: " + filepath.Base(name)
	if len(tr.tests) == 1 {
		caption += " (" + tr.tests[0] + ")"
	}
	res, err := b.Export(ctx, t, caption)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return []resultset.Result{res}, nil
}

// build turns a parsed tracefile into a Builder, warning about what it
// leaves out.
func build(tr *trace, name string, warnf func(string, ...any)) *lightcoverage.Builder {
	if tr.negatives > 0 {
		warnf("%s:%d: %d negative counts taken as 0", name, tr.negAt, tr.negatives)
	}
	for _, k := range tr.unknownAt {
		warnf("%s: %d %s: records of an unknown type ignored", name, tr.unknown[k], k)
	}
	b := lightcoverage.NewBuilder()
	b.SetSpool(0, "") // each routine's lines are added with it
	var outside, outsideFiles int
	var firstOutside string
	for _, f := range tr.files {
		for _, fname := range sortedKeys(f.fnda) {
			if _, ok := f.byName[fname]; !ok {
				warnf("%s:%d: FNDA for %s, which no FN of SF:%s defines: ignored", name, f.fndaAt[fname], fname, f.name)
			}
		}
		if len(f.funcs) == 0 {
			if len(f.lines) > 0 {
				warnf("%s:%d: SF:%s has no function records: its %s not counted", name, f.at, f.name, english.Plural(len(f.lines), "line is", "lines are"))
			}
			continue
		}
		owner, n := assign(f)
		if n > 0 {
			if outsideFiles == 0 {
				firstOutside = f.name
			}
			outside += n
			outsideFiles++
		}
		funcs := slices.Clone(f.funcs)
		slices.SortStableFunc(funcs, func(x, y *function) int { return cmp.Compare(x.start, y.start) })
		module := dir(f.name)
		for _, fn := range funcs {
			rt := b.AddRoutine(lightcoverage.RoutineInfo{
				Name:       fn.name,
				Module:     module,
				SourceFile: f.name,
				SourceLine: fn.start,
				Count:      f.fnda[fn.name],
				LineLevel:  true,
			})
			for _, l := range owner[fn] {
				rt.AddLine(l, f.lines[l])
			}
		}
	}
	if outside > 0 {
		warnf("%s: %s in %s (first SF:%s) %s outside every function and %s not counted",
			name, english.Plural(outside, "line", ""), english.Plural(outsideFiles, "file", ""), firstOutside,
			english.PluralWord(outside, "lies", "lie"), english.PluralWord(outside, "is", "are"))
	}
	return b
}

// assign gives each DA line of f to the function that contains it: of the
// functions whose extent holds the line, the one that starts last (the
// innermost); of functions starting on the same line, the first defined. A
// function's extent runs from its start line to its end line, or, without
// an end line, to the line before the next function's start line (or the
// end of the file). It returns each function's lines, ascending, and the
// number of lines no function holds.
func assign(f *sourceFile) (map[*function][]int64, int) {
	funcs := slices.Clone(f.funcs)
	slices.SortStableFunc(funcs, func(x, y *function) int { return cmp.Compare(x.start, y.start) })
	last := make([]int64, len(funcs)) // last line of each extent
	nextStart := int64(math.MaxInt64) // the next greater start line
	for i := len(funcs) - 1; i >= 0; i-- {
		if i+1 < len(funcs) && funcs[i+1].start > funcs[i].start {
			nextStart = funcs[i+1].start
		}
		if funcs[i].end != 0 {
			last[i] = funcs[i].end
		} else if nextStart == math.MaxInt64 {
			last[i] = math.MaxInt64
		} else {
			last[i] = nextStart - 1
		}
	}
	lines := sortedKeys(f.lines)
	owner := map[*function][]int64{}
	outside := 0
	h := &active{}
	next := 0
	for _, l := range lines {
		for next < len(funcs) && funcs[next].start <= l {
			heap.Push(h, item{fn: funcs[next], last: last[next]})
			next++
		}
		for h.Len() > 0 && (*h)[0].last < l {
			heap.Pop(h) // ended: lines only grow
		}
		if h.Len() == 0 {
			outside++
			continue
		}
		fn := (*h)[0].fn
		owner[fn] = append(owner[fn], l)
	}
	return owner, outside
}

// item is a function whose extent has started.
type item struct {
	fn   *function
	last int64
}

// active is a heap of started functions, the one starting last on top
// (then the first defined).
type active []item

func (a active) Len() int { return len(a) }
func (a active) Less(i, j int) bool {
	if a[i].fn.start != a[j].fn.start {
		return a[i].fn.start > a[j].fn.start
	}
	return a[i].fn.order < a[j].fn.order
}
func (a active) Swap(i, j int) { a[i], a[j] = a[j], a[i] }
func (a *active) Push(x any)   { *a = append(*a, x.(item)) }
func (a *active) Pop() any {
	old := *a
	x := old[len(old)-1]
	*a = old[:len(old)-1]
	return x
}

// dir is the folder part of a source file path, with / or \ separators:
// the module of the file's routines.
func dir(p string) string {
	i := strings.LastIndexAny(p, `/\`)
	switch {
	case i < 0:
		return "."
	case i == 0:
		return p[:1]
	}
	return p[:i]
}

func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// summary gives the totals of the whole tracefile as lcov --summary does:
// every DA line and every FN function of every file, hit when its count is
// above 0.
func (tr *trace) summary(name string) string {
	var lines, linesHit, funcs, funcsHit int
	for _, f := range tr.files {
		for _, c := range f.lines {
			lines++
			if c > 0 {
				linesHit++
			}
		}
		for _, fn := range f.funcs {
			funcs++
			if f.fnda[fn.name] > 0 {
				funcsHit++
			}
		}
	}
	rate := func(hit, found int, what string) string {
		if found == 0 {
			return "no data found"
		}
		return fmt.Sprintf("%.1f%% (%d of %d %s)", float64(hit)*100/float64(found), hit, found, what)
	}
	return fmt.Sprintf("%s: lines......: %s, functions..: %s", name, rate(linesHit, lines, "lines"), rate(funcsHit, funcs, "functions"))
}
