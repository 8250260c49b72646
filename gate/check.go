package gate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/profdb/profdb/internal/textout"
	"github.com/profdb/profdb/optionerr"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/readback"
)

// Rule names, as reports and JUnit test cases name them.
const (
	RuleMinCoverage     = "min-coverage"
	RuleMaxDrop         = "max-drop"
	RulePatchCoverage   = "patch-coverage"
	RuleMaxTimeIncrease = "max-time-increase"
)

// Options are the rules to check, each a percentage; a nil limit is a rule
// not checked. Percentages of coverage and max-drop's points lie in 0 to
// 100, MaxTimeIncrease is 0 or more; Check refuses others (ErrUsage).
type Options struct {
	// MinCoverage: the result set's line coverage is at least this.
	MinCoverage *float64
	// Baseline is the INST_ID MaxDrop and MaxTimeIncrease compare with.
	Baseline int64
	// MaxDrop: line coverage fell from the baseline's by at most this many
	// percentage points.
	MaxDrop *float64
	// Diff is the change whose added lines patch coverage counts;
	// MinPatchCoverage is the least patch coverage (0 when nil: the figure
	// is reported, the rule holds).
	Diff             *Patch
	MinPatchCoverage *float64
	// MaxTimeIncrease: the total time grew from the baseline's by at most
	// this percentage.
	MaxTimeIncrease *float64
	// Top is the most items a rule names, and the most changed files the
	// result set does not name that patch coverage lists; 0 means 10.
	Top int
	// MaxRanges is the most uncovered changed line ranges patch coverage
	// names; 0 means DefaultMaxRanges.
	MaxRanges int
}

// DefaultMaxRanges is the most uncovered changed line ranges patch coverage
// names by default.
const DefaultMaxRanges = 1000

func (o Options) top() int {
	if o.Top <= 0 {
		return 10
	}
	return o.Top
}

func (o Options) maxRanges() int {
	if o.MaxRanges <= 0 {
		return DefaultMaxRanges
	}
	return o.MaxRanges
}

// limits checks that every limit given is a number in its range.
func (o Options) limits() error {
	for _, l := range []struct {
		field string
		v     *float64
		max   float64
	}{
		{"MinCoverage", o.MinCoverage, 100},
		{"MaxDrop", o.MaxDrop, 100},
		{"MinPatchCoverage", o.MinPatchCoverage, 100},
		{"MaxTimeIncrease", o.MaxTimeIncrease, math.Inf(1)},
	} {
		if l.v == nil {
			continue
		}
		if err := CheckPercent(*l.v, l.max); err != nil {
			return optionErr("check: %s: "+strings.ReplaceAll(err.Error(), "%", "%%"), l.field)
		}
	}
	return nil
}

// CheckPercent returns an error unless v is a number from 0 to max.
func CheckPercent(v, max float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > max {
		if math.IsInf(max, 1) {
			return fmt.Errorf("%s is not a percentage (a number of 0 or more)", textout.Number(v))
		}
		return fmt.Errorf("%s is not a percentage from 0 to %s", textout.Number(v), textout.Number(max))
	}
	return nil
}

// ErrUsage is matched by errors.Is in the error of Check when the options
// do not make a check: no rule, a rule without what it needs, or a rule
// that does not apply to the result set's profiler. When the error is about
// Options fields, errors.As finds an *optionerr.Error naming them.
var ErrUsage = errors.New("check: usage")

// optionErr is the ErrUsage of the Options fields, named in msg by fmt
// verbs.
func optionErr(msg string, fields ...string) error {
	return optionerr.New(ErrUsage, "gate.Options", msg, fields...)
}

type usageErr string

func (e usageErr) Error() string        { return string(e) }
func (e usageErr) Is(target error) bool { return target == ErrUsage }

// incomparable is a baseline that does not compare with the result set
// (readback.Comparable): a usage error that wraps readback.ErrIncomparable.
type incomparable struct{ error }

func (e incomparable) Is(target error) bool { return target == ErrUsage }
func (e incomparable) Unwrap() error        { return e.error }

// Report is the outcome of a check: one entry per rule, in the order
// min-coverage, max-drop, patch-coverage, max-time-increase.
type Report struct {
	InstID   int64  `json:"inst_id"`
	Profiler string `json:"profiler"`
	Baseline int64  `json:"baseline,omitempty"`
	Passed   bool   `json:"passed"`
	Rules    []Rule `json:"rules"`
	// Names, which the caller sets, are how the report's notes name what
	// its reader can do; not part of the JSON.
	Names Names `json:"-"`
}

