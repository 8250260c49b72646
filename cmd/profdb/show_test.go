package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/exampletest"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/store"
)

func TestShowEveryExample(t *testing.T) {
	dsn := sqliteDSN(t)
	mustRun(t, "export", "--db", dsn, "../../examples/light-coverage.json", "../../examples/function-trace.json",
		"../../examples/resource.json", "../../examples/reference-count.json")
	for inst, want := range map[string][]string{
		"1": {"light-coverage", "Lines covered:    13 of 21 (61.9%)", `C:\src\strutil\strutil.cpp        3      7  42.9%`},
		"2": {"function-trace", "Routines by own time", "Worker::Compute", "Threads"},
		"3": {"resource", "Routines that allocate most", "CreateFileW"},
		"4": {"reference-count", "Objects alive at the end", "CDocument"},
	} {
		out := mustRun(t, "show", "--db", dsn, inst)
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("show %s: no %q in\n%s", inst, w, out)
			}
		}
		var s readback.Summary
		if err := json.Unmarshal([]byte(mustRun(t, "show", "--db", dsn, "--json", inst)), &s); err != nil {
			t.Fatalf("show --json %s: %v", inst, err)
		}
		if s.Instance.Profiler != want[0] {
			t.Errorf("show --json %s: profiler %q", inst, s.Instance.Profiler)
		}
	}
}

func TestShowFitsTheWidth(t *testing.T) {
	dsn := sqliteDSN(t)
	mustRun(t, "export", "--db", dsn, "../../examples/light-coverage.json")
	t.Setenv("COLUMNS", "50")
	out := mustRun(t, "show", "--db", dsn, "1")
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "  ") && utf8.RuneCountInString(l) > 50 {
			t.Errorf("line wider than 50: %q", l)
		}
	}
	if !strings.Contains(out, "…strutil.cpp") {
		t.Errorf("long names are not cut keeping their end:\n%s", out)
	}
}

func TestShowErrors(t *testing.T) {
	dsn := sqliteDSN(t)
	mustRun(t, "export", "--db", dsn, "../../examples/light-coverage.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"show", "--db", dsn, "7"}, "no result set 7 in INSTANCES"},
		{[]string{"show", "--db", dsn, "x"}, "INST_ID must be a positive integer"},
	} {
		_, stderr, code := runCLI(t, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "panic") {
			t.Errorf("%v: %d %s", c.args, code, stderr)
		}
	}
}

