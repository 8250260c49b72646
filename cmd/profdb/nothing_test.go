package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/profdb/profdb/internal/dbtest"
)

// nothingCommands are readCommands with delete and merge: every command
// that reads result sets from a database that must be there, each as the
// arguments that run it against dsn, with schema (when not "") as the
// schema flag the command has. serve is left out: a server starts on a
// database that holds no result sets yet, and its pages say so (a missing
// SQLite file it refuses: TestExitStatuses, TestReadCommandsCreateNothing).
func nothingCommands(dsn, schema, scratch string) map[string][]string {
	out := map[string][]string{
		"delete": {"delete", "--db", dsn, "--inst", "1"},
		"merge":  {"merge", "--db", dsn, "1", "2"},
	}
	for name, args := range readCommands {
		if name != "serve" {
			out[name] = args(dsn, scratch)
		}
	}
	if schema != "" {
		for name, args := range out {
			flag := "--schema"
			if name == "copy" {
				flag = "--from-schema"
			}
			out[name] = append(args, flag, schema)
		}
	}
	return out
}

// nothingCase is a database that is not there, or holds no result sets.
type nothingCase struct {
	what, dsn, schema string
	want              string // what the message must say
}

// checkNothing runs every command of nothingCommands on c and wants each
// to exit 2 with a message saying c.want, and no report or copy written.
func checkNothing(t *testing.T, c nothingCase) {
	t.Helper()
	scratch := t.TempDir()
	for name, args := range nothingCommands(c.dsn, c.schema, scratch) {
		out, stderr, code := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, c.want) || out != "" {
			t.Errorf("%s on %s: exit %d, stdout %q, stderr %q; want exit 2 and a message with %q", name, c.what, code, out, stderr, c.want)
		}
	}
	if got := dirFiles(t, scratch); len(got) != 0 {
		t.Errorf("commands on %s wrote %v", c.what, got)
	}
}

// TestNothingThereSQLite: every command that reads result sets, on an
// SQLite file that is empty (0 bytes: SQLite would take it for an empty
// database), that is not a database, that does not exist or that has no
// INSTANCES table, exits 2 naming the file or saying that it holds no
// result sets, and leaves the file as it was (creates none).
func TestNothingThereSQLite(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"empty.db": "", "text.db": "a text file, which is no SQLite database, long enough to hold a header......................\n"}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	other := filepath.Join(dir, "other.db")
	if _, err := dbtest.Open(t, "sqlite:"+other).Exec("CREATE TABLE OTHER (X INTEGER)"); err != nil {
		t.Fatal(err)
	}
	otherBefore, err := os.ReadFile(other)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []nothingCase{
		// Readers refuse an empty or missing file at once; delete and merge
		// open it for writing and find no INSTANCES table in it.
		{what: "an empty file", dsn: "sqlite:" + filepath.Join(dir, "empty.db"), want: filepath.Join(dir, "empty.db")},
		{what: "a text file", dsn: "sqlite:" + filepath.Join(dir, "text.db"), want: filepath.Join(dir, "text.db")},
		{what: "a missing file", dsn: "sqlite:" + filepath.Join(dir, "missing.db"), want: filepath.Join(dir, "missing.db")},
		{what: "a database without INSTANCES", dsn: "sqlite:" + other, want: "sqlite:" + other + " has no INSTANCES table"},
	} {
		checkNothing(t, c)
	}
	for name, content := range files {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != content {
			t.Errorf("%s now holds %q (%v), want %q", name, got, err, content)
		}
	}
	if got, err := os.ReadFile(other); err != nil || string(got) != string(otherBefore) {
		t.Errorf("other.db changed (%v)", err)
	}
	if got := dirFiles(t, dir); strings.Join(got, " ") != "empty.db other.db text.db" {
		t.Errorf("the folder holds %v, want only the files made for the test", got)
	}
}

