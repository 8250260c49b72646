package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/compare"
	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/store"
)

func newCompareCmd(rep *ledger) *cobra.Command {
	var dsn, schema, style string
	var asJSON bool
	var topN int
	var conn connOptions
	cmd := &cobra.Command{
		Use:   "compare [--db DSN] [--schema S] A B [--style difference|ratio|percent] [--top N] [--json]",
		Short: "Compare two result sets of one profiler",
		Long: `compare compares result set B with result set A (INST_IDs), as AQTime's
"Comparing Results" does. Items are matched by name (module, source file,
class, routine, line number), never by ID; the matching runs in the database.

  light-coverage   % of lines and routines covered in A and B; source files
                   and routines, largest change of % covered first; files and
                   routines in one set only; lines covered in A and not in B
                   (new misses) and the reverse (new hits)
  function-trace   calls, own time and time with children per routine,
                   largest change of own time first; refused when the two
                   traces were measured with different counters
  resource,        live count, live size, peak created and peak size per
  reference-count  class, largest change of live count first

Changes are in the --style: difference (B - A; for % covered, percentage
points), ratio (B / A) or percent ((B - A) / A x 100); ratio and percent of
a figure that is 0 in A print "-". Lists hold the first --top entries and say
how many there are in all. --json prints the same data as one JSON object.

Exit status: 0 when compared; 1 when the sets cannot be compared (different
profilers or counters); 2 when the comparison cannot be made: usage errors,
a database that cannot be opened or read, an INST_ID that names no result
set.`,
		Example: `  # two Go coverage runs of a module, before and after a change
  go test -coverprofile=before.out ./...
  go test -coverprofile=after.out ./...
  profdb export --caption before before.out    # INST_ID 1
  profdb export --caption after after.out      # INST_ID 2
  profdb compare 1 2

  profdb compare --db postgres://me@db/prof 12 14 --style percent --top 10
  profdb compare 1 2 --json`,
		Args: usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			var ids [2]int64
			for i, s := range args {
				n, err := strconv.ParseInt(s, 10, 64)
				if err != nil || n < 1 {
					return usageErrorf("compare: INST_ID must be a positive integer, not %q", s)
				}
				ids[i] = n
			}
			st, err := compare.ParseStyle(style)
			if err != nil {
				return usageErrorf("compare: --style must be difference, ratio or percent, not %q", style)
			}
			ctx := cmd.Context()
			db, err := conn.open(ctx, dsn, store.Options{Schema: schema, ReadOnly: true})
			if err != nil {
				return err
			}
			defer db.Close()
			r, err := readback.Begin(ctx, db)
			if err != nil {
				return fmt.Errorf("compare: %w", err)
			}
			defer r.Close()
			res, err := compare.Compare(ctx, r, ids[0], ids[1], compare.Options{Style: st, Top: topN})
			if errors.Is(err, compare.ErrIncomparable) {
				return negativeAnswer{err} // the sets cannot be compared: not a failure to compare them
			}
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), res)
			}
			return printComparison(cmd.OutOrStdout(), res, termWidth(cmd.OutOrStdout()))
		},
	}
	dbFlag(cmd, &dsn)
	f := cmd.Flags()
	f.StringVar(&schema, "schema", "", "schema (database on MySQL) holding the tables")
	f.StringVar(&style, "style", "difference", "how changes are given: difference, ratio or percent")
	positiveIntVar(f, &topN, "top", 20, "entries per list")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	connFlags(cmd, &conn, rep)
	return cmd
}

// change formats a figure's change in the style: "+12", "-3.5", "x1.50",
// "+50.0%", or "-" when the style does not define it.
func change(st compare.Style, f compare.Figure, unit func(float64) string) string {
	if f.Change == nil {
		return "-"
	}
	v := *f.Change
	switch st {
	case compare.Ratio:
		return "x" + strconv.FormatFloat(v, 'f', 2, 64)
	case compare.Percent:
		return signed(strconv.FormatFloat(v, 'f', 1, 64), v) + "%"
	}
	return signed(unit(v), v)
}

func signed(s string, v float64) string {
	if v > 0 {
		return "+" + s
	}
	return s
}

