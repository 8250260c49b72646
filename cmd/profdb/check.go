package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/gate"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/selector"
	"github.com/profdb/profdb/store"
)

// percentValue is a flag holding a percentage ("80", "80%", "2.5") that
// may be unset, from 0 to max (+Inf: no upper bound).
type percentValue struct {
	p   **float64
	max float64
}

func (v percentValue) String() string {
	if v.p == nil || *v.p == nil {
		return ""
	}
	return strconv.FormatFloat(**v.p, 'f', -1, 64)
}

func (v percentValue) Set(s string) error {
	f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err == nil {
		err = gate.CheckPercent(f, v.max)
	}
	if err != nil {
		if math.IsInf(v.max, 1) {
			return fmt.Errorf("%q is not a percentage (a number of 0 or more)", s)
		}
		return fmt.Errorf("%q is not a percentage (a number from 0 to %s)", s, strconv.FormatFloat(v.max, 'f', -1, 64))
	}
	*v.p = &f
	return nil
}

func (v percentValue) Type() string { return "P" }

// checkOptions are the flags of "profdb check".
type checkOptions struct {
	dsn, schema, diffFile, format, baseline string
	topN, maxRanges                         int
	allowEmptyDiff                          bool
	gate                                    gate.Options
	conn                                    connOptions
}

func newCheckCmd(rep *ledger) *cobra.Command {
	var o checkOptions
	cmd := &cobra.Command{
		Use:     "check [--db DSN] [--schema S] RESULT_SET [--min-coverage P] [--baseline B --max-drop P] [--diff FILE --min-patch-coverage P] [--max-time-increase P] [--format text|json|junit|github|markdown]",
		Short:   "Gate a CI run on coverage, patch coverage and time",
		Long:    checkLong,
		Example: checkExample,
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE:    o.run,
	}
	dbFlag(cmd, &o.dsn)
	f := cmd.Flags()
	f.StringVar(&o.schema, "schema", "", "schema (database on MySQL) holding the tables")
	f.Var(percentValue{&o.gate.MinCoverage, 100}, "min-coverage", "least line coverage, in % (0 to 100)")
	f.StringVar(&o.baseline, "baseline", "", "the result set (`INST_ID` or selector) --max-drop and --max-time-increase compare with")
	f.Var(percentValue{&o.gate.MaxDrop, 100}, "max-drop", "largest fall of line coverage from --baseline, in percentage points (0 to 100)")
	f.StringVar(&o.diffFile, "diff", "", "unified diff whose added lines patch coverage counts (- for standard input)")
	f.Var(percentValue{&o.gate.MinPatchCoverage, 100}, "min-patch-coverage", "least patch coverage of --diff, in % (0 to 100)")
	f.Var(percentValue{&o.gate.MaxTimeIncrease, math.Inf(1)}, "max-time-increase", "largest growth of total time over --baseline, in % (0 or more)")
	f.StringVar(&o.format, "format", "text", "report format: text, json, junit, github or markdown")
	positiveIntVar(f, &o.topN, "top", 10, "most files or routines a failing rule names, and most changed files the result set does not name that patch coverage lists")
	f.BoolVar(&o.allowEmptyDiff, "allow-empty-diff", false, "take an empty --diff for a change of no line instead of an error (a git diff that fails in a pipeline hands on nothing too)")
	positiveIntVar(f, &o.maxRanges, "max-ranges", gate.DefaultMaxRanges, "most uncovered changed line ranges patch coverage names")
	connFlags(cmd, &o.conn, rep)
	return cmd
}

const checkLong = `check holds a result set to rules and exits 0 when every rule holds, 1 when
one fails, and 2 when the check cannot be made (a usage error, no connection,
a missing result set). RESULT_SET and --baseline B are INST_IDs or selectors
(latest, branch:NAME, commit:SHA, label:KEY=VALUE, each with an optional ~N,
or ancestor:REV, ancestor~N:REV; docs/selectors.md); a selector for B picks
among the result sets of RESULT_SET's profiler, newest first, RESULT_SET
counted among them, so that ~N means what it does for RESULT_SET
(--baseline latest~1 beside latest is the run before it) and --baseline
ancestor:origin/main takes the newest run of the same profiler at the
nearest commit before the branch that has one. A selector without ~N passes
over RESULT_SET when it is its newest match (check latest --baseline
branch:main run on main compares with main's run before); one with ~N that
names RESULT_SET itself is a usage error. Percentages are given as numbers (80, 2.5, or 80%),
from 0 to 100 (--max-time-increase: 0 or more); others are usage errors.
A coverage rule fails on a result set that has no line at all, whatever the
limit: it shows nothing about the code.

  --min-coverage P          the line coverage of a light-coverage result set
                            is at least P%; fails naming the files with the
                            most uncovered lines
  --baseline B --max-drop P its line coverage fell by at most P points from
                            result set B's; fails naming the files that lost
                            most (new uncovered lines, then the fall in %)
  --diff FILE               a unified diff as git diff prints it (- for
  --min-patch-coverage P    standard input): of the lines it adds to its new
                            files, those some profiler row knows are
                            coverable, and at least P% of them ran (patch
                            coverage). Comments and blank lines do not count.
                            A diff path is matched to the result set's file
                            names by the longest common path tail, so Go
                            import paths, LCOV absolute paths and Cobertura
                            relative ones all match. Fails naming the
                            uncovered changed lines as file:line ranges
                            (the first --max-ranges of them). --diff alone
                            reports patch coverage and holds. Input with
                            no file header (git's error message, say) is an
                            error, and so is an empty one, unless
                            --allow-empty-diff: a git diff that fails in a
                            pipeline hands on nothing, so pipe git diff
                            into check under set -o pipefail.
  --baseline B              the total time of a function-trace result set
  --max-time-increase P     grew by at most P% over result set B's (the same
                            counter); fails naming the routines whose own
                            time grew most

--format text (default) prints a line per rule and the items under it; json
the same as one object; junit a JUnit XML report (a testcase per rule) for
CI test reports; github GitHub Actions annotations (::error file=…,line=…)
on the uncovered changed lines; markdown a pull-request comment (GitHub
Flavored Markdown: a verdict, a table of the rules, the uncovered changed
lines by file, the files and routines that did worst; names as code spans;
at most 60,000 bytes, cut short with a note beyond). The report is printed
whatever the outcome, and the exit status is the same in every format.`

