package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/internal/trendtest"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/store"
	"github.com/profdb/profdb/trend"
)

// profdb trend end to end on SQLite: the text, JSON and CSV it prints are
// the library's (trend.Trend's writers, whose goldens are trend's) for the
// filters given as flags; hostile names stay escaped; what it refuses
// exits 2 with a message that says why.
func TestTrendIsTheLibrarys(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	ctx := context.Background()
	dsn := sqliteDSN(t)
	h, err := trendtest.Export(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		o    trend.Options
	}{
		{[]string{"--branch", "main", "--profiler", "light-coverage"}, trend.Options{Filter: store.Filter{Branch: "main", Profiler: "light-coverage", Last: 100}}},
		{[]string{"--label", "suite=unit", "--last", "3", "--file", trendtest.HostileFile, "--top", "1"},
			trend.Options{Filter: store.Filter{Labels: map[string]string{"suite": "unit"}, Last: 3}, File: trendtest.HostileFile, Top: 1}},
		{[]string{"--profiler", "function-trace", "--routine", "app.work", "--since", "30d"},
			trend.Options{Filter: store.Filter{Profiler: "function-trace", Since: time.Now().Add(-30 * 24 * time.Hour).UTC().Format(store.TimeFormat), Last: 100}, Routine: "app.work"}},
	} {
		r, err := readback.Open(ctx, dsn, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		lib, err := trend.Compute(ctx, r, c.o)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		var text, js, csv strings.Builder
		if err := lib.WriteText(withTopHint(&text), 100); err != nil {
			t.Fatal(err)
		}
		if err := lib.WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		if err := lib.WriteCSV(&csv); err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct {
			flags []string
			want  string
		}{{nil, text.String()}, {[]string{"--format", "text"}, text.String()}, {[]string{"--json"}, js.String()},
			{[]string{"--format", "json"}, js.String()}, {[]string{"--format", "csv"}, csv.String()}} {
			args := append(append([]string{"trend", "--db", dsn}, c.args...), f.flags...)
			out := mustRun(t, args...)
			if out != f.want {
				t.Errorf("profdb %s:\n%s\nthe library writes\n%s", strings.Join(args[3:], " "), out, f.want)
			}
			if strings.ContainsRune(out, '\x1b') {
				t.Errorf("profdb %s prints a terminal escape from the data", strings.Join(args[3:], " "))
			}
		}
	}
	// --last 2: the two newest, oldest first.
	var got trend.Trend
	if err := json.Unmarshal([]byte(mustRun(t, "trend", "--db", dsn, "--branch", "main", "--profiler", "light-coverage", "--last", "2", "--json")), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Runs) != 2 || got.Runs[0].InstID != h.Coverage[2] || got.Runs[1].InstID != h.Coverage[3] {
		t.Errorf("--last 2: %+v", got.Runs)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--branch", "main"}, "result sets of 4 profilers match (function-trace, light-coverage, reference-count, resource): name one with --profiler"},
		{[]string{"--branch", "nope"}, `no result set matches branch "nope"`},
		{[]string{"--profiler", "nope"}, "--profiler"},
		{[]string{"--label", "suite"}, `--label: label "suite": want KEY=VALUE`},
		{[]string{"--since", "yesterday"}, "--since"},
		{[]string{"--commit", "xyz"}, `--commit "xyz": want 7 or more hexadecimal digits`},
		{[]string{"--commit", "abcdef"}, `--commit "abcdef": want 7 or more hexadecimal digits`},
		{[]string{"--last", "-1"}, "--last must be 0 (all) or more"},
		{[]string{"--format", "xml"}, "--format must be text, json or csv"},
		{[]string{"--json", "--format", "csv"}, "--json and --format csv"},
		{[]string{"--file", "a.go", "--routine", "f"}, "--file and --routine"},
		{[]string{"--profiler", "resource", "--file", "a.go"}, "--file: resource result sets have no source file figures"},
		{[]string{"extra"}, "unknown command"},
	} {
		out, errOut, code := runCLI(t, append([]string{"trend", "--db", dsn}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.msg) {
			t.Errorf("trend %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, out, errOut, c.msg)
		}
	}
}

// report --trend writes the trend page of the result sets the filters
// choose (report's tests check the page); filters without --trend, and
// --trend with --compare or --inst, are usage errors.
func TestReportTrend(t *testing.T) {
	dsn := sqliteDSN(t)
	h, err := trendtest.Export(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "trend.html")
	mustRun(t, "report", "--db", dsn, "--trend", "--branch", "main", "--profiler", "light-coverage", "--file", "a.go", "-o", out)
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range h.Coverage {
		if !strings.Contains(string(page), fmt.Sprintf(`<tr id="run-%d"`, id)) {
			t.Errorf("the page has no row for run %d", id)
		}
	}
	if n := strings.Count(string(page), `<a class="point"`); n != 3*len(h.Coverage) {
		t.Errorf("%d points, want %d (3 series of %d runs)", n, 3*len(h.Coverage), len(h.Coverage))
	}
	for _, args := range [][]string{
		{"--branch", "main"},
		{"--trend", "--compare", "1", "2"},
		{"--trend", "--inst", "1"},
		{"--trend", "--branch", "main"},
		{"--trend", "--profiler", "resource", "--last", "-1"},
	} {
		_, errOut, code := runCLI(t, append([]string{"report", "--db", dsn, "-o", filepath.Join(t.TempDir(), "x.html")}, args...)...)
		if code != 2 || errOut == "" {
			t.Errorf("report %s: exit %d, %q; want exit 2 and a message", strings.Join(args, " "), code, errOut)
		}
	}
	// trend.Options.Check's error, worded with report's flags, as trend's.
	_, errOut, code := runCLI(t, "report", "--db", dsn, "-o", out, "--trend", "--file", "a.go", "--routine", "f")
	if want := "profdb: report: --file and --routine: give one of them\n"; code != 2 || !strings.HasPrefix(errOut, want) {
		t.Errorf("report --trend --file --routine: exit %d, %q; want exit 2 and %q", code, errOut, want)
	}
}

// testCommit is a full commit name for --commit.
const testCommit = "0123456789abcdef0123456789abcdef01234567"

// TestTrendLongBranchKeepsTheDate: at the default width (100 columns),
// a branch too long for the runs' table is cut, never the export time,
// the commit nor a figure (issue 39, item 9: the time printed as
// "…28 22:21:26").
func TestTrendLongBranchKeepsTheDate(t *testing.T) {
	t.Setenv("COLUMNS", "")
	dsn := sqliteDSN(t)
	branch := "feature/" + strings.Repeat("a-long-branch-name-", 6)
	for i := 0; i < 2; i++ {
		mustRun(t, "export", "--db", dsn, "-q", "--no-identity", "--commit", testCommit, "--branch", branch,
			"--build-id", "1234", example(t, "light-coverage.json"))
	}
	out := mustRun(t, "trend", "--db", dsn)
	var rows int
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || (f[0] != "1" && f[0] != "2") {
			continue
		}
		rows++
		if len(f) != 8 || !regexp.MustCompile(`^\d{4}-\d\d-\d\d$`).MatchString(f[1]) || !regexp.MustCompile(`^\d\d:\d\d:\d\d$`).MatchString(f[2]) ||
			f[3] != testCommit[:12] || !strings.HasPrefix(f[4], "…") || f[5] != "1234" || f[6] != "61.9%" || f[7] != "66.7%" {
			t.Errorf("trend's row of INST_ID %s: %q, want the time, commit and figures whole and the branch cut", f[0], l)
		}
		if w := termtext.Width(l); w > 100 {
			t.Errorf("trend's row is %d columns wide: %q", w, l)
		}
	}
	if rows != 2 {
		t.Errorf("trend prints %d rows of runs, want 2:\n%s", rows, out)
	}
}