// Names are how a report's notes name what its reader can do about them,
// for a caller that names it its own way (a command line: its flags and
// commands). An empty one names the API.
type Names struct {
	// MaxRanges names what sets Options.MaxRanges, in the GitHub
	// annotation that says patch coverage left uncovered ranges out
	// (WriteGitHub); "gate.Options.MaxRanges" when empty.
	MaxRanges string
	// WholeReport names what prints the whole report, in the note of a
	// Markdown report cut short (WriteMarkdown), as Markdown;
	// "`(*gate.Report).WriteText`" when empty or longer than 100 bytes
	// (the room a cut report keeps for its note is bounded).
	WholeReport string
}

// maxRanges is Names.MaxRanges, or the Options field it names.
func (n Names) maxRanges() string {
	if n.MaxRanges == "" {
		return "gate.Options.MaxRanges"
	}
	return n.MaxRanges
}

// wholeReport is Names.WholeReport, or the method it names.
func (n Names) wholeReport() string {
	if n.WholeReport == "" || len(n.WholeReport) > 100 {
		return "`(*gate.Report).WriteText`"
	}
	return n.WholeReport
}

// Failed returns the rules that failed.
func (r *Report) Failed() []Rule {
	var out []Rule
	for _, x := range r.Rules {
		if !x.Passed {
			out = append(out, x)
		}
	}
	return out
}

// Rule is one rule's outcome: the figure, its limit, whether it holds, a
// one-line summary, and the items behind the figure (the worst first, at
// most Options.Top of them; Omitted says how many more there were).
type Rule struct {
	Name   string  `json:"name"`
	Passed bool    `json:"passed"`
	Value  float64 `json:"value"` // %, points or % increase, per the rule
	// Unbounded is set for a time that grew from a baseline of none: an
	// increase no percentage measures (Value is 0 then).
	Unbounded bool    `json:"unbounded,omitempty"`
	Limit     float64 `json:"limit"`
	Summary   string  `json:"summary"`

	Coverage *readback.Ratio `json:"coverage,omitempty"` // min-coverage, patch-coverage, max-drop (current)
	Before   *readback.Ratio `json:"baseline_coverage,omitempty"`
	Time     *TotalTime      `json:"total_time,omitempty"` // max-time-increase

	Files    []FileDrop      `json:"files,omitempty"`           // max-drop, min-coverage
	Lines    []LineRange     `json:"uncovered_lines,omitempty"` // patch-coverage
	Unknown  []string        `json:"unmatched_files,omitempty"` // patch-coverage: diff files the result set does not name
	Routines []RoutineChange `json:"routines,omitempty"`        // max-time-increase
	// Omitted is how many more items there were than the rule names (for
	// patch-coverage, uncovered ranges beyond Options.MaxRanges);
	// UnknownOmitted how many more unmatched files than Unknown lists
	// (beyond Options.Top).
	Omitted        int64 `json:"omitted,omitempty"`
	UnknownOmitted int64 `json:"unmatched_omitted,omitempty"`
}

// FileDrop is a source file's coverage in the baseline and now.
type FileDrop struct {
	Name   string         `json:"name"`
	Before readback.Ratio `json:"before"`
	After  readback.Ratio `json:"after"`
	// Missed is the change in uncovered lines (now less before).
	Missed int64 `json:"missed_change"`
}

// LineRange is a run of uncovered changed lines of one file, From to To
// (equal for one line), in the diff's path.
type LineRange struct {
	Path string `json:"path"`
	From int64  `json:"from"`
	To   int64  `json:"to"`
}

// String is "path:from-to", or "path:line" for one line.
func (l LineRange) String() string {
	if l.From == l.To {
		return l.Path + ":" + strconv.FormatInt(l.From, 10)
	}
	return l.Path + ":" + strconv.FormatInt(l.From, 10) + "-" + strconv.FormatInt(l.To, 10)
}

// TotalTime is the total time of a result set's baseline and of the result
// set, in Unit (as RoutineChange's).
type TotalTime struct {
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	Unit   string  `json:"unit"`
}

// RoutineChange is a routine's own time in the baseline and now, in Unit
// (ms when both result sets' counters give a frequency, else the counter's
// ticks).
type RoutineChange struct {
	Module    string  `json:"module,omitempty"`
	Namespace string  `json:"namespace,omitempty"`
	Class     string  `json:"class,omitempty"`
	Name      string  `json:"name"`
	Before    float64 `json:"before"`
	After     float64 `json:"after"`
	Unit      string  `json:"unit"`
}