// TestNothingThereOnServers: every command that reads result sets, on a
// PostgreSQL schema or MySQL database that does not exist (named by
// --schema or by the DSN: search_path, the database in its path), exits 2
// naming it; on one that exists but has no INSTANCES table, it exits 2
// saying so.
func TestNothingThereOnServers(t *testing.T) {
	for _, dialect := range dbtest.Servers("sqlserver") {
		t.Run(dialect, func(t *testing.T) {
			dsn := dbtest.Fresh(t, dialect)
			missingDSN, err := dbtest.WithNamespace(dsn, "profdb_no_such")
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []nothingCase{
				{what: "a schema without tables", dsn: dsn, want: "has no INSTANCES table"},
				{what: "--schema naming none", dsn: dsn, schema: "profdb_no_such", want: `"profdb_no_such"`},
				{what: "a DSN naming no schema", dsn: missingDSN, want: "profdb_no_such"},
			} {
				checkNothing(t, c)
			}
		})
	}
}

// TestVerifyExitStatus: verify exits 0 when all is well, 1 when it finds
// something (TestVerifyFindsDuplicateIDs) and 2 when it cannot verify: a
// usage error, a database that cannot be opened, one with nothing to
// verify (TestNothingThereSQLite).
func TestVerifyExitStatus(t *testing.T) {
	dsn := sqliteDSN(t)
	mustRun(t, "export", "--db", dsn, "../../examples/light-coverage.json")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"verify", "--db", dsn}, 0, ""},
		{[]string{"verify", "--db", dsn, "--inst", "1"}, 0, ""},
		{[]string{"verify", "--db", dsn, "--inst", "0"}, 2, `--inst "0": want an INST_ID (1, 2, ...) or a range A-B`},
		{[]string{"verify", "--db", dsn, "--inst", "-1"}, 2, `--inst "-1": want an INST_ID (1, 2, ...) or a range A-B`},
		{[]string{"verify", "--db", "nosuch://x"}, 2, "nosuch"},
		{[]string{"verify", "--db", dsn, "--schema", "nosuch"}, 2, `no schema "nosuch"`},
	} {
		_, stderr, code := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, %q; want %d and %q", strings.Join(c.args, " "), code, stderr, c.code, c.want)
		}
	}
}

