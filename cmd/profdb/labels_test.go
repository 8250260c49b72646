package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/profdb/profdb/internal/runid"
	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/resultset"
)

// TestLabelsBoundedOnWrite: a run takes at most runid.MaxLabels labels;
// more, given with --label, are a usage error naming the limit, and
// nothing is written.
func TestLabelsBoundedOnWrite(t *testing.T) {
	cov := example(t, "light-coverage.json")
	dir := t.TempDir()
	dsn := "sqlite:" + filepath.Join(dir, "l.db")
	labels := func(n int) []string {
		var args []string
		for i := 0; i < n; i++ {
			args = append(args, "--label", fmt.Sprintf("k%05d=v", i))
		}
		return args
	}
	for _, n := range []int{runid.MaxLabels + 1, 10000} {
		args := append([]string{"export", "--db", dsn, "--no-identity"}, labels(n)...)
		out, errOut, code := runCLI(t, append(args, cov)...)
		want := fmt.Sprintf("export: --label: %d labels given; a run has at most %d", n, runid.MaxLabels)
		if code != 2 || !strings.Contains(errOut, want) || out != "" {
			t.Errorf("export with %d labels: exit %d, %q, %q; want exit 2 saying %q", n, code, out, errOut, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "l.db")); err == nil {
		t.Error("an export refused created the database")
	}
	args := append([]string{"export", "--db", dsn, "-q", "--no-identity"}, labels(runid.MaxLabels)...)
	mustRun(t, append(args, cov)...)
	var list []struct{ Run *resultset.Run }
	if err := json.Unmarshal([]byte(mustRun(t, "list", "--db", dsn, "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Run == nil || len(list[0].Run.Labels) != runid.MaxLabels {
		t.Fatalf("list --json: %+v", list)
	}
	if out := mustRun(t, "list", "--db", dsn); !strings.Contains(out, fmt.Sprintf("k%05d=v ", runid.MaxLabels-1)) || strings.Contains(out, "more labels") {
		t.Errorf("list does not show every label of a run profdb wrote:\n%s", out)
	}
}

// bigDB is a database of result sets whose identity another tool wrote
// without profdb's bounds: with labels, of values of size bytes, on
// INST_ID 1; or, with size, every free-text value of n result sets (the
// label, branch, CI, build ID and URL, host, input, version and caption)
// that many bytes of "L". It returns the DSN.
func bigDB(t *testing.T, n, labels, size int) string {
	t.Helper()
	cov := example(t, "light-coverage.json")
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "big.db")
	for i := 0; i < n; i++ {
		mustRun(t, "export", "--db", dsn, "-q", "--no-identity", "--commit", testCommit, "--branch", "main",
			"--build-id", "7", "--build-url", "https://ci.example/7", "--label", "suite=unit", cov)
	}
	if labels > 0 {
		execAll(t, dsn, fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i < %d)
			INSERT INTO {%s} ({INST_ID}, {%s}, {%s}) SELECT 1, printf('k%%05d', i), 'v' || i FROM n`,
			labels-2, profilers.LabelsTable, profilers.ColLabelKey, profilers.ColLabelValue))
	}
	if size > 0 {
		big := fmt.Sprintf("replace(hex(zeroblob(%d)), '0', 'L')", size/2)
		execAll(t, dsn,
			fmt.Sprintf("UPDATE {%s} SET {%s} = %s", profilers.LabelsTable, profilers.ColLabelValue, big),
			fmt.Sprintf("UPDATE {%s} SET {%s} = %s, {%s} = %s, {%s} = %s, {%s} = 'https://ci.example/' || %s, {%s} = %s, {%s} = %s, {%s} = %s",
				profilers.ResultSetsTable, profilers.ColBranch, big, profilers.ColCI, big, profilers.ColBuildID, big, profilers.ColBuildURL, big,
				profilers.ColHost, big, profilers.ColInput, big, profilers.ColVersion, big),
			fmt.Sprintf("UPDATE {%s} SET {CAPTION} = %s", profilers.InstancesTable, big))
	}
	return dsn
}

// printed runs a command that prints text and checks it holds no more
// than most bytes, and each of want.
func printed(t *testing.T, most int, want []string, args ...string) string {
	t.Helper()
	out := mustRun(t, args...)
	if len(out) > most {
		t.Errorf("%s prints %d bytes, more than %d: %.600s…", args[0], len(out), most, out)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("%s does not print %q: %.600s…", args[0], w, out)
		}
	}
	return out
}

// reportOf writes report's page (with args, e.g. --trend) and returns it.
func reportOf(t *testing.T, dsn string, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r.html")
	mustRun(t, append([]string{"report", "--db", dsn, "-o", out}, args...)...)
	return string(mustRead(t, out))
}

// TestLabelsBoundedOnDisplay: the two cases of issue 39's item 8, labels
// written into the tables by another tool: 10,000 labels on one run, and
// a label value (and every other free-text value of the run's identity,
// and the caption) of 1 MiB on 8 runs. list, show, trend and the HTML
// report (a result set's page and the trend page) print a bounded amount,
// the labels that fit and how many more, each value cut with "…"; --json
// gives every label and every value whole.
func TestLabelsBoundedOnDisplay(t *testing.T) {
	t.Setenv("COLUMNS", "")
	t.Run("10,000 labels", func(t *testing.T) {
		dsn := bigDB(t, 2, 10000, 0)
		more := ",… and 9,984 more labels"
		printed(t, 2000, []string{"k00000=v0,k00001=v1,", "k00015=v15" + more}, "list", "--db", dsn)
		printed(t, 4000, []string{"     labels k00000=v0,", "k00015=v15" + more}, "show", "--db", dsn, "1")
		printed(t, 2000, nil, "trend", "--db", dsn)
		for _, page := range []string{reportOf(t, dsn, "--inst", "1"), reportOf(t, dsn, "--trend")} {
			if strings.Contains(page, "k00016") || strings.Count(page, "k0") > 16 {
				t.Errorf("the report shows more than %d labels", runid.MaxLabels)
			}
		}
		if page := reportOf(t, dsn, "--inst", "1"); !strings.Contains(page, "k00015=v15"+more) {
			t.Error("the report does not say how many labels it leaves out")
		}
		var list []struct{ Run *resultset.Run }
		if err := json.Unmarshal([]byte(mustRun(t, "list", "--db", dsn, "--json")), &list); err != nil {
			t.Fatal(err)
		}
		var show struct{ Instance struct{ Run *resultset.Run } }
		if err := json.Unmarshal([]byte(mustRun(t, "show", "--db", dsn, "--json", "1")), &show); err != nil {
			t.Fatal(err)
		}
		var trend struct {
			Runs []struct{ Run *resultset.Run }
		}
		if err := json.Unmarshal([]byte(mustRun(t, "trend", "--db", dsn, "--json")), &trend); err != nil {
			t.Fatal(err)
		}
		for what, run := range map[string]*resultset.Run{"list": list[0].Run, "show": show.Instance.Run, "trend": trend.Runs[0].Run} {
			if run == nil || len(run.Labels) != 10000 || run.Labels["k09998"] != "v9998" {
				t.Errorf("%s --json does not hold the 10,000 labels", what)
			}
		}
	})
	t.Run("1 MiB values", func(t *testing.T) {
		const size = 1 << 20
		dsn := bigDB(t, 8, 0, size)
		cut := strings.Repeat("L", termtext.QuoteRunes) + "…"
		// 8 rows of 8 values of 257 characters, and the rest.
		printed(t, 24000, []string{"suite=" + strings.Repeat("L", termtext.QuoteRunes-6) + "…", " " + cut + " "}, "list", "--db", dsn)
		printed(t, 6000, []string{"branch " + cut, "build " + cut, "labels suite="}, "show", "--db", dsn, "1")
		tr := printed(t, 4000, []string{"0123456789ab"}, "trend", "--db", dsn)
		for _, l := range strings.Split(tr, "\n") {
			if termtext.Width(l) > 100 && !strings.Contains(l, "…") {
				t.Errorf("trend prints a line of %d columns:\n%s", termtext.Width(l), l)
			}
		}
		for _, page := range []string{reportOf(t, dsn), reportOf(t, dsn, "--trend")} {
			if n := strings.Count(page, strings.Repeat("L", termtext.QuoteRunes+1)); n > 0 || !strings.Contains(page, cut) {
				t.Errorf("the report holds %d values longer than %d characters, or none cut", n, termtext.QuoteRunes)
			}
			if len(page) > 2<<20 {
				t.Errorf("the report is %d bytes", len(page))
			}
		}
		var list []struct {
			Caption, Host, Input string
			Run                  *resultset.Run
		}
		if err := json.Unmarshal([]byte(mustRun(t, "list", "--db", dsn, "--json")), &list); err != nil {
			t.Fatal(err)
		}
		if len(list) != 8 {
			t.Fatalf("list --json: %d result sets", len(list))
		}
		for _, l := range list {
			if l.Run == nil || len(l.Run.Labels["suite"]) != size || len(l.Run.Branch) != size || len(l.Caption) != size || len(l.Host) != size {
				t.Errorf("list --json does not give the values whole")
			}
		}
	})
}