// FullName is Namespace.Class::Name (readback.RoutineID.FullName).
func (rc RoutineChange) FullName() string {
	return readback.RoutineID{Module: rc.Module, Namespace: rc.Namespace, Class: rc.Class, Name: rc.Name}.FullName()
}

// Check evaluates the rules of o on result set inst. An error is returned
// when a result set is missing, the rules do not apply (errors.Is
// ErrUsage) or the database fails; a rule that fails is no error.
func Check(ctx context.Context, r *readback.Reader, inst int64, o Options) (*Report, error) {
	if o.MinCoverage == nil && o.MaxDrop == nil && o.Diff == nil && o.MinPatchCoverage == nil && o.MaxTimeIncrease == nil {
		return nil, optionErr("check: no rule given: set %s, %s, %s or %s", "MinCoverage", "MaxDrop", "MinPatchCoverage", "MaxTimeIncrease")
	}
	if (o.MaxDrop != nil || o.MaxTimeIncrease != nil) != (o.Baseline != 0) {
		if o.Baseline == 0 {
			return nil, optionErr("check: %s and %s compare with a baseline: set %s", "MaxDrop", "MaxTimeIncrease", "Baseline")
		}
		return nil, optionErr("check: %s is for %s or %s", "Baseline", "MaxDrop", "MaxTimeIncrease")
	}
	if o.MinPatchCoverage != nil && o.Diff == nil {
		return nil, optionErr("check: %s needs %s", "MinPatchCoverage", "Diff")
	}
	if err := o.limits(); err != nil {
		return nil, err
	}
	in, err := r.Instance(ctx, inst)
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	rep := &Report{InstID: inst, Profiler: in.Profiler, Baseline: o.Baseline}
	coverage := o.MinCoverage != nil || o.MaxDrop != nil || o.Diff != nil
	if coverage && in.Profiler != lightcoverage.Name {
		return nil, usageErr(fmt.Sprintf("check: result set %d is a %s result set: coverage rules need a light-coverage one", inst, in.Profiler))
	}
	if o.MaxTimeIncrease != nil && in.Profiler != functiontrace.Name {
		return nil, optionErr(fmt.Sprintf("check: result set %d is a %s result set: %%s needs a function-trace one", inst, strings.ReplaceAll(in.Profiler, "%", "%%")), "MaxTimeIncrease")
	}
	var base readback.Instance
	if o.Baseline != 0 {
		if base, err = r.Instance(ctx, o.Baseline); err != nil {
			return nil, fmt.Errorf("check: baseline: %w", err)
		}
		if err := readback.Comparable(base, in); err != nil {
			return nil, incomparable{fmt.Errorf("check: baseline %d and result set %d: %w", o.Baseline, inst, err)}
		}
	}
	add := func(rule Rule, err error) error {
		if err != nil {
			return fmt.Errorf("check: %s: %w", rule.Name, err)
		}
		rep.Rules = append(rep.Rules, rule)
		return nil
	}
	if o.MinCoverage != nil {
		if err := add(minCoverage(ctx, r, in, *o.MinCoverage, o.top())); err != nil {
			return nil, err
		}
	}
	if o.MaxDrop != nil {
		if err := add(maxDrop(ctx, r, in, base, *o.MaxDrop, o.top())); err != nil {
			return nil, err
		}
	}
	if o.Diff != nil {
		limit := 0.0
		if o.MinPatchCoverage != nil {
			limit = *o.MinPatchCoverage
		}
		if err := add(patchCoverage(ctx, r, in, o.Diff, limit, o.top(), o.maxRanges())); err != nil {
			return nil, err
		}
	}
	if o.MaxTimeIncrease != nil {
		if err := add(maxTimeIncrease(ctx, r, base, in, *o.MaxTimeIncrease, o.top())); err != nil {
			return nil, err
		}
	}
	rep.Passed = len(rep.Failed()) == 0
	return rep, nil
}

// listed is the entries a rule names, and how many more there were.
func listed[T any](t *readback.Top[T]) ([]T, int64) {
	l := t.List()
	if len(l.Items) == 0 {
		return nil, l.Omitted()
	}
	return l.Items, l.Omitted()
}

// atLeast reports whether covered/total is at least limit percent, exactly
// (covered*100 >= limit*total, not through a rounded quotient).
func atLeast(c readback.Ratio, limit float64) bool {
	return float64(c.Covered)*100 >= limit*float64(c.Total)
}

