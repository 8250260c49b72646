package main

import (
	"flag"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/profilers"
)

var update = flag.Bool("update", false, "rewrite the generated files (ddl/sql/*.sql, docs/layout.md's tables and columns, docs/cli) from their generators")

// goldenDialects are the dialects whose scripts are checked in as
// ddl/sql/DIALECT.sql.
var goldenDialects = dbtest.Dialects()

func goldenPath(dialect string) string {
	return filepath.Join("..", "..", "ddl", "sql", dialect+".sql")
}

// checkGolden compares got with the file at path, or rewrites the file
// under -update.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run: go test ./cmd/profdb -run Golden -update)", err)
	}
	if got == string(want) {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Fatalf("%s is out of date (run: go test ./cmd/profdb -run Golden -update); first difference at line %d:\n got: %s\nwant: %s",
				path, i+1, gl, wl)
		}
	}
}

func TestDDLGolden(t *testing.T) {
	for _, d := range goldenDialects {
		t.Run(d, func(t *testing.T) {
			checkGolden(t, goldenPath(d), mustRun(t, "ddl", "--dialect", d))
		})
	}
	if *update {
		return
	}
	// No stale scripts of dialects profdb no longer has.
	files, err := filepath.Glob(filepath.Join("..", "..", "ddl", "sql", "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !slices.Contains(goldenDialects, strings.TrimSuffix(filepath.Base(f), ".sql")) {
			t.Errorf("%s: no dialect generates it", f)
		}
	}
}

func TestGoldenDialectsAreRegistered(t *testing.T) {
	if got := dialects.Names(); !slices.Equal(got, []string{"mysql", "postgres", "sqlite", "sqlserver"}) {
		t.Errorf("dialects.Names() = %v, want the four dialects (cmd/profdb/imports.go)", got)
	}
	if got := profilers.Names(); !slices.Equal(got, []string{"function-trace", "light-coverage", "reference-count", "resource"}) {
		t.Errorf("profilers.Names() = %v, want the four profilers (cmd/profdb/imports.go)", got)
	}
}

func TestDDLDeterministic(t *testing.T) {
	for _, d := range goldenDialects {
		a := mustRun(t, "ddl", "--dialect", d)
		b := mustRun(t, "ddl", "--dialect", strings.ToUpper(d), "--profiler", "resource,light-coverage",
			"-p", "reference-count", "--profiler", "function-trace", "--profiler", "resource")
		if a != b {
			t.Errorf("%s: naming every profiler, in another order, changes the script", d)
		}
	}
}

func TestDDLUnknownDialect(t *testing.T) {
	for _, args := range [][]string{
		{"ddl", "--dialect", "oracle"},
		{"ddl"}, // --dialect is required
	} {
		out, errOut, code := runCLI(t, args...)
		if code == 0 || out != "" {
			t.Errorf("profdb %s: exit %d, stdout %q; want an error", strings.Join(args, " "), code, out)
		}
		if !strings.HasPrefix(errOut, "profdb: ") {
			t.Errorf("profdb %s: stderr %q lacks the \"profdb: \" prefix", strings.Join(args, " "), errOut)
		}
		for _, name := range goldenDialects {
			if !strings.Contains(errOut, name) {
				t.Errorf("profdb %s: message %q does not list dialect %s", strings.Join(args, " "), errOut, name)
			}
		}
	}
}

func TestDDLUnknownProfiler(t *testing.T) {
	out, errOut, code := runCLI(t, "ddl", "--dialect", "sqlite", "--profiler", "function-trace", "--profiler", "sampling")
	if code == 0 || out != "" {
		t.Fatalf("exit %d, stdout %q; want an error", code, out)
	}
	if !strings.HasPrefix(errOut, "profdb: ") || !strings.Contains(errOut, `"sampling"`) {
		t.Errorf("stderr %q: want a \"profdb: \" message naming the profiler", errOut)
	}
	for _, name := range profilers.Names() {
		if !strings.Contains(errOut, name) {
			t.Errorf("message %q does not list profiler %s", errOut, name)
		}
	}
}

// createAt returns the position of the CREATE TABLE statement of the
// documented table in a script of dialect d, or -1.
func createAt(d dialects.Dialect, script, table string) int {
	q := dialects.Qualify(d, "", d.StoredName(table))
	for off := 0; ; {
		i := strings.Index(script[off:], q)
		if i < 0 {
			return -1
		}
		i += off
		stmt := script[strings.LastIndex(script[:i], "\n")+1 : i]
		if strings.Contains(strings.ToUpper(stmt), "CREATE TABLE") {
			return i
		}
		off = i + len(q)
	}
}

