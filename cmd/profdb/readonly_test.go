package main

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/servetest"
)

// readCommands are profdb's commands that only read a database, each as
// the arguments that run it against the database dsn (copy reads from it
// into a scratch SQLite file). A command with a database flag must be
// listed here or in writeCommands (TestEveryDatabaseCommandIsClassified).
var readCommands = map[string]func(dsn, scratch string) []string{
	"list":    func(dsn, _ string) []string { return []string{"list", "--db", dsn} },
	"verify":  func(dsn, _ string) []string { return []string{"verify", "--db", dsn} },
	"show":    func(dsn, _ string) []string { return []string{"show", "--db", dsn, "1"} },
	"compare": func(dsn, _ string) []string { return []string{"compare", "--db", dsn, "1", "1"} },
	"trend":   func(dsn, _ string) []string { return []string{"trend", "--db", dsn, "--profiler", "function-trace"} },
	"check": func(dsn, _ string) []string {
		return []string{"check", "--db", dsn, "1", "--baseline", "1", "--max-time-increase", "0"}
	},
	"report": func(dsn, scratch string) []string {
		return []string{"report", "--db", dsn, "-o", filepath.Join(scratch, "report.html")}
	},
	"copy": func(dsn, scratch string) []string {
		return []string{"copy", "--from", dsn, "--to", "sqlite:" + filepath.Join(scratch, "copy.db")}
	},
	"ddl": func(dsn, _ string) []string { return []string{"ddl", "--upgrade", "--db", dsn} },
	// serve runs until stopped: runRead serves every page its runs page
	// links to, and the API's runs, then stops it.
	"serve": func(dsn, _ string) []string { return []string{"serve", "--db", dsn, "--addr", "127.0.0.1:0"} },
}

// runRead runs a read command, args as readCommands gives them, and
// returns its output, messages and exit status. Every command but serve
// runs in-process to its end. serve runs as a process of its own: once it
// says where it serves, every page its runs page links to is read, each of
// which must answer 200 (servetest.Crawl), and /api/v1/runs; then it is
// stopped with SIGINT and its exit status is returned. A serve that ends
// before it serves (a missing database, say) returns as it ended.
func runRead(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	if args[0] != "serve" {
		return runCLI(t, args...)
	}
	cmd := profdbCommand(profdbBin(t), args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first := make(chan string, 1)
	rest := make(chan string, 1)
	go func() {
		r := bufio.NewReader(out)
		line, _ := r.ReadString('\n')
		first <- line
		b, _ := io.ReadAll(r)
		rest <- string(b)
	}()
	var line string
	select {
	case line = <-first:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("profdb %s: no line after 60 s", strings.Join(args, " "))
	}
	if i := strings.Index(line, "http://"); i >= 0 {
		base := strings.TrimSuffix(strings.Fields(line[i:])[0], "/")
		servetest.Crawl(t, base, "/", 60)
		if st, body := servetest.Get(t, base+"/api/v1/runs", nil); st != http.StatusOK {
			t.Errorf("profdb %s: GET /api/v1/runs: %d %s", strings.Join(args, " "), st, body)
		}
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
	}
	cmd.Wait()
	return line + <-rest, errOut.String(), cmd.ProcessState.ExitCode()
}

// writeCommands are the commands that write the database their flags name.
var writeCommands = map[string]bool{"export": true, "delete": true, "merge": true}

// TestEveryDatabaseCommandIsClassified: every command that takes a
// database DSN is known to read or to write, so that a new read command is
// tested by the tests below.
func TestEveryDatabaseCommandIsClassified(t *testing.T) {
	for _, c := range newRootCmd(&ledger{}).Commands() {
		if c.Flags().Lookup("db") == nil && c.Flags().Lookup("from") == nil {
			continue
		}
		if _, ok := readCommands[c.Name()]; !ok && !writeCommands[c.Name()] {
			t.Errorf("command %s takes a database but is in neither readCommands nor writeCommands", c.Name())
		}
	}
}

// dirFiles lists the names in dir.
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// TestReadCommandsCreateNothing: a read command on a missing SQLite file
// (plain, and with ?mode=ro) fails naming the file and creates nothing,
// neither the file nor one named with the query string.
func TestReadCommandsCreateNothing(t *testing.T) {
	for name, args := range readCommands {
		for _, suffix := range []string{"", "?mode=ro", "?mode=rw"} {
			dir, scratch := t.TempDir(), t.TempDir()
			path := filepath.Join(dir, "missing.db")
			_, stderr, code := runRead(t, args("sqlite:"+path+suffix, scratch)...)
			if code == 0 || !strings.Contains(stderr, path+": no such database file") {
				t.Errorf("%s on a missing file%s: exit %d, %q; want an error naming %s", name, suffix, code, stderr, path)
			}
			if got := dirFiles(t, dir); len(got) != 0 {
				t.Errorf("%s on a missing file%s created %v", name, suffix, got)
			}
		}
	}
}

// TestReadCommandsWriteNothing: read commands on an SQLite database leave
// its file byte for byte as it was, with no journal beside it, also when
// the DSN asks for mode=ro.
func TestReadCommandsWriteNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.db")
	mustRun(t, "export", "--db", "sqlite:"+path, "../../examples/function-trace.json", "../../examples/resource.json")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	stat, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, args := range readCommands {
		for _, suffix := range []string{"", "?mode=ro"} {
			if _, stderr, code := runRead(t, args("sqlite:"+path+suffix, t.TempDir())...); code != 0 {
				t.Fatalf("%s%s: exit %d\n%s", name, suffix, code, stderr)
			}
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) || !st.ModTime().Equal(stat.ModTime()) {
				t.Errorf("%s%s changed the database file", name, suffix)
			}
			if got := dirFiles(t, dir); len(got) != 1 {
				t.Errorf("%s%s left files beside the database: %v", name, suffix, got)
			}
		}
	}
	// Writes through a read-only DSN fail and change nothing.
	_, stderr, code := runCLI(t, "export", "--db", "sqlite:"+path+"?mode=ro", "../../examples/light-coverage.json")
	if after, _ := os.ReadFile(path); code == 0 || !bytes.Equal(before, after) || !strings.Contains(stderr, "readonly") {
		t.Errorf("export through mode=ro: exit %d, %s", code, stderr)
	}
}