const checkExample = `  # in CI, after exporting this run's coverage (bash: a git diff that
  # fails must stop the job)
  set -euo pipefail
  git diff origin/main...HEAD |
    profdb check --db "$PROFDB_DB" latest --min-coverage 70 \
      --baseline ancestor:origin/main --max-drop 1 \
      --diff - --min-patch-coverage 80 --format github

  # the report as a pull-request comment (GitHub CLI), posted when the
  # check passed (exit 0) or failed (1); the job ends with check's status
  status=0
  git diff origin/main...HEAD > change.diff
  profdb check --db "$PROFDB_DB" latest --min-coverage 70 \
    --diff change.diff --min-patch-coverage 80 \
    --format markdown > comment.md || status=$?
  if [ "$status" -le 1 ]; then gh pr comment "$PR" --body-file comment.md; fi
  exit "$status"

  # a worked example (two test shards exported, compared, merged, gated on
  # a real diff) with its output: docs/guide.md, "A worked example: two
  # runs in CI"`

// run checks the result set args[0] names.
func (o *checkOptions) run(cmd *cobra.Command, args []string) error {
	sel, err := parseSelector("check", args[0])
	if err != nil {
		return err
	}
	var base *selector.Selector
	if cmd.Flags().Changed("baseline") {
		b, err := parseSelector("check: --baseline", o.baseline)
		if err != nil {
			return err
		}
		base = &b
	}
	write, ok := checkFormats[o.format]
	if !ok {
		return usageErrorf("check: --format must be text, json, junit, github or markdown, not %q", o.format)
	}
	opts := o.gate
	opts.Top, opts.MaxRanges = o.topN, o.maxRanges
	if o.diffFile != "" {
		if opts.Diff, err = readDiff(cmd, o.diffFile, o.allowEmptyDiff); err != nil {
			return err
		}
	}
	ctx := cmd.Context()
	db, err := o.conn.open(ctx, o.dsn, store.Options{Schema: o.schema, ReadOnly: true})
	if err != nil {
		return err
	}
	defer db.Close()
	first, err := resolveFirst(ctx, db, "check", sel)
	if err != nil {
		return err
	}
	if base != nil {
		b, err := resolveSecond(ctx, db, "check: --baseline", *base, first)
		if err != nil {
			return err
		}
		opts.Baseline = b.InstID
	}
	r, err := readback.Begin(ctx, db)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	defer r.Close()
	report, err := gate.Check(ctx, r, first.InstID, opts)
	if errors.Is(err, gate.ErrUsage) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	report.Names = gate.Names{MaxRanges: fieldName(cmd, "gate.Options", "MaxRanges"),
		WholeReport: "`" + cmd.CommandPath() + " --format text`"}
	if err := write(report, cmd.OutOrStdout()); err != nil {
		return fmt.Errorf("check: %w", err)
	}
	if failed := report.Failed(); len(failed) > 0 {
		names := make([]string, len(failed))
		for i, x := range failed {
			names[i] = x.Name
		}
		return no("check: %d of %d rules failed: %s", len(failed), len(report.Rules), strings.Join(names, ", "))
	}
	return nil
}

// checkFormats write a check's report in each --format.
var checkFormats = map[string]func(*gate.Report, io.Writer) error{
	"text":     (*gate.Report).WriteText,
	"json":     (*gate.Report).WriteJSON,
	"junit":    (*gate.Report).WriteJUnit,
	"github":   (*gate.Report).WriteGitHub,
	"markdown": (*gate.Report).WriteMarkdown,
}

// readDiff reads and parses the diff of --diff ("-": standard input); an
// empty one is an error unless allowEmpty.
func readDiff(cmd *cobra.Command, name string, allowEmpty bool) (*gate.Patch, error) {
	var in io.Reader = cmd.InOrStdin()
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("check: --diff: %w", err)
		}
		defer f.Close()
		in = f
	}
	p, err := gate.ParseDiff(cmd.Context(), in)
	if allowEmpty && errors.Is(err, gate.ErrEmptyDiff) {
		return &gate.Patch{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("check: --diff %s: %w", name, err)
	}
	return p, nil
}