func minCoverage(ctx context.Context, r *readback.Reader, in readback.Instance, limit float64, top int) (Rule, error) {
	rule := Rule{Name: RuleMinCoverage, Limit: limit}
	c, err := r.LineCoverage(ctx, in)
	if err != nil {
		return rule, err
	}
	rule.Coverage, rule.Value, rule.Passed = &c, c.Percent(), c.Total > 0 && atLeast(c, limit)
	rule.Summary = fmt.Sprintf("line coverage %s (%d of %d lines), at least %s%% required", textout.Percent(c.Percent()), c.Covered, c.Total, textout.Number(limit))
	if c.Total == 0 {
		rule.Summary = noLines(fmt.Sprintf("result set %d", in.InstID), fmt.Sprintf("it has no line coverage to hold to %s%%", textout.Number(limit)))
		return rule, nil
	}
	if rule.Passed {
		return rule, nil
	}
	// The files with the most uncovered lines.
	worst := readback.NewTop(top, func(a, b FileDrop) bool {
		ma, mb := a.After.Total-a.After.Covered, b.After.Total-b.After.Covered
		if ma != mb {
			return ma > mb
		}
		return a.Name < b.Name
	})
	err = r.FileCoverage(ctx, in, in, func(f readback.FilePair) error {
		if a := f.A; a.Covered < a.Total {
			worst.Add(FileDrop{Name: f.Name, After: a, Missed: a.Total - a.Covered})
		}
		return nil
	})
	rule.Files, rule.Omitted = listed(worst)
	return rule, err
}

func maxDrop(ctx context.Context, r *readback.Reader, in, base readback.Instance, limit float64, top int) (Rule, error) {
	rule := Rule{Name: RuleMaxDrop, Limit: limit}
	now, err := r.LineCoverage(ctx, in)
	if err != nil {
		return rule, err
	}
	before, err := r.LineCoverage(ctx, base)
	if err != nil {
		return rule, err
	}
	// The drop is the change read backwards, the baseline's % less now's
	// (without lines on either side the rule fails below).
	drop, _ := readback.PointChange(now, before)
	rule.Coverage, rule.Before, rule.Value = &now, &before, drop
	// drop <= limit, exactly: (bc*nt - nc*bt)*100 <= limit*bt*nt.
	diff := (float64(before.Covered)*float64(now.Total) - float64(now.Covered)*float64(before.Total)) * 100
	rule.Passed = before.Total > 0 && now.Total > 0 && diff <= limit*float64(before.Total)*float64(now.Total)
	verb := "fell"
	if drop < 0 {
		verb = "rose"
	}
	rule.Summary = fmt.Sprintf("line coverage %s %s points, from %s to %s (baseline %d), at most %s allowed",
		verb, textout.Points(math.Abs(drop)), textout.Percent(before.Percent()), textout.Percent(now.Percent()), base.InstID, textout.Number(limit))
	switch {
	case now.Total == 0:
		rule.Summary = noLines(fmt.Sprintf("result set %d", in.InstID), fmt.Sprintf("no drop from baseline %d can be measured", base.InstID))
		return rule, nil
	case before.Total == 0:
		rule.Summary = noLines(fmt.Sprintf("baseline %d", base.InstID), "no drop from it can be measured")
		return rule, nil
	}
	// The files that lost most: the most new uncovered lines, then the
	// largest fall in %.
	worst := readback.NewTop(top, func(a, b FileDrop) bool {
		if a.Missed != b.Missed {
			return a.Missed > b.Missed
		}
		// The largest fall first: the most negative change.
		ca, _ := readback.PointChange(a.Before, a.After)
		cb, _ := readback.PointChange(b.Before, b.After)
		if ca != cb {
			return ca < cb
		}
		return a.Name < b.Name
	})
	err = r.FileCoverage(ctx, base, in, func(p readback.FilePair) error {
		b, a := p.A, p.B
		f := FileDrop{Name: p.Name, Before: b, After: a, Missed: (a.Total - a.Covered) - (b.Total - b.Covered)}
		lost := f.Missed > 0 || (b.Total > 0 && a.Total > 0 && a.Percent() < b.Percent())
		if lost {
			worst.Add(f)
		}
		return nil
	})
	rule.Files, rule.Omitted = listed(worst)
	return rule, err
}

// noLines is the summary of a coverage rule on a result set with no line:
// the rule fails, since a result set that knows no line shows nothing
// about the code (an empty or wrong input, a failed test run).
func noLines(set, what string) string {
	return set + " has no coverable line (0 lines): " + what + "; a coverage rule fails on a result set with no line"
}

// Status of a changed line.
const (
	unknownLine = iota // no profiler row knows it: it does not count
	coveredLine
	uncoveredLine
)

