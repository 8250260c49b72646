package main

import (
	"strings"
	"testing"
)

// TestDeleteListTrendLimits: a count or an age that would select
// everything or means nothing is refused (exit 2), before the database
// is opened, with a message that names the flag, says what the value is
// wrong for and, for delete, how to delete everything when that is what
// is meant (issue 39, item 10: --keep-last 0 answered "--inst,
// --older-than or --keep-last is required"); nothing is deleted.
func TestDeleteListTrendLimits(t *testing.T) {
	dsn := sqliteDSN(t)
	for i := 0; i < 3; i++ {
		mustRun(t, "export", "--db", dsn, "-q", "--no-identity", "--branch", "main", example(t, "light-coverage.json"))
	}
	before := mustRun(t, "list", "--db", dsn)
	const all = "to delete them all, name them: --inst A-B"
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"delete", "--keep-last", "0"}, []string{"delete: --keep-last must be at least 1, not 0: that would keep none and delete every result set it selects", all}},
		{[]string{"delete", "--keep-last", "0", "--branch", "main"}, []string{"--keep-last must be at least 1, not 0", all}},
		{[]string{"delete", "--keep-last", "-2", "--dry-run"}, []string{"--keep-last must be at least 1, not -2", all}},
		{[]string{"delete", "--older-than", "0"}, []string{`delete: --older-than must be more than 0, not "0": that would delete every result set exported until now`, all}},
		{[]string{"delete", "--older-than", "0d", "--dry-run"}, []string{`--older-than must be more than 0, not "0d"`, all}},
		{[]string{"delete", "--older-than", "0s", "--inst", "1"}, []string{`--older-than must be more than 0, not "0s"`}},
		{[]string{"list", "--last", "-1"}, []string{"list: --last must be 0 (all) or more, not -1"}},
		{[]string{"trend", "--last", "-5"}, []string{"trend: --last must be 0 (all) or more, not -5"}},
		{[]string{"trend", "--top", "0"}, []string{"trend: --top must be at least 1, not 0"}},
	} {
		out, errOut, code := runCLI(t, append(c.args, "--db", dsn)...)
		if code != 2 || out != "" {
			t.Errorf("%s: exit %d, %q; want exit 2 and nothing printed", strings.Join(c.args, " "), code, out)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: %q does not say %q", strings.Join(c.args, " "), errOut, w)
			}
		}
	}
	if after := mustRun(t, "list", "--db", dsn); after != before {
		t.Errorf("a refused delete changed the database:\n%s\nwas\n%s", after, before)
	}
	// What these limits allow still works: 0 is all for --last, 1 for
	// --keep-last keeps the newest.
	if out := mustRun(t, "list", "--db", dsn, "--last", "0"); out != before {
		t.Errorf("list --last 0:\n%s\nwant every result set:\n%s", out, before)
	}
	if out := mustRun(t, "delete", "--db", dsn, "--keep-last", "1", "--dry-run"); out != "would delete INST_ID 1 (64 rows)\nwould delete INST_ID 2 (64 rows)\n" {
		t.Errorf("delete --keep-last 1 --dry-run: %q", out)
	}
}