func TestDDLProfilerLimitsTables(t *testing.T) {
	ft, err := profilers.Lookup("function-trace")
	if err != nil {
		t.Fatal(err)
	}
	shared, err := profilers.Tables() // INSTANCES, RELATIONS, PROFDB_RESULT_SETS
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range goldenDialects {
		d, err := dialects.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		script := mustRun(t, "ddl", "--dialect", name, "--profiler", "function-trace")
		if !strings.Contains(script, "profilers: function-trace\n") {
			t.Errorf("%s: header does not name the profiler:\n%s", name, script[:min(len(script), 400)])
		}
		for _, tb := range shared {
			if createAt(d, script, tb.Name) < 0 {
				t.Errorf("%s: no CREATE TABLE for shared table %s", name, tb.Name)
			}
		}
		for _, tb := range ft.Tables {
			at := createAt(d, script, tb.Name)
			if at < 0 {
				t.Errorf("%s: no CREATE TABLE for %s", name, tb.Name)
				continue
			}
			if tb.Parent != "" && createAt(d, script, tb.Parent) > at {
				t.Errorf("%s: %s is created before its parent %s", name, tb.Name, tb.Parent)
			}
		}
		for _, prefix := range []string{"LIGHT_COVERAGE_", "RESOURCE_", "REFERENCE_COUNT_"} {
			if strings.Contains(strings.ToUpper(script), prefix) {
				t.Errorf("%s: --profiler function-trace script mentions %s tables", name, prefix)
			}
		}
	}
}

func TestDDLOutputFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.sql")
	if out := mustRun(t, "ddl", "--dialect", "postgres", "-o", path); out != "" {
		t.Errorf("-o: stdout %q, want nothing", out)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := mustRun(t, "ddl", "--dialect", "postgres"); string(got) != want {
		t.Error("-o FILE differs from standard output")
	}
	if _, errOut, code := runCLI(t, "ddl", "--dialect", "postgres", "-o", filepath.Join(t.TempDir(), "no", "such", "dir.sql")); code == 0 || !strings.HasPrefix(errOut, "profdb: ") {
		t.Errorf("unwritable -o: exit %d, stderr %q", code, errOut)
	}
}

func TestDDLSchema(t *testing.T) {
	for _, name := range goldenDialects {
		d, err := dialects.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		script := mustRun(t, "ddl", "--dialect", name, "--schema", "aqtime", "--profiler", "light-coverage")
		q := dialects.Qualify(d, "aqtime", d.StoredName("LIGHT_COVERAGE_PROFILER_LINES"))
		if !strings.Contains(script, q) {
			t.Errorf("%s --schema aqtime: no %s in\n%s", name, q, script)
		}
		if !strings.Contains(script, "-- schema: aqtime\n") {
			t.Errorf("%s --schema aqtime: header does not say so", name)
		}
		plain := mustRun(t, "ddl", "--dialect", name, "--profiler", "light-coverage")
		if strings.Count(script, "\nGO\n") != strings.Count(plain, "\nGO\n") {
			t.Errorf("%s --schema: batch separators differ from the plain script", name)
		}
	}
	if _, _, code := runCLI(t, "ddl", "--dialect", "sqlite", "--schema", "a\nb"); code == 0 {
		t.Error("--schema with a newline accepted")
	}
}

// The scripts run in the dialects' own clients: twice (they are
// idempotent), then a query written as the consumers in the wild write it
// (dialecttest.ConsumerQuery) runs on what they created. Clients and
// servers that are absent skip the test, except under CI=true for the ones CI
// provides.

// wantTables is how many tables the full script creates.
func wantTables(t *testing.T) int { return len(dialecttest.AllTables(t)) }

// client finds the first of the named programs on PATH; when none is there
// the test skips, or fails under CI=true if required is set.
func client(t *testing.T, required bool, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if required && dbtest.InCI() {
		t.Fatalf("%s is not on PATH: CI installs it (.ci/run)", names[0])
	}
	t.Skipf("%s is not on PATH", names[0])
	return ""
}

// runClient runs a client program with extra environment and stdin, and
// returns its trimmed output; a failure fails the test. Arguments are never
// printed: they may name a server.
func runClient(t *testing.T, env []string, stdin string, prog string, args ...string) string {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", filepath.Base(prog), err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestDDLScriptInSQLite3(t *testing.T) {
	sqlite3 := client(t, true, "sqlite3")
	script := mustRun(t, "ddl", "--dialect", "sqlite")
	db := filepath.Join(t.TempDir(), "profdb.db")
	for range 2 {
		runClient(t, nil, script, sqlite3, "-bail", db)
	}
	if got := runClient(t, nil, "", sqlite3, db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'"); got != strconv.Itoa(wantTables(t)) {
		t.Errorf("sqlite3: %s tables, want %d", got, wantTables(t))
	}
	runClient(t, nil, "", sqlite3, "-bail", db, dialecttest.ConsumerQuery)
}

