package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/resultset"
)

// shownRun is the run show --json gives, and whether its instance has the
// key at all.
func shownRun(t *testing.T, out string) (*resultset.Run, bool) {
	t.Helper()
	var s struct {
		Instance map[string]json.RawMessage `json:"instance"`
	}
	checkJSON(t, out, &s)
	raw, ok := s.Instance["run"]
	if !ok {
		return nil, false
	}
	var run resultset.Run
	if err := json.Unmarshal(raw, &run); err != nil {
		t.Fatalf("show --json: run: %v", err)
	}
	return &run, true
}

// lines are the first n lines of a command's output.
func lines(out string, n int) []string {
	l := strings.SplitN(out, "\n", n+1)
	return l[:min(n, len(l))]
}

// TestShowRunIdentity: show names the run under its head line — commit
// (12 digits), branch, CI, build and URL, then the labels, and for a merge
// the INST_IDs it combined — and --json gives it as the instance's "run",
// with list --json's fields; a result set exported with --no-identity,
// and one of a database AQTime wrote, have no such line and no "run".
// compare names each side's commit and branch the same way.
func TestShowRunIdentity(t *testing.T) {
	cov := example(t, "light-coverage.json")
	head := inGitRepo(t)
	dsn := sqliteDSN(t)
	mustRun(t, "export", "--db", dsn, "-q", "--label", "suite=unit", "--label", "os=linux", "--build-id", "42",
		"--build-url", "https://ci.example/42", cov) // 1
	mustRun(t, "export", "--db", dsn, "-q", "--no-identity", cov) // 2
	mustRun(t, "merge", "--db", dsn, "--no-identity", "2", "1")   // 3

	clean := false
	want := &resultset.Run{Commit: head, Branch: "trunk", Dirty: &clean, CI: "git", BuildID: "42", BuildURL: "https://ci.example/42",
		Labels: map[string]string{"suite": "unit", "os": "linux"}}
	for _, c := range []struct {
		inst string
		text []string
		run  *resultset.Run
	}{
		{"1", []string{
			"Run: commit " + head[:12] + "  branch trunk  ci git  build 42  https://ci.example/42",
			"     labels os=linux,suite=unit",
			"61.9% of lines covered",
		}, want},
		{"2", []string{"61.9% of lines covered"}, nil},
		{"latest", []string{"Run: merged from INST_ID 1, 2", "61.9% of lines covered"}, &resultset.Run{MergedFrom: []int64{1, 2}}},
	} {
		out := mustRun(t, "show", "--db", dsn, c.inst)
		if got := lines(out, len(c.text)+1)[1:]; !reflect.DeepEqual(got, c.text) {
			t.Errorf("show %s: head\n%q\nwant\n%q", c.inst, got, c.text)
		}
		run, has := shownRun(t, mustRun(t, "show", "--db", dsn, "--json", c.inst))
		if has != (c.run != nil) || !reflect.DeepEqual(run, c.run) {
			t.Errorf("show --json %s: run %+v (key there: %v), want %+v", c.inst, run, has, c.run)
		}
	}
	// The names are list --json's.
	var listed []struct {
		Run json.RawMessage `json:"run"`
	}
	checkJSON(t, mustRun(t, "list", "--db", dsn, "--json"), &listed)
	var s struct {
		Instance struct {
			Run json.RawMessage `json:"run"`
		} `json:"instance"`
	}
	checkJSON(t, mustRun(t, "show", "--db", dsn, "--json", "1"), &s)
	if string(listed[0].Run) != string(s.Instance.Run) {
		t.Errorf("show --json's run\n%s\nis not list --json's\n%s", s.Instance.Run, listed[0].Run)
	}

	out := mustRun(t, "compare", "--db", dsn, "1", "2")
	if got, w := lines(out, 2), []string{
		`A: INST_ID 1  light-coverage  "Sample.exe - unit tests"  commit ` + head[:12] + "  branch trunk",
		`B: INST_ID 2  light-coverage  "Sample.exe - unit tests"`,
	}; !reflect.DeepEqual(got, w) {
		t.Errorf("compare 1 2: head\n%q\nwant\n%q", got, w)
	}
	var cmp struct {
		A, B map[string]json.RawMessage
	}
	checkJSON(t, mustRun(t, "compare", "--db", dsn, "--json", "1", "2"), &cmp)
	if _, ok := cmp.B["run"]; string(cmp.A["run"]) != string(s.Instance.Run) || ok {
		t.Errorf("compare --json: a.run %s, b.run %s; want show's and none", cmp.A["run"], cmp.B["run"])
	}

	// A database AQTime wrote: none of profdb's tables, no identity.
	aq := sqliteDSN(t)
	mustRun(t, "export", "--db", aq, "-q", cov)
	aqtimeMade(t, aq)
	out = mustRun(t, "show", "--db", aq, "1")
	if got := lines(out, 2)[1]; got != "61.9% of lines covered" {
		t.Errorf("show of AQTime's database: second line %q\n%s", got, out)
	}
	if run, has := shownRun(t, mustRun(t, "show", "--db", aq, "--json", "1")); has {
		t.Errorf("show --json of AQTime's database: run %+v", run)
	}
}