// TestNoCreateCreatesNoFile: export --no-create and delete on a missing
// SQLite file fail naming it and leave no file behind.
func TestNoCreateCreatesNoFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "missing.db")
	// Why: the flag that forbids creating, or the command that never
	// creates (the library names store.Options.NoCreate).
	for _, args := range [][]string{
		{"export", "--no-create", "--db", "sqlite:" + path, "../../examples/function-trace.json"},
		{"export", "--no-create", "--bulk", "off", "--db", "sqlite:" + path, "../../examples/function-trace.json"},
		{"delete", "--db", "sqlite:" + path, "--inst", "1"},
	} {
		_, stderr, code := runCLI(t, args...)
		if code == 0 || !strings.Contains(stderr, path+": no such database file") {
			t.Errorf("%v: exit %d, %q; want an error naming the file", args, code, stderr)
		}
		why := "(--no-create: a write into an existing database never creates one)"
		if args[0] == "delete" {
			why = "(delete: a write into an existing database never creates one)"
		}
		if !strings.Contains(stderr, why) {
			t.Errorf("%v: %q; want it to say %s", args, stderr, why)
		}
		if got := dirFiles(t, dir); len(got) != 0 {
			t.Errorf("%v created %v", args, got)
		}
	}
}

// TestReadCommandsOnServersWriteNothing: read commands succeed through a
// login that may only SELECT the tables (and create nothing).
func TestReadCommandsOnServersWriteNothing(t *testing.T) {
	for _, dialect := range dbtest.Servers("sqlserver") {
		t.Run(dialect, func(t *testing.T) {
			dsn := dbtest.Fresh(t, dialect)
			mustRun(t, "export", "--db", dsn, "../../examples/function-trace.json", "../../examples/resource.json")
			readOnly := readOnlyDSN(t, dialect, dsn)
			for name, args := range readCommands {
				out, stderr, code := runRead(t, args(readOnly, t.TempDir())...)
				if code != 0 {
					t.Errorf("%s through a read-only login: exit %d\n%s%s", name, code, out, stderr)
				}
			}
			if _, stderr, code := runCLI(t, "export", "--db", readOnly, "../../examples/light-coverage.json"); code == 0 {
				t.Errorf("export through a read-only login succeeded: %s", stderr)
			}
		})
	}
}