func TestDDLScriptInPsql(t *testing.T) {
	psql := client(t, true, "psql")
	dsn := dbtest.Fresh(t, "postgres") // a private schema, named by search_path
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	schema := q.Get("search_path")
	q.Del("search_path") // libpq does not know it as a URI parameter
	u.RawQuery = q.Encode()
	env := []string{"PGOPTIONS=-c search_path=" + schema, "PGCONNECT_TIMEOUT=20"}
	script := mustRun(t, "ddl", "--dialect", "postgres")
	for i := range 2 {
		// Run again over existing tables, the script is quiet: no NOTICE
		// per object that exists.
		out := runClient(t, env, script, psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", u.String(), "-f", "-")
		if out != "" {
			t.Errorf("psql, run %d of the script, printed:\n%.600s", i+1, out)
		}
	}
	got := runClient(t, env, "", psql, "-X", "-At", "-v", "ON_ERROR_STOP=1", "-d", u.String(), "-c",
		"SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()")
	if got != strconv.Itoa(wantTables(t)) {
		t.Errorf("psql: %s tables, want %d", got, wantTables(t))
	}
	runClient(t, env, "", psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", u.String(), "-c", dialecttest.ConsumerQuery)
}

func TestDDLScriptInMariaDB(t *testing.T) {
	mariadb := client(t, true, "mariadb", "mysql")
	env, args := mariadbArgs(t)
	script := mustRun(t, "ddl", "--dialect", "mysql")
	for range 2 {
		runClient(t, env, script, mariadb, args...)
	}
	got := runClient(t, env, "", mariadb, append(args, "-e",
		"SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE()")...)
	if got != strconv.Itoa(wantTables(t)) {
		t.Errorf("%s: %s tables, want %d", filepath.Base(mariadb), got, wantTables(t))
	}
	runClient(t, env, "", mariadb, append(args, "-e", dialecttest.ConsumerQuery)...)
}

// TestDDLPrimaryKeyInMariaDB: with --primary-key every profiler table gets
// PROFDB_ROW_ID as its primary key, which readers never see: SELECT * and
// an INSERT without a column list know only the documented columns.
func TestDDLPrimaryKeyInMariaDB(t *testing.T) {
	mariadb := client(t, true, "mariadb", "mysql")
	env, args := mariadbArgs(t)
	script := mustRun(t, "ddl", "--dialect", "mysql", "--primary-key")
	for range 2 {
		runClient(t, env, script, mariadb, args...)
	}
	got := runClient(t, env, "", mariadb, append(args, "-e", `SELECT count(*) FROM information_schema.KEY_COLUMN_USAGE
WHERE TABLE_SCHEMA = DATABASE() AND CONSTRAINT_NAME = 'PRIMARY' AND COLUMN_NAME = '`+dialects.RowKeyColumn+`'`)...)
	// INSTANCES, RELATIONS and PROFDB_RESULT_SETS have keys of their own.
	if got != strconv.Itoa(wantTables(t)-3) {
		t.Errorf("%s tables keyed by %s, want every profiler table (%d)", got, dialects.RowKeyColumn, wantTables(t)-3)
	}
	got = runClient(t, env, "", mariadb, append(args, "-e", `INSERT INTO RESOURCE_PROFILER_THREADS VALUES (1, 2, 3, 4, 5, 6);
INSERT INTO RESOURCE_PROFILER_THREADS VALUES (1, 2, 3, 4, 5, 6); SELECT * FROM RESOURCE_PROFILER_THREADS`)...)
	if want := "1\t2\t3\t4\t5\t6\n1\t2\t3\t4\t5\t6"; got != want {
		t.Errorf("SELECT * = %q, want %q", got, want)
	}
	runClient(t, env, "", mariadb, append(args, "-e", dialecttest.ConsumerQuery)...)
	if !strings.Contains(script, "-- --primary-key: ") || !strings.Contains(mustRun(t, "ddl", "--dialect", "mysql"), "use profdb ddl --primary-key") {
		t.Error("the scripts do not mention --primary-key")
	}
	_, errOut, code := runCLI(t, "ddl", "--dialect", "postgres", "--primary-key")
	if code == 0 || !strings.Contains(errOut, "--primary-key") {
		t.Errorf("ddl --dialect postgres --primary-key: exit %d, %q", code, errOut)
	}
}

// mariadbArgs returns the environment and arguments that point the
// mariadb client at a fresh private database.
func mariadbArgs(t *testing.T) (env, args []string) {
	t.Helper()
	dsn := dbtest.Fresh(t, "mysql") // a private database
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	args = []string{"--protocol=TCP", "--batch", "--skip-column-names", "--connect-timeout=20",
		"-h", u.Hostname(), "-u", u.User.Username()}
	if p := u.Port(); p != "" {
		args = append(args, "-P", p)
	}
	if pw, ok := u.User.Password(); ok {
		env = append(env, "MYSQL_PWD="+pw) // not on the command line
	}
	args = append(args, "-D", strings.TrimPrefix(u.Path, "/"))
	return env, args
}