func TestReportCommand(t *testing.T) {
	dsn := sqliteDSN(t)
	mustRun(t, "export", "--db", dsn, "../../examples/light-coverage.json", "../../examples/function-trace.json")
	out := filepath.Join(t.TempDir(), "r.html")
	mustRun(t, "report", "--db", dsn, "-o", out)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<tr data-inst="1">`, `<tr data-inst="2">`, "61.9% of lines covered", `<svg class="flame"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	mustRun(t, "report", "--db", dsn, "--inst", "2", "-o", out)
	if b := string(mustRead(t, out)); strings.Contains(b, `<tr data-inst="1">`) || !strings.Contains(b, `<tr data-inst="2">`) {
		t.Error("--inst 2 does not report INST_ID 2 alone")
	}
	before := mustRead(t, out)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--db", dsn}, "-o FILE.html is required"},
		{[]string{"report", "--db", dsn, "--inst", "9", "-o", out}, "no result set 9 in INSTANCES"},
	} {
		_, stderr, code := runCLI(t, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: %d %s", c.args, code, stderr)
		}
	}
	// A failed report leaves the previous file as it was.
	if after := mustRead(t, out); !bytes.Equal(after, before) {
		t.Error("a failed report changed the output file")
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestShowAndReportOnEveryDialect is the "done when": export,
// show and report, on every database.
func TestShowAndReportOnEveryDialect(t *testing.T) {
	for _, dn := range dbtest.Dialects() {
		t.Run(dn, func(t *testing.T) {
			dsn := dbtest.Fresh(t, dn)
			mustRun(t, "export", "--db", dsn, "../../examples/light-coverage.json")
			if out := mustRun(t, "show", "--db", dsn, "1"); !strings.Contains(out, "Lines covered:    13 of 21 (61.9%)") {
				t.Errorf("show:\n%s", out)
			}
			out := filepath.Join(t.TempDir(), "r.html")
			mustRun(t, "report", "--db", dsn, "-o", out)
			if b := mustRead(t, out); !strings.Contains(string(b), "61.9% of lines covered") {
				t.Error("the report lacks the headline")
			}
		})
	}
}

// TestExportPrintsLcovSummary exports each LCOV tracefile of the lcov
// reader's tests and checks that export notes the tracefile's totals as
// lcov --summary gives them (lines outside every function included), and
// that show's line figures count the lines in routines, which the tables
// hold.
func TestExportPrintsLcovSummary(t *testing.T) {
	lcov, err := exec.LookPath("lcov")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("lcov is not installed (CI installs it)")
		}
		t.Skip("lcov is not installed")
	}
	files, _ := filepath.Glob("../../input/lcov/testdata/*.info")
	if len(files) == 0 {
		t.Fatal("no tracefiles in ../../input/lcov/testdata")
	}
	version, err := exec.Command(lcov, "--version").Output()
	if err != nil {
		t.Fatalf("lcov --version: %v", err)
	}
	lcov1 := regexp.MustCompile(`version 1\.`)
	lcov2Records := regexp.MustCompile(`(?m)^(FN:\d+,\d+,|FNL:)`)
	lcovLine := regexp.MustCompile(`(?m)^\s*(lines\.+|functions\.+): (.*)$`)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			out, err := exec.Command(lcov, "--summary", f).CombinedOutput()
			if err != nil {
				t.Fatalf("lcov --summary: %v\n%s", err, out)
			}
			var want []string
			for _, m := range lcovLine.FindAllStringSubmatch(string(out), -1) {
				want = append(want, m[1]+": "+strings.TrimSpace(m[2]))
			}
			if len(want) != 2 {
				t.Fatalf("no lines and functions totals in lcov --summary:\n%s", out)
			}
			dsn := sqliteDSN(t)
			_, stderr, code := runCLI(t, "export", "--db", dsn, f)
			if code != 0 {
				t.Fatalf("export: exit %d: %s", code, stderr)
			}
			note := "profdb: " + f + ": " + strings.Join(want, ", ") + "\n"
			if data, _ := os.ReadFile(f); lcov1.Match(version) && lcov2Records.Match(data) {
				// lcov 1.x misreads lcov 2.x's FN records with an end line
				// and knows no FNL/FNA: compare the lines alone.
				note = "profdb: " + f + ": " + want[0] + ", functions..: "
			}
			if !strings.Contains(stderr, note) {
				t.Errorf("export does not note lcov --summary's totals %q:\n%s", note, stderr)
			}
			if _, stderr, code := runCLI(t, "export", "--db", dsn, "--quiet", f); code != 0 || strings.Contains(stderr, "lines......") {
				t.Errorf("export --quiet: exit %d; it must succeed without noting the totals:\n%s", code, stderr)
			}
		})
	}
}

// show prints what a Go user rendering the library's Summary gets
// (readback's TestSummaryTextAndJSON pins those bytes): the command only
// parses flags, reads and passes its writer and width on.
func TestShowIsTheLibrarys(t *testing.T) {
	ctx := context.Background()
	dsn := sqliteDSN(t)
	ids, err := exampletest.Export(ctx, "../..", dsn)
	if err != nil {
		t.Fatal(err)
	}
	r, err := readback.Open(ctx, dsn, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, inst := range ids {
		s, err := r.Summarize(ctx, inst, readback.Options{Top: 2})
		if err != nil {
			t.Fatal(err)
		}
		id := strconv.FormatInt(inst, 10)
		for _, width := range []int{100, 50} {
			t.Setenv("COLUMNS", strconv.Itoa(width))
			printsTheLibrarys(t, func(w io.Writer) error { return s.WriteText(withTopHint(w), width) }, "show", "--db", dsn, "--top", "2", id)
		}
		printsTheLibrarys(t, s.WriteJSON, "show", "--db", dsn, "--top", "2", "--json", id)
	}
}

// printsTheLibrarys checks that profdb args prints what write writes.
func printsTheLibrarys(t *testing.T, write func(io.Writer) error, args ...string) {
	t.Helper()
	var want bytes.Buffer
	if err := write(&want); err != nil {
		t.Fatal(err)
	}
	if got := mustRun(t, args...); got != want.String() {
		t.Errorf("profdb %s (COLUMNS=%s):\n%s\nthe library writes\n%s", strings.Join(args, " "), os.Getenv("COLUMNS"), got, want.String())
	}
}