// readOnlyDSN returns a DSN for dsn's database through which nothing can
// be written.
func readOnlyDSN(t *testing.T, dialect, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	admin := dbtest.Open(t, dbtest.DSN(t, dialect))
	user := randomName("profdb_ro_")
	stmts := []string{
		"CREATE USER '" + user + "'@'%' IDENTIFIED BY '" + secret + "'",
		"GRANT SELECT ON " + strings.TrimPrefix(u.Path, "/") + ".* TO '" + user + "'@'%'",
	}
	drop := "DROP USER IF EXISTS '" + user + "'@'%'"
	if dialect == "postgres" {
		schema := u.Query().Get("search_path")
		stmts = []string{
			"CREATE ROLE " + user + " LOGIN",
			"GRANT USAGE ON SCHEMA " + schema + " TO " + user,
			"GRANT SELECT ON ALL TABLES IN SCHEMA " + schema + " TO " + user,
		}
		drop = "DROP OWNED BY " + user + "; DROP ROLE IF EXISTS " + user
	}
	for _, st := range stmts {
		if _, err := admin.Exec(st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	t.Cleanup(func() {
		for _, st := range strings.Split(drop, "; ") {
			if _, err := admin.Exec(st); err != nil {
				t.Errorf("%s: %v", st, err)
			}
		}
	})
	return withPassword(t, dsn, user)
}

// TestHotStandby: on a PostgreSQL hot standby (made with pg_basebackup by
// .ci/pg-standby, which prints the two DSNs) every read command works and
// sees what the primary holds; export and delete fail at once saying the
// database is read-only, and nothing is written.
func TestHotStandby(t *testing.T) {
	primary, standby := os.Getenv("PROFDB_TEST_POSTGRES_PRIMARY"), os.Getenv("PROFDB_TEST_POSTGRES_STANDBY")
	if primary == "" || standby == "" {
		if dbtest.InCI() {
			t.Fatal("PROFDB_TEST_POSTGRES_PRIMARY and PROFDB_TEST_POSTGRES_STANDBY are not set (run .ci/pg-standby)")
		}
		t.Skip("no hot standby: set PROFDB_TEST_POSTGRES_PRIMARY and PROFDB_TEST_POSTGRES_STANDBY (see .ci/pg-standby)")
	}
	ctx := t.Context()
	schema := randomName("profdb_sb_")
	admin := dbtest.Open(t, primary)
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP SCHEMA IF EXISTS " + schema + " CASCADE"); err != nil {
			t.Logf("drop schema %s: %v", schema, err)
		}
	})
	for _, dsn := range []*string{&primary, &standby} {
		ns, err := dbtest.WithNamespace(*dsn, schema)
		if err != nil {
			t.Fatal(err)
		}
		*dsn = ns
	}
	mustRun(t, "export", "--db", primary, "../../examples/function-trace.json", "../../examples/resource.json")

	// Wait until the standby has replayed the primary's WAL up to now.
	var lsn string
	if err := admin.QueryRowContext(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&lsn); err != nil {
		t.Fatal(err)
	}
	sb := dbtest.Open(t, standby)
	for caughtUp := false; !caughtUp; {
		if err := sb.QueryRowContext(ctx, "SELECT pg_is_in_recovery() AND pg_last_wal_replay_lsn() >= $1::pg_lsn", lsn).Scan(&caughtUp); err != nil {
			t.Fatal(err)
		}
		if !caughtUp {
			select {
			case <-ctx.Done():
				t.Fatal("the standby did not catch up")
			case <-time.After(100 * time.Millisecond):
			}
		}
	}

	want := mustRun(t, "list", "--db", primary, "--json")
	if got := mustRun(t, "list", "--db", standby, "--json"); got != want {
		t.Errorf("list on the standby:\n%s\nwant, as on the primary:\n%s", got, want)
	}
	for name, args := range readCommands {
		if out, stderr, code := runRead(t, args(standby, t.TempDir())...); code != 0 {
			t.Errorf("%s on the standby: exit %d\n%s%s", name, code, out, stderr)
		}
	}
	for _, args := range [][]string{
		{"export", "--db", standby, "../../examples/light-coverage.json"},
		{"export", "--db", standby, "--no-create", "--bulk", "off", "../../examples/function-trace.json"},
		{"delete", "--db", standby, "--inst", "1"},
	} {
		_, stderr, code := runCLI(t, args...)
		if code == 0 || !strings.Contains(stderr, "is read-only") {
			t.Errorf("%v on the standby: exit %d, %q; want a read-only error", args, code, stderr)
		}
	}
	if got := mustRun(t, "list", "--db", primary, "--json"); got != want {
		t.Errorf("the primary changed:\n%s\nwant\n%s", got, want)
	}
}
