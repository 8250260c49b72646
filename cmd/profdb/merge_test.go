package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/profdb/profdb/resultset"
)

func TestMergeCommand(t *testing.T) {
	dsn := sqliteDSN(t)
	mustRun(t, "export", "--db", dsn, "../../examples/light-coverage.json", "../../examples/light-coverage.json",
		"../../examples/function-trace.json", "../../examples/resource.json", "../../examples/reference-count.json")
	out := mustRun(t, "merge", "--db", dsn, "1", "2")
	if want := "INST_ID 6  light-coverage  "; !strings.HasPrefix(out, want) || !strings.HasSuffix(out, "  \"merge (sum) of 1, 2\"\n") {
		t.Errorf("merge: %q, want %q… \"merge (sum) of 1, 2\"", out, want)
	}
	// Covered lines are those of either input: the example's 13 of 21.
	if show := mustRun(t, "show", "--db", dsn, "6"); !strings.Contains(show, "Lines covered:    13 of 21 (61.9%)") {
		t.Errorf("show of the merge:\n%s", show)
	}
	if v := mustRun(t, "verify", "--db", dsn, "--inst", "6"); v != "ok\n" {
		t.Errorf("verify: %q", v)
	}
	var res resultset.Result
	js := mustRun(t, "merge", "--db", dsn, "--json", "--op", "max", "--caption", "best", "1", "2", "6")
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		t.Fatalf("merge --json: %v\n%s", err, js)
	}
	if res.InstID != 7 || res.Caption != "best" || res.Profiler != "light-coverage" || res.Rows == 0 {
		t.Errorf("merge --json: %+v", res)
	}
	// A set of each other profiler, merged with itself.
	for i, p := range []string{"function-trace", "resource", "reference-count"} {
		in, inst := fmt.Sprint(3+i), fmt.Sprint(8+i)
		out = mustRun(t, "merge", "--db", dsn, in, in)
		if want := "INST_ID " + inst + "  " + p + "  "; !strings.HasPrefix(out, want) {
			t.Errorf("merge of a %s set: %q, want %q…", p, out, want)
		}
		if v := mustRun(t, "verify", "--db", dsn, "--inst", inst); v != "ok\n" {
			t.Errorf("verify %s: %q", inst, v)
		}
	}
	for _, tc := range []struct {
		args  []string
		usage bool // a usage error, which points to --help
		want  string
	}{
		{[]string{"1"}, true, "requires at least 2 arg"},
		{[]string{"1", "x"}, true, `INST_ID must be a positive integer or a selector (latest, branch:NAME, commit:SHA, label:KEY=VALUE, each with an optional ~N, or ancestor:REV, ancestor~N:REV), not "x"`},
		{[]string{"--op", "mean", "1", "2"}, true, `--op: want sum, avg, max or min, got "mean"`},
		{[]string{"1", "3"}, false, "only result sets that compare merge"},
		{[]string{"1", "99"}, false, "99"},
	} {
		args := append([]string{"merge", "--db", dsn}, tc.args...)
		_, errOut, code := runCLI(t, args...)
		usage := strings.Contains(errOut, "Run 'profdb merge --help' for usage.")
		want := exitCannotRun // merge has no negative answer: it merged, or could not
		if code != want || usage != tc.usage || !strings.Contains(errOut, tc.want) {
			t.Errorf("profdb %s: exit %d, %q; want exit %d with %q (usage error: %v)", strings.Join(args, " "), code, errOut, want, tc.want, tc.usage)
		}
	}
}
