package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/store"
)

// TestExitStatuses: every command exits 0 when it did its work, 1 for its
// negative answer (check: a rule failed; compare: the sets cannot be
// compared; verify: it found problems) and 2 when it could not run: a usage
// error, and a failure to do the work (a missing input file, an INST_ID
// the database does not hold, a database that is not there, a file that
// cannot be written).
func TestExitStatuses(t *testing.T) {
	const (
		ex   = "../../examples/"
		none = "/nonexistent-profdb-dir/x"
	)
	type tc struct {
		code int
		args []string // DB is a fresh database of result sets 1 to 5 (exportComparable), BAD one whose set 1 verify finds fault with, OUT a file to write, NEW a database that does not exist yet
	}
	cases := map[string][]tc{
		"export": {
			{0, []string{"export", "--db", "DB", ex + "resource.json"}},
			{2, []string{"export", "--db", "DB", "--no-such-flag", ex + "resource.json"}},
			{2, []string{"export", "--db", "DB", none + ".json"}},
			{2, []string{"export", "--db", "DB", "--format", "no-such-format", ex + "resource.json"}},
		},
		"script": {
			{0, []string{"script", "--dialect", "sqlite", "-o", "OUT", ex + "resource.json"}},
			{2, []string{"script", ex + "resource.json"}},
			{2, []string{"script", "--dialect", "sqlite", "-o", "OUT", none + ".json"}},
		},
		"list": {
			{0, []string{"list", "--db", "DB"}},
			{2, []string{"list", "--db", "DB", "extra"}},
			{2, []string{"list", "--db", "NEW"}},
		},
		"show": {
			{0, []string{"show", "--db", "DB", "1"}},
			{2, []string{"show", "--db", "DB", "one"}},
			{2, []string{"show", "--db", "DB", "99"}},
		},
		"compare": {
			{0, []string{"compare", "--db", "DB", "1", "2"}},
			{1, []string{"compare", "--db", "DB", "3", "4"}},
			{2, []string{"compare", "--db", "DB", "1"}},
			{2, []string{"compare", "--db", "DB", "1", "99"}},
		},
		"check": {
			{0, []string{"check", "--db", "DB", "1", "--min-coverage", "10"}},
			{1, []string{"check", "--db", "DB", "1", "--min-coverage", "100"}},
			{2, []string{"check", "--db", "DB", "1"}},
			{2, []string{"check", "--db", "DB", "99", "--min-coverage", "10"}},
		},
		"report": {
			{0, []string{"report", "--db", "DB", "--inst", "1-2", "-o", "OUT", "--timeout", "5s", "--io-timeout", "1m"}},
			{2, []string{"report", "--db", "DB"}},
			{2, []string{"report", "--db", "DB", "--inst", "99", "-o", "OUT"}},
		},
		"merge": {
			{0, []string{"merge", "--db", "DB", "1", "2"}},
			{2, []string{"merge", "--db", "DB", "1"}},
			{2, []string{"merge", "--db", "DB", "1", "99"}},
		},
		"copy": {
			{0, []string{"copy", "--from", "DB", "--to", "NEW", "--inst", "1,3-4"}},
			{2, []string{"copy", "--from", "DB"}},
			{2, []string{"copy", "--from", "DB", "--to", "NEW", "--inst", "99"}},
		},
		"delete": {
			{0, []string{"delete", "--db", "DB", "--inst", "1-2,5"}},
			{2, []string{"delete", "--db", "DB"}},
			{2, []string{"delete", "--db", "DB", "--inst", "99"}},
		},
		"verify": {
			{0, []string{"verify", "--db", "DB", "--inst", "1,2-5"}},
			{1, []string{"verify", "--db", "BAD"}},
			{1, []string{"verify", "--db", "BAD", "--inst", "1"}},
			{2, []string{"verify", "--db", "DB", "--inst", "0"}},
			{2, []string{"verify", "--db", "DB", "--inst", "99"}},
		},
		"trend": {
			{0, []string{"trend", "--db", "DB", "--profiler", "light-coverage", "--last", "2"}},
			{2, []string{"trend", "--db", "DB", "--last", "0"}},
			{2, []string{"trend", "--db", "DB", "--branch", "no-such-branch"}},
			{2, []string{"trend", "--db", "NEW"}},
		},
		"ddl": {
			{0, []string{"ddl", "--dialect", "sqlite", "-o", "OUT"}},
			{2, []string{"ddl", "--dialect", "no-such-dialect"}},
			{2, []string{"ddl", "--dialect", "sqlite", "-o", none + "/ddl.sql"}},
		},
		"profilers": {
			{0, []string{"profilers"}},
			{2, []string{"profilers", "--no-such-flag"}},
			{2, []string{"profilers", "no-such-profiler"}},
		},
		"serve": {
			{0, []string{"serve", "--db", "DB", "--addr", "127.0.0.1:0"}},
			{2, []string{"serve", "--db", "NEW", "--addr", "127.0.0.1:0"}},
			{2, []string{"serve", "--db", "DB", "--addr", "0.0.0.0:0"}},
			{2, []string{"serve", "--db", "DB", "--no-such-flag"}},
		},
		"version": {
			{0, []string{"version"}},
			{0, []string{"version", "--json"}},
			{2, []string{"version", "extra"}},
		},
		"man": {
			{0, []string{"man", "OUT"}},
			{2, []string{"man"}},
			{2, []string{"man", ex + "resource.json"}}, // a file, not a folder
		},
	}
	// Every command is here, so that a new one gets its statuses tested.
	for _, c := range newRootCmd(&ledger{}).Commands() {
		if _, ok := cases[c.Name()]; !ok && c.Name() != "help" && c.Name() != "completion" {
			t.Errorf("command %s has no exit statuses in this test", c.Name())
		}
	}
	bad := sqliteDSN(t)
	mustRun(t, "export", "--db", bad, ex+"function-trace.json")
	x, err := exporter.Open(t.Context(), bad, store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.DB().SQL().Exec(`UPDATE FUNCTION_TRACE_PROFILER_METAPARAMETERS SET ID = 0 WHERE INST_ID = 1 AND ID = 1`); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	for cmd, tcs := range cases {
		for _, c := range tcs {
			t.Run(cmd, func(t *testing.T) {
				dir := t.TempDir()
				args := make([]string, len(c.args))
				for i, a := range c.args {
					switch a {
					case "DB":
						a = "sqlite:" + filepath.Join(dir, "p.db")
						exportComparable(t, a)
					case "BAD":
						a = bad
					case "NEW":
						a = "sqlite:" + filepath.Join(dir, "new.db")
					case "OUT":
						a = filepath.Join(dir, "out")
					}
					args[i] = a
				}
				_, stderr, code := runRead(t, args...)
				if code != c.code {
					t.Errorf("profdb %s: exit %d, want %d\n%s", strings.Join(c.args, " "), code, c.code, stderr)
				}
				if (code == 0) != (stderr == "") && cmd != "merge" && cmd != "copy" && cmd != "serve" {
					t.Errorf("profdb %s: exit %d with messages %q", strings.Join(c.args, " "), code, stderr)
				}
			})
		}
	}
}

// TestErrorsNameFlags: the library errors that name Options fields
// (optionerr) or that a flag helps with reach the user phrased with
// profdb's flags, and the library's own words name no flag.
func TestErrorsNameFlags(t *testing.T) {
	dsn := sqliteDSN(t)
	mustRun(t, "export", "--db", dsn, "../../examples/resource.json")
	garbage := filepath.Join(t.TempDir(), "garbage.txt")
	writeFile(t, garbage, "not a profile\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--db", dsn, "1"}, "profdb: check: no rule given: set --min-coverage, --max-drop, --min-patch-coverage or --max-time-increase\nRun 'profdb check --help' for usage.\n"},
		{[]string{"check", "--db", dsn, "1", "--max-drop", "1"}, "profdb: check: --max-drop and --max-time-increase compare with a baseline: set --baseline\n"},
		{[]string{"check", "--db", dsn, "1", "--max-time-increase", "5", "--baseline", "1"}, "profdb: check: result set 1 is a resource result set: --max-time-increase needs a function-trace one\n"},
		{[]string{"export", "--db", dsn, garbage}, "; use --format\n"},
		{[]string{"export", "--db", dsn, "--no-create", "../../examples/function-trace.json"}, "write: table FUNCTION_TRACE_PROFILER_ROUTINES does not exist in the database, and creating tables is forbidden (--no-create); ask for it to be created with the sqlite DDL; profdb ddl prints it\n"},
	} {
		_, stderr, code := runCLI(t, c.args...)
		if code != exitCannotRun || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "Options.") {
			t.Errorf("profdb %s: exit %d, %q; want 2 and %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
}

// TestTopHint: a table that show or compare cut at --top says, in the
// CLI's words, how to list more (trend's movers go through the same
// withTopHint); the libraries name no flag.
func TestTopHint(t *testing.T) {
	dsn := sqliteDSN(t)
	mustRun(t, "export", "--db", dsn, "../../examples/function-trace.json", "../../examples/function-trace.json")
	for _, args := range [][]string{
		{"show", "--db", dsn, "1", "--top", "1"},
		{"compare", "--db", dsn, "1", "2", "--top", "1"},
	} {
		out, stderr, code := runCLI(t, args...)
		if code != 0 || !strings.Contains(out, " more (--top sets how many are listed)\n") {
			t.Errorf("profdb %s: exit %d, no hint of --top:\n%s%s", strings.Join(args, " "), code, out, stderr)
		}
	}
}
