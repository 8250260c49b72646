package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/input/interchange"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/resultsettest"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// writeInput writes the fixtures as one interchange JSON file.
func writeInput(t testing.TB, path string, sets ...*resultsettest.Fixture) string {
	t.Helper()
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	tgt := interchange.NewTarget(out)
	for _, f := range sets {
		if _, err := resultset.Export(context.Background(), tgt, f.ResultSet()); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// scriptRunner runs a script file in the dialect's own client against a
// profdb DSN and returns the client's output and error.
type scriptRunner func(dsn, script string) (string, error)

// execClient runs a client program with extra environment and stdin.
// Arguments are never printed: they may name a server.
func execClient(env []string, stdin, prog string, args ...string) (string, error) {
	cmd := exec.Command(prog, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s: %w", filepath.Base(prog), err)
	}
	return string(out), nil
}

func sqlite3Runner(t *testing.T) scriptRunner {
	prog := client(t, true, "sqlite3")
	return func(dsn, script string) (string, error) {
		b, err := os.ReadFile(script)
		if err != nil {
			return "", err
		}
		// "sqlite3 DB < FILE", with -bail as the script's header advises.
		return execClient(nil, string(b), prog, "-bail", strings.TrimPrefix(dsn, "sqlite:"))
	}
}

func psqlRunner(t *testing.T) scriptRunner {
	prog := client(t, true, "psql")
	return func(dsn, script string) (string, error) {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", err
		}
		q := u.Query()
		env := []string{"PGCONNECT_TIMEOUT=20"}
		if sp := q.Get("search_path"); sp != "" {
			env = append(env, "PGOPTIONS=-c search_path="+sp)
			q.Del("search_path")
		}
		if pw, ok := u.User.Password(); ok {
			env = append(env, "PGPASSWORD="+pw)
			u.User = url.User(u.User.Username())
		}
		u.RawQuery = q.Encode()
		return execClient(env, "", prog, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", u.String(), "-f", script)
	}
}

func mariadbRunner(t *testing.T) scriptRunner {
	prog := client(t, true, "mariadb", "mysql")
	return func(dsn, script string) (string, error) {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", err
		}
		args := []string{"--protocol=TCP", "--batch", "--connect-timeout=20", "-h", u.Hostname(), "-u", u.User.Username()}
		if p := u.Port(); p != "" {
			args = append(args, "-P", p)
		}
		var env []string
		if pw, ok := u.User.Password(); ok {
			env = append(env, "MYSQL_PWD="+pw)
		}
		args = append(args, "-D", strings.TrimPrefix(u.Path, "/"))
		b, err := os.ReadFile(script)
		if err != nil {
			return "", err
		}
		return execClient(env, string(b), prog, args...)
	}
}

// scriptClient is a dialect whose scripts a test runs in the dialect's own
// client, and the runner that does.
type scriptClient struct {
	dialect string
	runner  func(t *testing.T) scriptRunner
}

// scriptClients are the scriptClients of every dialect, less those in
// except.
func scriptClients(except ...string) []scriptClient {
	all := []scriptClient{
		{"sqlite", sqlite3Runner},
		{"postgres", psqlRunner},
		{"mysql", mariadbRunner},
		{"sqlserver", sqlcmdRunner},
	}
	return slices.DeleteFunc(all, func(c scriptClient) bool { return slices.Contains(except, c.dialect) })
}

// TestSQLOutScriptAppends runs --sql-out scripts in the real clients
// against databases that already hold result sets (exported with the
// normal path), twice, and checks that verify is clean, list shows the new
// INST_IDs and every value reads back exactly.
func TestSQLOutScriptAppends(t *testing.T) {
	for _, tc := range scriptClients() {
		t.Run(tc.dialect, func(t *testing.T) {
			runScript := tc.runner(t)
			dsn := dbtest.Fresh(t, tc.dialect)
			dir := t.TempDir()
			// PostgreSQL's text cannot hold NUL, nor Babelfish's (see
			// TestSQLOutNULGuard).
			withNUL := tc.dialect != "postgres" && !(tc.dialect == "sqlserver" && isBabelfish(t, dsn))

			// Two result sets exported the normal way first.
			seed := []*resultsettest.Fixture{
				resultsettest.Full(t, "function-trace", "seed one", tc.dialect, 3, false),
				resultsettest.Full(t, "resource", "seed two", tc.dialect, 3, false),
			}
			mustRun(t, "export", "--db", dsn, "-q", writeInput(t, filepath.Join(dir, "seed.json"), seed...))

			// The script holds one result set of every profiler.
			var sets []*resultsettest.Fixture
			for _, p := range profilers.Names() {
				sets = append(sets, resultsettest.Full(t, p, "script "+p+" 'q' \\ \n✓ \x1b]0;pwned\a\u202e\U000E0041", tc.dialect, 5, withNUL))
			}
			in := writeInput(t, filepath.Join(dir, "in.json"), sets...)
			script := filepath.Join(dir, "out.sql")
			out := mustRun(t, "export", "--sql-out", script, "--dialect", tc.dialect, in)
			if !strings.Contains(out, fmt.Sprintf("wrote %s: %d result sets", script, len(sets))) {
				t.Errorf("export --sql-out printed:\n%s", out)
			}
			text, err := os.ReadFile(script)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range string(text) {
				if r != '\n' && r != '\t' && !strconv.IsPrint(r) {
					t.Fatalf("the script has %U at byte %d: a terminal showing it would act on it or hide it", r, i)
				}
			}

			db, err := exporter.Open(context.Background(), dsn, store.Options{}, exporter.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			next := int64(len(seed) + 1)
			for round := 0; round < 2; round++ {
				if out, err := runScript(dsn, script); err != nil {
					t.Fatalf("round %d: %v\n%s", round+1, err, out)
				}
				if got := mustRun(t, "verify", "--db", dsn); strings.TrimSpace(got) != "ok" {
					t.Fatalf("verify after round %d: %s", round+1, got)
				}
				var list []store.Listing
				if err := json.Unmarshal([]byte(mustRun(t, "list", "--db", dsn, "--json")), &list); err != nil {
					t.Fatal(err)
				}
				if len(list) != len(seed)+(round+1)*len(sets) {
					t.Fatalf("round %d: list shows %d result sets, want %d", round+1, len(list), len(seed)+(round+1)*len(sets))
				}
				for i, f := range sets {
					l := list[int(next)-1+i]
					if l.InstID != next+int64(i) || l.Profiler != f.Header.Profiler || l.Caption != f.Header.Caption {
						t.Errorf("round %d: listing %+v, want INST_ID %d of %s", round+1, l, next+int64(i), f.Header.Profiler)
					}
					resultsettest.CompareStored(t, db.DB(), l.InstID, f)
				}
				next += int64(len(sets))
			}
			// The result sets exported before are untouched.
			for i, f := range seed {
				resultsettest.CompareStored(t, db.DB(), int64(i+1), f)
			}
			// RELATIONS IDs stay unique across the table.
			d := db.DB().Dialect()
			var dup int64
			q := fmt.Sprintf("SELECT COUNT(*) - COUNT(DISTINCT %s) FROM %s", d.Quote(d.StoredName("ID")), dialects.Qualify(d, "", d.StoredName("RELATIONS")))
			if err := db.DB().SQL().QueryRow(q).Scan(&dup); err != nil || dup != 0 {
				t.Fatalf("duplicate RELATIONS IDs: %d %v", dup, err)
			}
		})
	}
}

// TestSQLOutFailingScriptLeavesNothing: a script that fails part-way (a
// table a DBA made too narrow) leaves the database as it was.
func TestSQLOutFailingScriptLeavesNothing(t *testing.T) {
	for _, tc := range []struct {
		dialect string
		runner  func(t *testing.T) scriptRunner
		narrow  string
		fails   string // what the client says of the value (a regular expression)
	}{
		{"postgres", psqlRunner, `ALTER TABLE function_trace_profiler_threads ALTER COLUMN col_win32threadid TYPE INT`, "out of range"},
		{"mysql", mariadbRunner, "ALTER TABLE `FUNCTION_TRACE_PROFILER_THREADS` MODIFY `COL_WIN32THREADID` INT NULL", "out of range"},
		{"sqlserver", sqlcmdRunner, "ALTER TABLE FUNCTION_TRACE_PROFILER_THREADS ALTER COLUMN COL_WIN32THREADID INT",
			"arithmetic overflow|out of range"}, // SQL Server | Babelfish,
	} {
		t.Run(tc.dialect, func(t *testing.T) {
			runScript := tc.runner(t)
			dsn := dbtest.Fresh(t, tc.dialect)
			dir := t.TempDir()
			seed := resultsettest.Full(t, "function-trace", "seed", tc.dialect, 3, false)
			seed.Tables = seed.Tables[:0] // only INSTANCES and RELATIONS
			mustRun(t, "export", "--db", dsn, "-q", writeInput(t, filepath.Join(dir, "seed.json"), seed))
			db := dbtest.Open(t, dsn)
			if _, err := db.Exec(tc.narrow); err != nil {
				t.Fatal(err)
			}
			set := resultsettest.Full(t, "function-trace", "too wide", tc.dialect, 3, false)
			for i := range set.Tables {
				if set.Tables[i].Name == "FUNCTION_TRACE_PROFILER_THREADS" {
					ci := slices.Index(set.Tables[i].Columns, "COL_WIN32THREADID")
					set.Tables[i].Rows[2][ci] = int64(math.MaxInt64) // does not fit INT
				}
			}
			script := filepath.Join(dir, "out.sql")
			mustRun(t, "export", "--sql-out", script, "--dialect", tc.dialect, writeInput(t, filepath.Join(dir, "in.json"), set))
			out, err := runScript(dsn, script)
			if err == nil || !regexp.MustCompile(tc.fails).MatchString(strings.ToLower(out)) {
				t.Fatalf("the script did not fail on the narrow column: %v\n%s", err, out)
			}
			var list []store.Listing
			if err := json.Unmarshal([]byte(mustRun(t, "list", "--db", dsn, "--json")), &list); err != nil {
				t.Fatal(err)
			}
			if len(list) != 1 {
				t.Fatalf("list after the failing script: %+v", list)
			}
			if got := mustRun(t, "verify", "--db", dsn); strings.TrimSpace(got) != "ok" {
				t.Fatalf("verify: %s", got)
			}
		})
	}
}

// TestSQLOutUsage: the flag combinations that make no sense are refused,
// and no file is written when an input fails.
func TestSQLOutUsage(t *testing.T) {
	dir := t.TempDir()
	in := writeInput(t, filepath.Join(dir, "in.json"), resultsettest.Full(t, "function-trace", "x", "sqlite", 2, false))
	script := filepath.Join(dir, "out.sql")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"export", "--sql-out", script, in}, "--sql-out needs --dialect"},
		{[]string{"export", "--dialect", "sqlite", in}, "--dialect is for --sql-out"},
		{[]string{"export", "--sql-out", script, "--dialect", "oracle", in}, `unknown dialect "oracle"`},
		{[]string{"export", "--sql-out", script, "--dialect", "sqlite", "--db", "sqlite:x.db", in}, "leave out --db"},
		{[]string{"export", "--sql-out", "-", "--dialect", "sqlite", "--json", in}, "choose one"},
		{[]string{"export", "--primary-key", in}, "--primary-key is for --sql-out"},
		{[]string{"export", "--sql-out", script, "--dialect", "postgres", "--primary-key", in}, "--primary-key: the postgres dialect has no hidden primary key (dialects with one: mysql)"},
		{[]string{"export", "--sql-out", script, "--dialect", "mysql", "--primary-key", "--no-create", in}, "choose one"},
	} {
		_, errOut, code := runCLI(t, c.args...)
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("profdb %s: exit %d, stderr %q; want %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"profiler": "function-trace", "tables": {"FUNCTION_TRACE_PROFILER_THREADS": [{"ID": "x"}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, "export", "--sql-out", script, "--dialect", "sqlite", in, bad)
	if code == 0 || !strings.Contains(errOut, "no script written") {
		t.Errorf("bad input: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(script); !os.IsNotExist(err) {
		t.Errorf("a script was written despite the error: %v", err)
	}
	// PostgreSQL text cannot hold U+0000: the script is refused up front.
	nul := writeInput(t, filepath.Join(dir, "nul.json"), resultsettest.Full(t, "function-trace", "x", "postgres", 3, true))
	_, errOut, code = runCLI(t, "export", "--sql-out", script, "--dialect", "postgres", nul)
	if code == 0 || !strings.Contains(errOut, "U+0000") || !strings.Contains(errOut, "column ") {
		t.Errorf("NUL for postgres: exit %d, %s", code, errOut)
	}
	// --primary-key: the profiler tables the script creates carry the
	// invisible key, and so do profdb's PROFDB_LABELS and
	// PROFDB_MERGE_SOURCES; INSTANCES, RELATIONS and PROFDB_RESULT_SETS
	// have their own.
	out := mustRun(t, "export", "--sql-out", "-", "--dialect", "mysql", "--primary-key", in)
	if n := strings.Count(out, "`PROFDB_ROW_ID` BIGINT NOT NULL AUTO_INCREMENT INVISIBLE,\n  PRIMARY KEY (`PROFDB_ROW_ID`)"); n != 12 {
		t.Errorf("--primary-key: %d tables with the invisible key, want the 10 of function-trace and profdb's 2 keyless ones:\n%.3000s", n, out)
	}
	// Standard output, with --schema and --no-create.
	out = mustRun(t, "export", "--sql-out", "-", "--dialect", "postgres", "--schema", "aqtime", "--no-create", in)
	if strings.Contains(out, "CREATE TABLE") || !strings.Contains(out, `INSERT INTO "aqtime"."instances"`) || !strings.HasSuffix(out, "COMMIT;\n") {
		t.Errorf("--sql-out - --schema aqtime --no-create:\n%.2000s", out)
	}
}

// TestSQLOutScriptRefusesWhatVerifyRejects: a script holding a result set
// that export would refuse (a PARENT_ID naming no parent row, an ID two
// rows share) stops in the client, naming the table and the row's ID
// (SQLite: the client names the line, whose comment says it), and leaves
// every table as it was.
func TestSQLOutScriptRefusesWhatVerifyRejects(t *testing.T) {
	const head = `{"profiler":"function-trace","caption":"bad","tables":{"FUNCTION_TRACE_PROFILER_THREADS":[{"ID":0,"PARENT_ID":-1}],`
	cases := []struct{ name, json, says string }{
		{"PARENT_ID naming no parent row", head + `"FUNCTION_TRACE_PROFILER_CALL_TRACE":[{"ID":1,"PARENT_ID":0},{"ID":2,"PARENT_ID":99}]}}`,
			"profdb: table FUNCTION_TRACE_PROFILER_CALL_TRACE, row ID 2: PARENT_ID names no row of FUNCTION_TRACE_PROFILER_THREADS"},
		{"duplicate ID", head + `"FUNCTION_TRACE_PROFILER_CALL_TRACE":[{"ID":1,"PARENT_ID":0},{"ID":1,"PARENT_ID":0}]}}`,
			"profdb: table FUNCTION_TRACE_PROFILER_CALL_TRACE: ID 1 held by more than one row"},
	}
	for _, tc := range []struct {
		dialect string
		runner  func(t *testing.T) scriptRunner
	}{
		{"sqlite", sqlite3Runner}, {"postgres", psqlRunner}, {"mysql", mariadbRunner}, {"sqlserver", sqlcmdRunner},
	} {
		t.Run(tc.dialect, func(t *testing.T) {
			runScript := tc.runner(t)
			dsn := dbtest.Fresh(t, tc.dialect)
			mustRun(t, "export", "--db", dsn, "-q", "../../examples/function-trace.json")
			dir := t.TempDir()
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					before := tableCounts(t, dsn)
					script := filepath.Join(dir, "out.sql")
					input := filepath.Join(dir, "bad.json")
					writeFile(t, input, c.json)
					mustRun(t, "export", "--sql-out", script, "--dialect", tc.dialect, input)
					out, err := runScript(dsn, script)
					if err == nil {
						t.Fatalf("the script ran:\n%s", out)
					}
					if tc.dialect == "sqlite" {
						b, err := os.ReadFile(script)
						if err != nil {
							t.Fatal(err)
						}
						if !strings.Contains(out, "profdb: result set refused, nothing written") || !strings.Contains(string(b), "-- refused when "+regexp.MustCompile(`ID \d+`).ReplaceAllString(c.says, "ID N")) {
							t.Fatalf("sqlite3 says %q; the script:\n%s", out, b)
						}
					} else if !strings.Contains(out, c.says) || tc.dialect != "mysql" && !strings.Contains(out, c.says+"; result set 1 refused, nothing written") {
						t.Fatalf("the client says %q, want %q", out, c.says)
					}
					if after := tableCounts(t, dsn); !reflect.DeepEqual(before, after) {
						t.Fatalf("row counts changed:\nbefore %v\nafter  %v", before, after)
					}
				})
			}
		})
	}
}