func count(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func pct(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func coverPct(covered, total int64) string { return readback.Percent(covered, total) }

// printComparison writes a comparison as aligned tables no wider than
// width, largest change first.
func printComparison(w io.Writer, res *compare.Result, width int) error {
	p := &printer{w: w, width: width}
	st := res.Style
	p.line("A: INST_ID %d  %s  %s", res.A.InstID, termtext.Name(res.A.Profiler), termtext.Quote(res.A.Caption))
	p.line("B: INST_ID %d  %s  %s", res.B.InstID, termtext.Name(res.B.Profiler), termtext.Quote(res.B.Caption))
	p.line("Changes: %s", compareStyleText(st))
	switch {
	case res.Coverage != nil:
		c := res.Coverage
		p.line("")
		for _, x := range []struct {
			what string
			c    compare.Cover
		}{{"Lines covered:   ", c.Lines}, {"Routines covered:", c.Routines}} {
			p.line("%s %d of %d (%s) -> %d of %d (%s), change %s", x.what, x.c.CoveredA, x.c.TotalA, coverPct(x.c.CoveredA, x.c.TotalA),
				x.c.CoveredB, x.c.TotalB, coverPct(x.c.CoveredB, x.c.TotalB), change(st, x.c.Percent, pct))
		}
		groups := func(title string, l compare.List[compare.GroupDiff], routine bool) {
			head := []string{"SOURCE FILE", "A COVERED", "A %", "B COVERED", "B %", "CHANGE"}
			if routine {
				head = append([]string{"ROUTINE"}, head...)
			}
			t := p.table(title, l.Omitted(), head...)
			for _, x := range l.Items {
				cells := []string{x.File, fmt.Sprintf("%d/%d", x.CoveredA, x.TotalA), coverPct(x.CoveredA, x.TotalA),
					fmt.Sprintf("%d/%d", x.CoveredB, x.TotalB), coverPct(x.CoveredB, x.TotalB), change(st, x.Percent, pct)}
				if routine {
					cells = append([]string{x.ID().FullName()}, cells...)
				}
				t.row(cells...)
			}
			t.flush()
		}
		groups("Source files, largest change first", c.Files, false)
		groups("Source files only in A", c.FilesOnlyA, false)
		groups("Source files only in B", c.FilesOnlyB, false)
		groups("Routines, largest change first", c.RoutineList, true)
		groups("Routines only in A", c.RoutinesOnlyA, true)
		groups("Routines only in B", c.RoutinesOnlyB, true)
		for _, l := range []struct {
			title string
			l     compare.List[compare.LineDiff]
		}{{"New misses: lines covered in A, not in B", c.NewMisses}, {"New hits: lines covered in B, not in A", c.NewHits}} {
			t := p.table(l.title, l.l.Omitted(), "SOURCE FILE", "LINE")
			for _, x := range l.l.Items {
				t.row(x.File, itoa(x.Line))
			}
			t.flush()
		}
		p.line("")
		p.line("Lines only in A: %d; only in B: %d", c.LinesOnlyA, c.LinesOnlyB)
	case res.Trace != nil:
		tr := res.Trace
		tf := &readback.Trace{Counter: tr.Counter, Frequency: tr.Frequency}
		ticks := func(v float64) string { return tf.Format(int64(v)) }
		p.line("Counter: %s; times in %s", termtext.Name(orDash(tr.Counter)), termtext.Name(tf.Unit()))
		p.line("")
		p.line("Calls: %s -> %s, change %s", count(tr.Calls.A), count(tr.Calls.B), change(st, tr.Calls, count))
		p.line("Time:  %s -> %s, change %s", ticks(tr.Time.A), ticks(tr.Time.B), change(st, tr.Time, ticks))
		p.line("Routines only in A: %d; only in B: %d", tr.OnlyA, tr.OnlyB)
		t := p.table("Routines, largest change of own time first", tr.Routines.Omitted(),
			"ROUTINE", "CALLS A", "CALLS B", "OWN A", "OWN B", "CHANGE", "CHANGE WITH CHILDREN")
		for _, x := range tr.Routines.Items {
			t.row(x.FullName(), count(x.Calls.A), count(x.Calls.B), ticks(x.Own.A), ticks(x.Own.B), change(st, x.Own, ticks),
				change(st, x.WithChild, ticks))
		}
		t.flush()
	case res.Classes != nil:
		c := res.Classes
		p.line("")
		p.line("Live objects: %s -> %s, change %s", count(c.LiveCount.A), count(c.LiveCount.B), change(st, c.LiveCount, count))
		p.line("Live size:    %s -> %s, change %s", count(c.LiveSize.A), count(c.LiveSize.B), change(st, c.LiveSize, count))
		p.line("Classes only in A: %d; only in B: %d", c.OnlyA, c.OnlyB)
		t := p.table("Classes, largest change of live count first", c.Classes.Omitted(),
			"CLASS", "MODULE", "LIVE A", "LIVE B", "CHANGE", "LIVE SIZE A", "LIVE SIZE B", "CHANGE")
		for _, x := range c.Classes.Items {
			t.row(x.Name, x.Module, count(x.LiveCount.A), count(x.LiveCount.B), change(st, x.LiveCount, count),
				count(x.LiveSize.A), count(x.LiveSize.B), change(st, x.LiveSize, count))
		}
		t.flush()
	}
	return p.err
}

func compareStyleText(st compare.Style) string {
	switch st {
	case compare.Ratio:
		return "ratio (B / A)"
	case compare.Percent:
		return "percent ((B - A) / A x 100)"
	}
	return "difference (B - A)"
}
