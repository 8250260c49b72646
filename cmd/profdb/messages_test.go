package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// Counts read as English: "1 profiler", "1 row", "2 rows".
func TestPlurals(t *testing.T) {
	out := mustRun(t, "profilers", "resource")
	if !strings.Contains(out, "\n1 profiler, 9 tables,") {
		t.Errorf("profdb profilers resource: want a closing \"1 profiler, 9 tables, ...\" line:\n%s", out)
	}
	for rows, want := range map[int64]string{1: "  1 row  ", 2: "  2 rows  ", 0: "  0 rows  "} {
		if got := (resultset.Result{InstID: 3, Profiler: "resource", Rows: rows}).Line(); !strings.Contains(got, want) {
			t.Errorf("Result.Line with %d rows = %q, want it to contain %q", rows, got, want)
		}
	}
}

// Every flag's help names at most one default.
func TestFlagHelpOneDefault(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, line := range strings.Split(c.LocalFlags().FlagUsages(), "\n") {
			if strings.Count(line, "(default") > 1 {
				t.Errorf("%s: flag help names two defaults: %s", c.CommandPath(), strings.TrimSpace(line))
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(&ledger{}))
	out := mustRun(t, "copy", "--help")
	if !strings.Contains(out, "(default: all)") || strings.Contains(out, "(default [])") {
		t.Errorf("profdb copy --help: want --inst's \"(default: all)\" and no \"(default [])\":\n%s", out)
	}
}

// A mistyped command or flag gets the names within two edits suggested,
// not only those it is a prefix of.
func TestSuggestions(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"lsit"}, `unknown command "lsit"; did you mean list?`},
		{[]string{"exprot", "x.json"}, `did you mean export?`},
		{[]string{"lst"}, `did you mean list?`},
		{[]string{"list", "--jsn"}, `unknown flag: --jsn; did you mean --json?`},
		{[]string{"export", "--captoin", "x", "x.json"}, `did you mean --caption?`},
		{[]string{"ddl", "--dialet", "sqlite"}, `did you mean --dialect?`},
		{[]string{"copy", "--fro", "sqlite:a.db"}, `did you mean --from or --from-schema or --to?`},
	} {
		_, stderr, code := runCLI(t, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "--help' for usage") {
			t.Errorf("profdb %s: exit %d, want %q and a pointer to --help in:\n%s", strings.Join(c.args, " "), code, c.want, stderr)
		}
	}
	if _, stderr, code := runCLI(t, "ddl", "--zzzzzz"); code == 0 || !strings.Contains(stderr, "unknown flag: --zzzzzz") || strings.Contains(stderr, "did you mean") {
		t.Errorf("profdb ddl --zzzzzz: exit %d; want it refused without suggesting a flag nothing like it:\n%s", code, stderr)
	}
}

// Messages that say what is wrong and what to do instead.
func TestMessagesSayWhatToDo(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "p.db")
	// A coverprofile outside any module, and one whose file is missing.
	noMod := filepath.Join(dir, "c.out")
	writeFile(t, noMod, "mode: set\nexample.com/m/a.go:1.1,2.2 1 1\n")
	mod := filepath.Join(dir, "mod")
	writeFile(t, filepath.Join(mod, "go.mod"), "module example.com/m\n\ngo 1.22\n")
	mustRun(t, "export", "--db", db, filepath.Join("..", "..", "examples", "resource.json"))
	before := mustRun(t, "list", "--db", db)
	for _, c := range []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{"export", "--db", db, "--source-root", dir, noMod}, []string{"no go.mod", "--source-root", "--skip-missing"}, nil},
		{[]string{"export", "--db", db, "--source-root", mod, noMod}, []string{"a.go not found", "--source-root", "--skip-missing"}, nil},
		{[]string{"export", "--db", db, dir}, []string{dir + " is a directory"}, []string{"cannot tell the format"}},
		{[]string{"export", "--db", db, "--schema", "aqtime", filepath.Join("..", "..", "examples", "function-trace.json")},
			[]string{`no schema "aqtime": SQLite has no schemas`}, []string{"SQL logic error"}},
		{[]string{"list", "--db", db, "--schema", "aqtime"}, []string{"SQLite has no schemas"}, nil},
		{[]string{"list", "--db", "oracle://scott:tiger@db/prof"},
			[]string{`unknown DSN scheme "oracle"`, "supported: ", "mariadb:", "mysql:", "postgres:", "sqlite:", "sqlserver:"},
			[]string{"forgotten import", "tiger"}},
	} {
		_, stderr, code := runCLI(t, c.args...)
		if code == 0 {
			t.Errorf("profdb %s: exit 0", strings.Join(c.args, " "))
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("profdb %s: no %q in:\n%s", strings.Join(c.args, " "), w, stderr)
			}
		}
		for _, n := range c.not {
			if strings.Contains(stderr, n) {
				t.Errorf("profdb %s: %q in:\n%s", strings.Join(c.args, " "), n, stderr)
			}
		}
	}
	// Nothing was written by any of them.
	if out := mustRun(t, "list", "--db", db); out != before {
		t.Errorf("list after failed exports:\n%s\nwant, as before them:\n%s", out, before)
	}
}

func writeFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Every error names the command that failed and the database it was
// working on, never another command, and never a password.
func TestErrorsNameCommandAndDatabase(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "p.db")
	mustRun(t, "export", "--db", db, "-q", filepath.Join("..", "..", "examples", "function-trace.json"))
	const pw = "Pa55-w0rd"
	down := "postgres://me:" + pw + "@127.0.0.1:1/prof?sslmode=disable" // nothing listens on port 1
	downShown := "postgres://me:xxxxx@127.0.0.1:1/prof?sslmode=disable"
	missing := "sqlite:" + filepath.Join(dir, "no", "such", "dir", "a.db")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"list", "--db", down}, "profdb: list: open " + downShown + ": "},
		{[]string{"verify", "--db", down}, "profdb: verify: open " + downShown + ": "},
		{[]string{"delete", "--db", down, "--inst", "1"}, "profdb: delete: open " + downShown + ": "},
		{[]string{"export", "--db", down, "x.json"}, "profdb: export: "},
		{[]string{"verify", "--db", db, "--inst", "7"}, "profdb: verify: no result set 7"},
		{[]string{"delete", "--db", db, "--inst", "7"}, "profdb: delete: no result set 7"},
		{[]string{"copy", "--from", missing, "--to", db}, "profdb: copy: reading source " + missing + ": "},
		{[]string{"copy", "--from", db, "--to", down}, "profdb: copy: writing target " + downShown + ": "},
		{[]string{"copy", "--from", db, "--to", db, "--inst", "7"}, "profdb: copy: reading source " + db + ": no result set 7 in INSTANCES"},
	} {
		_, stderr, code := runCLI(t, c.args...)
		if code == 0 || !strings.HasPrefix(stderr, c.want) {
			t.Errorf("profdb %s: exit %d, want a message starting %q:\n%s", strings.Join(c.args, " "), code, c.want, stderr)
		}
		if strings.Contains(stderr, pw) {
			t.Errorf("profdb %s: the password is in the message:\n%s", strings.Join(c.args, " "), stderr)
		}
		if c.args[0] != "export" && strings.Contains(stderr, "export:") {
			t.Errorf("profdb %s: the message names export:\n%s", strings.Join(c.args, " "), stderr)
		}
	}
}