// TestHostileRunIdentity: a branch, a label and a build URL another program
// wrote with what a terminal obeys and markup (the hostile fixture's first
// caption) reach show, compare and report escaped: no raw control
// character on the terminal, the values quoted as names are; --json gives
// them back exactly; report's page escapes them and links the build only
// when its URL is http(s).
func TestHostileRunIdentity(t *testing.T) {
	var sets []struct{ Caption string }
	checkJSON(t, string(mustRead(t, hostileFixture)), &sets)
	evil := sets[0].Caption
	if _, ok := rawControl(evil); !ok || !strings.Contains(evil, "<script>") {
		t.Fatalf("the fixture's first caption %q is not hostile", evil)
	}
	cov := example(t, "light-coverage.json")
	inGitRepo(t)
	dsn := sqliteDSN(t)
	mustRun(t, "export", "--db", dsn, "-q", "--build-url", "javascript:alert(1)", "--build-id", "7", cov) // 1
	mustRun(t, "export", "--db", dsn, "-q", "--build-url", "https://ci.example/8?a=1&b=<2>", cov)         // 2
	sql := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	execAll(t, dsn,
		"UPDATE {"+profilers.ResultSetsTable+"} SET {"+profilers.ColBranch+"} = "+sql(evil)+" WHERE {INST_ID} = 1",
		"INSERT INTO {"+profilers.LabelsTable+"} ({INST_ID}, {"+profilers.ColLabelKey+"}, {"+profilers.ColLabelValue+"}) VALUES (1, 'k', "+sql(evil)+")",
		"UPDATE {"+profilers.ResultSetsTable+"} SET {"+profilers.ColBuildURL+"} = "+sql("https://ci.example/1\x1b[2J")+" WHERE {INST_ID} = 2",
		"UPDATE {"+profilers.ResultSetsTable+"} SET {"+profilers.ColCommit+"} = "+sql("\x1b[2Jabcdef")+" WHERE {INST_ID} = 2",
	)
	t.Setenv("COLUMNS", "100")
	out := runClean(t, 0, "show", "--db", dsn, "1")
	for _, w := range []string{"branch " + termtext.Name(evil), "labels " + termtext.Name("k="+evil), "build 7  javascript:alert(1)"} {
		if !strings.Contains(out, w) {
			t.Errorf("show 1 does not print %s:\n%s", w, out)
		}
	}
	if out := runClean(t, 0, "show", "--db", dsn, "2"); !strings.Contains(out, termtext.Name("https://ci.example/1\x1b[2J")) {
		t.Errorf("show 2 does not print the URL escaped:\n%s", out)
	}
	if out := runClean(t, 0, "list", "--db", dsn); !strings.Contains(out, termtext.Name(evil)) || !strings.Contains(out, termtext.Name("\x1b[2Jabcdef")) {
		t.Errorf("list does not print the branch and the commit escaped:\n%s", out)
	}
	run, _ := shownRun(t, runClean(t, 0, "show", "--db", dsn, "--json", "1"))
	if run == nil || run.Branch != evil || run.Labels["k"] != evil || run.BuildURL != "javascript:alert(1)" {
		t.Errorf("show --json does not give the values exactly: %+v", run)
	}
	if out := runClean(t, 0, "compare", "--db", dsn, "1", "2"); !strings.Contains(lines(out, 1)[0], "branch "+termtext.Name(evil)) {
		t.Errorf("compare does not name A's branch escaped:\n%s", out)
	}

	page := filepath.Join(t.TempDir(), "r.html")
	runClean(t, 0, "report", "--db", dsn, "-o", page)
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	checkClean(t, "report's page", html)
	for _, bad := range []string{"<script>window.pwned", `href="javascript:`, "javascript:alert"} {
		if strings.Contains(html, bad) {
			t.Errorf("report's page holds %q", bad)
		}
	}
	if n := strings.Count(html, `<a class="build" href=`); n != 0 {
		t.Errorf("report's page links %d builds; neither URL is a web address (javascript:, one with an escape)", n)
	}
	// Made a web address, the second run's build is linked.
	execAll(t, dsn, "UPDATE {"+profilers.ResultSetsTable+"} SET {"+profilers.ColBuildURL+"} = 'https://ci.example/8?a=1&b=<2>' WHERE {INST_ID} = 2")
	runClean(t, 0, "report", "--db", dsn, "-o", page)
	if b, err = os.ReadFile(page); err != nil {
		t.Fatal(err)
	}
	if w := fmt.Sprintf(`<a class="build" href="%s" rel="noopener noreferrer">build</a>`, "https://ci.example/8?a=1&amp;b=%3c2%3e"); !strings.Contains(string(b), w) {
		t.Errorf("report's page does not link the second run's build as %s", w)
	}
}