// TestFailedWriteLeavesNoFile: a merge, export or copy into an SQLite file
// that did not exist, which fails, leaves no file (an empty one would be
// taken for an empty database); one that succeeds leaves the database.
func TestFailedWriteLeavesNoFile(t *testing.T) {
	src := sqliteDSN(t)
	mustRun(t, "export", "--db", src, "../../examples/light-coverage.json")
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte("{bad"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := "sqlite:" + filepath.Join(dir, "new.db")
	for _, args := range [][]string{
		{"merge", "--db", path, "1", "2"},
		{"export", "--db", path, bad},
		{"export", "--db", path, "--format", "lcov", "../../examples/light-coverage.json"},
		{"copy", "--from", src, "--to", path, "--inst", "5"},
	} {
		if _, stderr, code := runCLI(t, args...); code == 0 {
			t.Errorf("%s succeeded: %s", strings.Join(args, " "), stderr)
		}
		if got := dirFiles(t, dir); len(got) != 0 {
			t.Errorf("%s failed and left %v", strings.Join(args, " "), got)
		}
	}
	mustRun(t, "copy", "--from", src, "--to", path)
	if got := mustRun(t, "verify", "--db", path); got != "ok\n" {
		t.Errorf("verify of the copy: %q", got)
	}
}

// TestLimitsAreUsageErrors: a list limit, INST_ID or timeout of 0 or less
// (where 0 means nothing of its own) is a usage error naming the flag, exit
// 2, not silently the default; nothing is written.
func TestLimitsAreUsageErrors(t *testing.T) {
	dsn := sqliteDSN(t)
	mustRun(t, "export", "--db", dsn, "../../examples/function-trace.json", "../../examples/light-coverage.json")
	dir := t.TempDir()
	html := filepath.Join(dir, "r.html")
	cases := map[string][]string{
		"--top":          {"report", "--db", dsn, "-o", html},
		"--max-lines":    {"report", "--db", dsn, "-o", html},
		"--max-nodes":    {"report", "--db", dsn, "-o", html},
		"--max-depth":    {"report", "--db", dsn, "-o", html},
		"show --top":     {"show", "--db", dsn, "1"},
		"compare":        {"compare", "--db", dsn, "1", "1"},
		"check --top":    {"check", "--db", dsn, "2", "--min-coverage", "1"},
		"trend --top":    {"trend", "--db", dsn, "--profiler", "function-trace"},
		"--timeout":      {"list", "--db", dsn},
		"--io-timeout":   {"copy", "--from", dsn, "--to", "sqlite:" + filepath.Join(dir, "c.db")},
		"--lock-timeout": {"delete", "--db", dsn, "--inst", "1"},
	}
	for what, args := range cases {
		flag, _, _ := strings.Cut(strings.TrimPrefix(what, strings.Fields(what)[0]+" "), " ")
		if !strings.HasPrefix(flag, "--") {
			flag = "--top"
		}
		for _, v := range []string{"0", "-1"} {
			if strings.HasSuffix(flag, "timeout") {
				if v == "0" {
					continue // 0 waits for ever
				}
				v = "-1s"
			}
			a := append(append([]string{}, args...), flag, v)
			out, stderr, code := runCLI(t, a...)
			want := fmt.Sprintf("%s must be at least 1, not %s", flag, v)
			if strings.HasSuffix(flag, "timeout") {
				want = flag + " must be 0 (wait for ever) or more, not -1s"
			}
			if code != 2 || out != "" || !strings.Contains(stderr, want) || !strings.Contains(stderr, "--help' for usage") {
				t.Errorf("profdb %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(a, " "), code, out, stderr, want)
			}
		}
	}
	for _, args := range [][]string{
		{"report", "--db", dsn, "-o", html, "--inst", "0"},
		{"copy", "--from", dsn, "--to", "sqlite:" + filepath.Join(dir, "c.db"), "--inst", "-2"},
	} {
		_, stderr, code := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, "want an INST_ID (1, 2, ...) or a range A-B") {
			t.Errorf("profdb %s: exit %d, %q; want exit 2 naming --inst", strings.Join(args, " "), code, stderr)
		}
	}
	if got := dirFiles(t, dir); len(got) != 0 {
		t.Errorf("refused commands wrote %v", got)
	}
	mustRun(t, "report", "--db", dsn, "-o", html, "--top", "1", "--max-lines", "1", "--max-nodes", "1", "--max-depth", "1")
}

// TestSQLiteSchemaIgnoresCase: --schema names an SQLite database as SQLite
// matches it, ignoring case: "MAIN" is main, for every command.
func TestSQLiteSchemaIgnoresCase(t *testing.T) {
	dsn := sqliteDSN(t)
	mustRun(t, "export", "--db", dsn, "--schema", "MAIN", "../../examples/light-coverage.json")
	mustRun(t, "export", "--db", dsn, "--schema", "Main", "../../examples/light-coverage.json")
	want := mustRun(t, "list", "--db", dsn, "--json")
	for _, schema := range []string{"MAIN", "main", "Main"} {
		if got := mustRun(t, "list", "--db", dsn, "--schema", schema, "--json"); got != want {
			t.Errorf("list --schema %s:\n%s\nwant\n%s", schema, got, want)
		}
		if got := mustRun(t, "verify", "--db", dsn, "--schema", schema); got != "ok\n" {
			t.Errorf("verify --schema %s: %q", schema, got)
		}
		mustRun(t, "show", "--db", dsn, "--schema", schema, "2")
		mustRun(t, "compare", "--db", dsn, "--schema", schema, "1", "2")
	}
}

// TestWriteFileAtomic: a write that fails leaves no file and no temporary
// one, and a file that was there as it was; one that succeeds replaces it.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.sql")
	failing := func(w io.Writer) error {
		if _, err := io.WriteString(w, "half"); err != nil {
			return err
		}
		return errors.New("the input broke off")
	}
	if err := writeFileAtomic(path, failing); err == nil || err.Error() != "the input broke off" {
		t.Errorf("failed write: %v", err)
	}
	if got := dirFiles(t, dir); len(got) != 0 {
		t.Errorf("a failed write left %v", got)
	}
	if err := writeFileAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "whole"); return err }); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(path, failing); err == nil {
		t.Error("failed write succeeded")
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "whole" {
		t.Errorf("after a failed write the file holds %q, %v; want what was there", got, err)
	}
	if got := dirFiles(t, dir); len(got) != 1 {
		t.Errorf("the folder holds %v", got)
	}
}