// patchCoverage counts the changed lines of p that the result set knows and
// those that ran. Its uncovered lines are the uncovered changed lines, as
// ranges, the first maxRanges of them: a range runs over consecutive
// changed lines that are uncovered or that no row knows, and starts and
// ends on uncovered ones. The changed files the result set does not name
// are listed, the first top of them. A result set with no line at all
// fails the rule, whatever the diff.
func patchCoverage(ctx context.Context, r *readback.Reader, in readback.Instance, p *Patch, limit float64, top, maxRanges int) (Rule, error) {
	rule := Rule{Name: RulePatchCoverage, Limit: limit}
	paths := make([]string, len(p.Files))
	for i, f := range p.Files {
		paths[i] = f.Path
	}
	m := newMatcher(paths)
	if err := r.SourceFiles(ctx, in, func(name string) error { m.add(name); return nil }); err != nil {
		return rule, err
	}
	// The matched files' changed lines, by the file name the result set
	// gives: one pass over the rows, each marking its line. A line's
	// status is at its position among its file's changed lines: the lines
	// before its run (before) and in the run before it.
	status := make([][]byte, len(p.Files))
	before := make([][]int64, len(p.Files))
	byName := map[string]int{}
	var names []string
	for i, f := range p.Files {
		name, ok := m.match(i)
		if !ok {
			if len(rule.Unknown) < top {
				rule.Unknown = append(rule.Unknown, f.Path)
			} else {
				rule.UnknownOmitted++
			}
			continue
		}
		before[i] = make([]int64, len(f.Runs))
		var n int64
		for j, run := range f.Runs {
			before[i][j] = n
			n += run.To - run.From + 1
		}
		status[i] = make([]byte, n)
		byName[name] = i
		names = append(names, name)
	}
	if len(names) > 0 {
		err := r.LinesOf(ctx, in, names, func(name string, line int64, covered bool) error {
			i, ok := byName[name]
			if !ok {
				return nil
			}
			runs := p.Files[i].Runs
			j, _ := slices.BinarySearchFunc(runs, line, func(s Span, l int64) int { return cmp.Compare(s.To, l) })
			if j == len(runs) || runs[j].From > line {
				return nil // not a changed line
			}
			at := before[i][j] + line - runs[j].From
			switch {
			case covered:
				status[i][at] = coveredLine
			case status[i][at] == unknownLine:
				status[i][at] = uncoveredLine
			}
			return nil
		})
		if err != nil {
			return rule, err
		}
	}
	var c readback.Ratio
	for i, f := range p.Files {
		if status[i] == nil {
			continue // not in the result set
		}
		for _, st := range status[i] {
			if st != unknownLine {
				c.Total++
			}
			if st == coveredLine {
				c.Covered++
			}
		}
		uncoveredRanges(f, status[i], func(l LineRange) {
			if len(rule.Lines) < maxRanges {
				rule.Lines = append(rule.Lines, l)
			} else {
				rule.Omitted++
			}
		})
	}
	rule.Coverage, rule.Value = &c, c.Percent()
	rule.Passed = c.Total == 0 || atLeast(c, limit)
	if c.Total == 0 {
		rule.Summary = fmt.Sprintf("no changed line is coverable (%d changed lines in %d files)", p.Lines(), len(p.Files))
		all, err := r.LineCoverage(ctx, in)
		if err != nil {
			return rule, err
		}
		if all.Total == 0 {
			rule.Passed = false
			rule.Summary = noLines(fmt.Sprintf("result set %d", in.InstID), fmt.Sprintf("patch coverage cannot be measured (%d changed lines in %d files)", p.Lines(), len(p.Files)))
		}
	} else {
		rule.Summary = fmt.Sprintf("patch coverage %s (%d of %d changed lines covered), at least %s%% required",
			textout.Percent(c.Percent()), c.Covered, c.Total, textout.Number(limit))
	}
	return rule, nil
}

// uncoveredRanges gives a file's uncovered changed lines to emit as
// ranges, in order.
func uncoveredRanges(f ChangedFile, status []byte, emit func(LineRange)) {
	var open bool
	var cur LineRange
	i, prev := 0, int64(0)
	for line := range f.All() {
		if open && (line != prev+1 || status[i] == coveredLine) {
			emit(cur)
			open = false
		}
		if status[i] == uncoveredLine {
			if open {
				cur.To = line
			} else {
				cur, open = LineRange{Path: f.Path, From: line, To: line}, true
			}
		}
		i, prev = i+1, line
	}
	if open {
		emit(cur)
	}
}
