package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/profdb/profdb/compare"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/exampletest"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// exportComparable exports two coverage sets (1, 2), two traces of
// different counters (3, 4) and a trace of 3's counter (5) into dsn.
func exportComparable(t *testing.T, dsn string) {
	t.Helper()
	ctx := context.Background()
	e, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for i, counts := range [][]int64{{1, 1, 0, 0}, {1, 0, 1, 3}} {
		b := lightcoverage.NewBuilder()
		r := b.AddRoutine(lightcoverage.RoutineInfo{Name: "Parse", Class: "Lexer", Module: "app", SourceFile: "src/lex.go"})
		for l, n := range counts[:3] {
			r.AddLine(int64(l+10), n)
		}
		b.AddRoutine(lightcoverage.RoutineInfo{Name: "main", Module: "app", SourceFile: "main.go"}).AddLine(3, counts[3])
		if _, err := b.Export(ctx, e, []string{"before", "after"}[i]); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range []string{"Time", "CPU Cycles", "Time"} {
		b := functiontrace.NewBuilder()
		b.SetCounter(&resultset.Counter{Name: c, Frequency: 1000})
		th := b.AddThread(functiontrace.ThreadInfo{})
		main := b.AddRoutine(functiontrace.RoutineInfo{Name: "main"})
		work := b.AddRoutine(functiontrace.RoutineInfo{Name: "Work", Class: "Pool"})
		n := int64(i + 1)
		if _, err := th.Enter(functiontrace.CallInfo{Routine: main, Count: 1, Time: 5, TimeWithChildren: 5 + 20*n}); err != nil {
			t.Fatal(err)
		}
		for range n {
			if _, err := th.Enter(functiontrace.CallInfo{Routine: work, Count: 1, Time: 20, TimeWithChildren: 20}); err != nil {
				t.Fatal(err)
			}
			if err := th.Exit(); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := b.Export(ctx, e, c); err != nil {
			t.Fatal(err)
		}
		b.Close()
	}
}

const compareText = `A: INST_ID 1  light-coverage  "before"
B: INST_ID 2  light-coverage  "after"
Changes: difference (B - A)

Lines covered:    2 of 4 (50.0%) -> 3 of 4 (75.0%), change +25.0
Routines covered: 1 of 2 (50.0%) -> 2 of 2 (100.0%), change +50.0

Source files, largest change first
  SOURCE FILE  A COVERED    A %  B COVERED     B %  CHANGE
  main.go      0/1         0.0%  1/1        100.0%  +100.0
  src/lex.go   2/3        66.7%  2/3         66.7%     0.0

Source files only in A
  (none)

Source files only in B
  (none)

Routines, largest change first
  ROUTINE       SOURCE FILE  A COVERED    A %  B COVERED     B %  CHANGE
  main          main.go      0/1         0.0%  1/1        100.0%  +100.0
  Lexer::Parse  src/lex.go   2/3        66.7%  2/3         66.7%     0.0

Routines only in A
  (none)

Routines only in B
  (none)

New misses: lines covered in A, not in B
  SOURCE FILE  LINE
  src/lex.go     11

New hits: lines covered in B, not in A
  SOURCE FILE  LINE
  main.go         3
  src/lex.go     12

Lines only in A: 0; only in B: 0
`

const compareTraceText = `A: INST_ID 3  function-trace  "Time"
B: INST_ID 5  function-trace  "Time"
Changes: difference (B - A)
Counter: Time; times in ms

Calls: 2 -> 4, change +2
Time:  25.000 ms -> 65.000 ms, change +40.000 ms
Routines only in A: 0; only in B: 0

Routines, largest change of own time first
  ROUTINE     CALLS A  CALLS B      OWN A      OWN B      CHANGE  CHANGE WITH CHILDREN
  Pool::Work        1        3  20.000 ms  60.000 ms  +40.000 ms            +40.000 ms
  main              1        1   5.000 ms   5.000 ms    0.000 ms            +40.000 ms
`

func TestCompareCLI(t *testing.T) {
	for _, dn := range dbtest.Dialects() {
		t.Run(dn, func(t *testing.T) {
			db := dbtest.Fresh(t, dn)
			exportComparable(t, db)
			out := mustRun(t, "compare", "--db", db, "1", "2")
			if out != compareText {
				t.Errorf("compare 1 2:\n%s\nwant\n%s", out, compareText)
			}
			if out := mustRun(t, "compare", "--db", db, "3", "5"); out != compareTraceText {
				t.Errorf("compare 3 5:\n%s\nwant\n%s", out, compareTraceText)
			}
			var res compare.Result
			if err := json.Unmarshal([]byte(mustRun(t, "compare", "--db", db, "1", "2", "--json", "--style", "ratio", "--top", "1")), &res); err != nil {
				t.Fatal(err)
			}
			c := res.Coverage
			if res.Style != compare.Ratio || res.A.InstID != 1 || res.B.InstID != 2 || c == nil || c.Lines.CoveredB != 3 ||
				*c.Lines.Percent.Change != 1.5 || c.Files.Total != 2 || len(c.Files.Items) != 1 || c.Files.Items[0].File != "main.go" ||
				c.Files.Items[0].Percent.Change != nil || c.NewHits.Total != 2 || len(c.NewHits.Items) != 1 {
				t.Errorf("compare --json --style ratio --top 1: %+v", res)
			}

			for _, c := range []struct {
				args   []string
				code   int
				stderr string
			}{
				{[]string{"1", "9"}, 2, "profdb: compare: read: no result set 9 in INSTANCES\n"},
				{[]string{"1"}, 2, "profdb: compare: accepts 2 arg(s), received 1\nRun 'profdb compare --help' for usage.\n"},
				{[]string{"1", "x"}, 2, "profdb: compare: INST_ID must be a positive integer or a selector (latest, branch:NAME, commit:SHA, label:KEY=VALUE, each with an optional ~N, or ancestor:REV, ancestor~N:REV), not \"x\"\nRun 'profdb compare --help' for usage.\n"},
				{[]string{"1", "2", "--style", "log"}, 2, "profdb: compare: --style must be difference, ratio or percent, not \"log\"\nRun 'profdb compare --help' for usage.\n"},
				{[]string{"1", "2", "--stlye", "ratio"}, 2, "profdb: compare: unknown flag: --stlye; did you mean --style?\nRun 'profdb compare --help' for usage.\n"},
				{[]string{"1", "3"}, 1, "profdb: compare: the result sets cannot be compared: result set 1 is light-coverage, result set 3 is function-trace\n"},
				{[]string{"3", "4"}, 1, "profdb: compare: the result sets cannot be compared: they were measured with different counters: \"Time\" (result set 3) and \"CPU Cycles\" (result set 4)\n"},
			} {
				out, stderr, code := runCLI(t, append([]string{"compare", "--db", db}, c.args...)...)
				if code != c.code || out != "" || stderr != c.stderr {
					t.Errorf("compare %s: exit %d, stdout %q, stderr %q; want %d, nothing, %q", strings.Join(c.args, " "), code, out, stderr, c.code, c.stderr)
				}
			}
		})
	}
	// report --compare: the comparison page, and a flame graph of the
	// change for two traces.
	db := dbtest.Fresh(t, "sqlite")
	exportComparable(t, db)
	html := filepath.Join(t.TempDir(), "cmp.html")
	mustRun(t, "report", "--db", db, "--compare", "3", "5", "-o", html)
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<a href="#compare">Compare 3 and 5</a>`, `<h3>Differential flame graph</h3>`,
		`<tr data-routine="Pool::Work" data-own-delta="40">`, `<a href="#inst-3">`, `<a href="#inst-5">`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report --compare 3 5: the page has no %s", want)
		}
	}
	if strings.Contains(string(page), `<a href="#inst-4">`) {
		t.Error("report --compare 3 5 reports result set 4 too")
	}
	if _, stderr, code := runCLI(t, "report", "--db", db, "--compare", "3", "-o", html); code != 2 ||
		stderr != "profdb: report: accepts 2 arg(s), received 1\nRun 'profdb report --help' for usage.\n" {
		t.Errorf("report --compare 3: exit %d, stderr %q", code, stderr)
	}
	if _, stderr, code := runCLI(t, "report", "--db", db, "3", "-o", html); code != 2 || !strings.Contains(stderr, "unknown command \"3\"") {
		t.Errorf("report 3: exit %d, stderr %q", code, stderr)
	}

	// A database that cannot be opened: 2.
	if _, stderr, code := runCLI(t, "compare", "--db", "nosuch://x", "1", "2"); code != 2 || !strings.HasPrefix(stderr, "profdb: compare: ") {
		t.Errorf("compare on a bad DSN: exit %d, stderr %q; want 2", code, stderr)
	}
}

// The guide's worked example: two go test -coverprofile runs of a small
// module (testdata/calc, before and after its tests changed), exported
// and compared, print what the guide shows. The commits git would give
// the two exports are given by --commit and --branch.
func TestCompareGuideExample(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "prof.db")
	for _, run := range []struct{ name, commit string }{
		{"before", "4c1e9f0a7b2350d6e8f91a2b3c4d5e6f70819a2b"},
		{"after", "9d27b5e3c8401f6a2b3c4d5e6f708192a3b4c5d6"},
	} {
		mustRun(t, "export", "--db", db, "--source-root", filepath.Join("testdata", "calc"), "--caption", run.name,
			"--no-identity", "--commit", run.commit, "--branch", "main", filepath.Join("testdata", "calc", run.name+".out"))
	}
	out := mustRun(t, "compare", "--db", db, "1", "2")
	guide := readRepoFile(t, "docs/guide.md")
	start := strings.Index(guide, "$ profdb compare 1 2\n")
	if start < 0 {
		t.Fatal("docs/guide.md: no `$ profdb compare 1 2` example")
	}
	example := guide[start+len("$ profdb compare 1 2\n"):]
	example = example[:strings.Index(example, "```")]
	parts := strings.Split(example, "...\n")
	if len(parts) < 3 {
		t.Fatalf("docs/guide.md: the compare example has %d parts", len(parts))
	}
	for _, part := range parts {
		if !strings.Contains(out, part) {
			t.Errorf("profdb compare 1 2 does not print the guide's\n%s\nit prints\n%s", part, out)
		}
	}
}

// compare prints what a Go user rendering the library's Result gets
// (compare's TestResultTextAndJSON pins those bytes): the command only
// parses flags, compares and passes its writer and width on.
func TestCompareIsTheLibrarys(t *testing.T) {
	ctx := context.Background()
	dsn := sqliteDSN(t)
	exportComparable(t, dsn)
	ids, err := exampletest.Export(ctx, "../..", dsn) // resource against itself, for classes
	if err != nil {
		t.Fatal(err)
	}
	r, err := readback.Open(ctx, dsn, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, p := range [][2]int64{{1, 2}, {3, 5}, {ids["resource"], ids["resource"]}} {
		a, b := strconv.FormatInt(p[0], 10), strconv.FormatInt(p[1], 10)
		for _, st := range compare.Styles {
			res, err := compare.Compare(ctx, r, p[0], p[1], compare.Options{Style: st, Top: 1})
			if err != nil {
				t.Fatal(err)
			}
			for _, width := range []int{100, 40} {
				t.Setenv("COLUMNS", strconv.Itoa(width))
				printsTheLibrarys(t, func(w io.Writer) error { return res.WriteText(withTopHint(w), width) },
					"compare", "--db", dsn, "--style", string(st), "--top", "1", a, b)
			}
			printsTheLibrarys(t, res.WriteJSON, "compare", "--db", dsn, "--style", string(st), "--top", "1", "--json", a, b)
		}
	}
}