// PROFDB_DB and PROFDB_SCHEMA give --db and --schema their defaults: a flag
// given wins, then the variable, then the built-in default.
func TestEnvironmentDefaults(t *testing.T) {
	example, err := filepath.Abs(filepath.Join("..", "..", "examples", "resource.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir) // the built-in default, sqlite:profdb.db, would land here
	envDB := "sqlite:" + filepath.Join(dir, "env.db")
	flagDB := "sqlite:" + filepath.Join(dir, "flag.db")

	t.Setenv("PROFDB_DB", envDB)
	mustRun(t, "export", "-q", example)
	if _, err := os.Stat(filepath.Join(dir, "env.db")); err != nil {
		t.Fatalf("export without --db did not write $PROFDB_DB: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "profdb.db")); err == nil {
		t.Fatal("export without --db wrote the built-in default, not $PROFDB_DB")
	}
	if out := mustRun(t, "list"); !strings.Contains(out, "resource") {
		t.Errorf("list without --db does not read $PROFDB_DB:\n%s", out)
	}
	// The flag wins: list reads flag.db, which does not exist (and which
	// list, a read command, does not create).
	if out, stderr, code := runCLI(t, "list", "--db", flagDB); code == 0 || !strings.Contains(stderr, "flag.db: no such database file") {
		t.Errorf("list --db did not read the file --db names: exit %d\n%s%s", code, out, stderr)
	}
	// --sql-out needs no --db: $PROFDB_DB does not count as one.
	mustRun(t, "export", "--sql-out", filepath.Join(dir, "x.sql"), "--dialect", "sqlite", example)

	t.Setenv("PROFDB_SCHEMA", "aqtime")
	if _, stderr, code := runCLI(t, "list"); code == 0 || !strings.Contains(stderr, `no schema "aqtime"`) {
		t.Errorf("list with $PROFDB_SCHEMA=aqtime on SQLite: exit %d\n%s", code, stderr)
	}
	if out := mustRun(t, "list", "--schema", "main"); !strings.Contains(out, "resource") {
		t.Errorf("list --schema main:\n%s", out)
	}

	// A password in $PROFDB_DB is not printed either.
	t.Setenv("PROFDB_DB", "postgres://me:Env-S3cret@127.0.0.1:1/prof?sslmode=disable")
	if _, stderr, _ := runCLI(t, "list"); strings.Contains(stderr, "Env-S3cret") || !strings.Contains(stderr, "me:xxxxx@") {
		t.Errorf("list with a password in $PROFDB_DB:\n%s", stderr)
	}
	if out := mustRun(t, "list", "--help"); !strings.Contains(out, "$PROFDB_DB") || !strings.Contains(out, "$PROFDB_SCHEMA") {
		t.Errorf("list --help does not name $PROFDB_DB and $PROFDB_SCHEMA:\n%s", out)
	}
}

// verify, delete and copy print JSON on --json: verify's findings with the
// IDs of the rows at fault, copy's results with the source INST_ID.
func TestJSONOutputs(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "p.db")
	ft := filepath.Join("..", "..", "examples", "function-trace.json")
	mustRun(t, "export", "-q", "--db", db, ft, ft)
	var findings []store.Finding
	if err := json.Unmarshal([]byte(mustRun(t, "verify", "--db", db, "--json")), &findings); err != nil || findings == nil || len(findings) != 0 {
		t.Fatalf("verify --json on a sound database: %v %v", findings, err)
	}
	// Break two parent links of INST_ID 2.
	x, err := exporter.Open(t.Context(), db, store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.DB().SQL().Exec(`UPDATE FUNCTION_TRACE_PROFILER_CALL_TRACE SET PARENT_ID = 99 WHERE INST_ID = 2 AND ID IN (3, 5)`); err != nil {
		t.Fatal(err)
	}
	x.Close()
	out, _, code := runCLI(t, "verify", "--db", db, "--json")
	if err := json.Unmarshal([]byte(out), &findings); err != nil || code == 0 {
		t.Fatalf("verify --json after damage: exit %d, %v\n%s", code, err, out)
	}
	if len(findings) != 1 || findings[0].InstID != 2 || findings[0].Table != "FUNCTION_TRACE_PROFILER_CALL_TRACE" ||
		!slices.Equal(findings[0].IDs, []int64{3, 5}) {
		t.Errorf("verify --json: %+v, want one finding for INST_ID 2's CALL_TRACE rows 3 and 5", findings)
	}
	if out, _, _ := runCLI(t, "verify", "--db", db); !strings.Contains(out, "2 rows whose PARENT_ID names no row of FUNCTION_TRACE_PROFILER_THREADS: IDs 3, 5") {
		t.Errorf("verify names not the rows at fault:\n%s", out)
	}

	// copy --json: the source INST_ID with the target's result.
	to := "sqlite:" + filepath.Join(dir, "q.db")
	mustRun(t, "export", "-q", "--db", to, ft)
	var copies []map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, "copy", "--from", db, "--to", to, "--inst", "1", "--json")), &copies); err != nil {
		t.Fatal(err)
	}
	if len(copies) != 1 || copies[0]["source_inst_id"] != 1.0 || copies[0]["inst_id"] != 2.0 || copies[0]["rows"] != 76.0 || copies[0]["profiler"] != "function-trace" {
		t.Errorf("copy --json: %v", copies)
	}

	// delete --json: what went, counted as list counts it.
	var del []map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, "delete", "--db", to, "--inst", "2", "--json")), &del); err != nil {
		t.Fatal(err)
	}
	if len(del) != 1 || del[0]["inst_id"] != 2.0 || del[0]["rows"] != 76.0 {
		t.Errorf("delete --json: %v", del)
	}
}

// delete takes several INST_IDs and ranges, removes them in one
// transaction, and with --dry-run says what would go and removes nothing.
func TestDeleteSeveral(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "p.db")
	ft := filepath.Join("..", "..", "examples", "function-trace.json")
	mustRun(t, "export", "-q", "--db", db, ft, ft, ft, ft, ft, ft) // INST_IDs 1 to 6
	ids := func() []int64 {
		var list []store.Listing
		if err := json.Unmarshal([]byte(mustRun(t, "list", "--db", db, "--json")), &list); err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, l := range list {
			out = append(out, l.InstID)
		}
		return out
	}
	out := mustRun(t, "delete", "--db", db, "--inst", "2,4-5", "--inst", "4", "--dry-run")
	if out != "would delete INST_ID 2 (76 rows)\nwould delete INST_ID 4 (76 rows)\nwould delete INST_ID 5 (76 rows)\n" {
		t.Errorf("delete --dry-run:\n%s", out)
	}
	if got := ids(); !slices.Equal(got, []int64{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("--dry-run deleted: %v left", got)
	}
	// One INST_ID missing: nothing is deleted.
	if _, stderr, code := runCLI(t, "delete", "--db", db, "--inst", "2", "--inst", "9"); code == 0 || !strings.Contains(stderr, "no result set 9") {
		t.Errorf("delete 2 and 9: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "delete", "--db", db, "--inst", "7-9"); code == 0 || !strings.Contains(stderr, "no result set in 7-9") {
		t.Errorf("delete 7-9: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "delete", "--db", db, "--inst", "5-2"); code == 0 || !strings.Contains(stderr, "A <= B") {
		t.Errorf("delete 5-2: exit %d\n%s", code, stderr)
	}
	// The engine deletes in one transaction: 1 goes back when 99 fails.
	x, err := exporter.Open(t.Context(), db, store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.DB().DeleteAll(t.Context(), []int64{1, 99}); err == nil || !strings.Contains(err.Error(), "no result set 99") {
		t.Errorf("DeleteAll(1, 99): %v", err)
	}
	x.Close()
	if got := ids(); !slices.Equal(got, []int64{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("failed deletes deleted: %v left", got)
	}
	out = mustRun(t, "delete", "--db", db, "--inst", "2,4-5", "--inst", "4")
	if out != "deleted INST_ID 2 (76 rows)\ndeleted INST_ID 4 (76 rows)\ndeleted INST_ID 5 (76 rows)\n" {
		t.Errorf("delete:\n%s", out)
	}
	if got := ids(); !slices.Equal(got, []int64{1, 3, 6}) {
		t.Errorf("after delete 2,4-5: %v left, want 1 3 6", got)
	}
	if out := mustRun(t, "verify", "--db", db); strings.TrimSpace(out) != "ok" {
		t.Errorf("verify after delete: %s", out)
	}
}
