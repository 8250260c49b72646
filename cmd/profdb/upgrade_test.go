package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// execAll runs statements on the database dsn names, with names of
// profdb's tables and columns written {NAME} (stored and quoted as the
// dialect does).
func execAll(t *testing.T, dsn string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, dsn, store.Options{NoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d := db.Dialect()
	for _, s := range stmts {
		for {
			i := strings.IndexByte(s, '{')
			if i < 0 {
				break
			}
			j := strings.IndexByte(s[i:], '}') + i
			s = s[:i] + d.Quote(d.StoredName(s[i+1:j])) + s[j+1:]
		}
		if _, err := db.SQL().ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// runOf returns what the database records of the result set inst.
func runOf(t *testing.T, dsn string, inst int64) (*resultset.Run, bool) {
	t.Helper()
	run, ok := identities(t, dsn)[inst]
	return run, ok
}

// oldProfdb makes the database dsn one that profdb wrote before it
// recorded a run's identity: PROFDB_RESULT_SETS without the identity
// columns, no PROFDB_LABELS, no PROFDB_MERGE_SOURCES.
func oldProfdb(t *testing.T, dsn string) {
	var stmts []string
	for _, c := range profilers.IdentityColumns {
		stmts = append(stmts, "ALTER TABLE {"+profilers.ResultSetsTable+"} DROP COLUMN {"+c+"}")
	}
	execAll(t, dsn, append(stmts, "DROP TABLE {"+profilers.LabelsTable+"}", "DROP TABLE {"+profilers.MergeSourcesTable+"}")...)
}

// aqtimeMade makes the database dsn one AQTime wrote: none of profdb's
// own tables.
func aqtimeMade(t *testing.T, dsn string) {
	var stmts []string
	for _, tb := range profilers.Own() {
		stmts = append(stmts, "DROP TABLE {"+tb.Name+"}")
	}
	execAll(t, dsn, stmts...)
}

// TestUpgrade: a database written by the profdb before run identities,
// and one AQTime wrote, are read as before; ddl --upgrade prints what they
// lack and alters nothing; export --no-create writes what the tables hold;
// export adds the rest and records the identity; and the printed script,
// run in the dialect's own client, upgrades as export does.
func TestUpgrade(t *testing.T) {
	runners := map[string]func(*testing.T) scriptRunner{"sqlite": sqlite3Runner, "postgres": psqlRunner, "mysql": mariadbRunner, "sqlserver": sqlcmdRunner}
	for _, dialect := range dbtest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			cov := example(t, "light-coverage.json")
			inGitRepo(t)

			// A database of the profdb before identities.
			dsn := dbtest.Fresh(t, dialect)
			mustRun(t, "export", "--db", dsn, "-q", cov)
			oldProfdb(t, dsn)
			readsAsBefore(t, dsn)
			script := mustRun(t, "ddl", "--upgrade", "--db", dsn)
			if n, m := strings.Count(script, "\nALTER TABLE"), strings.Count(script, "CREATE TABLE"); n != len(profilers.IdentityColumns) || m != 2 {
				t.Errorf("ddl --upgrade: %d ALTER TABLE, %d CREATE TABLE, want %d and 2:\n%s", n, m, len(profilers.IdentityColumns), script)
			}
			if again := mustRun(t, "ddl", "--upgrade", "--db", dsn); again != script {
				t.Errorf("ddl --upgrade changed the database: the second script differs:\n%s", again)
			}
			mustRun(t, "export", "--db", dsn, "-q", "--no-create", "--label", "suite=unit", cov)
			if run, ok := runOf(t, dsn, 2); !ok || run != nil {
				t.Errorf("export --no-create: INST_ID 2 listed %v with identity %+v, want listed without", ok, run)
			}
			mustRun(t, "export", "--db", dsn, "-q", "--label", "suite=unit", cov)
			if run, ok := runOf(t, dsn, 3); !ok || run == nil || run.CI != "git" || run.Labels["suite"] != "unit" {
				t.Errorf("export after the upgrade: INST_ID 3 listed %v with identity %+v", ok, run)
			}
			if s := mustRun(t, "ddl", "--upgrade", "--db", dsn); !strings.Contains(s, "Nothing to do") || strings.Contains(s, "ALTER") {
				t.Errorf("ddl --upgrade after export's upgrade:\n%s", s)
			}

			// A database AQTime wrote, upgraded by a DBA with the script.
			dsn = dbtest.Fresh(t, dialect)
			mustRun(t, "export", "--db", dsn, "-q", cov)
			aqtimeMade(t, dsn)
			readsAsBefore(t, dsn)
			script = mustRun(t, "ddl", "--upgrade", "--db", dsn)
			if n, m := strings.Count(script, "\nALTER TABLE"), strings.Count(script, "CREATE TABLE"); n != 0 || m != len(profilers.Own()) {
				t.Errorf("ddl --upgrade of AQTime's database: %d ALTER TABLE, %d CREATE TABLE, want 0 and %d:\n%s", n, m, len(profilers.Own()), script)
			}
			run := runners[dialect](t)
			file := writeTemp(t, script)
			if out, err := run(dsn, file); err != nil {
				t.Fatalf("run the upgrade: %v\n%s", err, out)
			}
			if s := mustRun(t, "ddl", "--upgrade", "--db", dsn); !strings.Contains(s, "Nothing to do") {
				t.Errorf("ddl --upgrade after the script ran:\n%s", s)
			}
			mustRun(t, "export", "--db", dsn, "-q", "--no-create", "--label", "os=linux", cov)
			if run, ok := runOf(t, dsn, 2); !ok || run == nil || run.Labels["os"] != "linux" {
				t.Errorf("export --no-create after the script: INST_ID 2 listed %v with identity %+v", ok, run)
			}
		})
	}
}

// readsAsBefore: list, show and verify read result set 1.
func readsAsBefore(t *testing.T, dsn string) {
	t.Helper()
	if out := mustRun(t, "list", "--db", dsn); !strings.Contains(out, "1") {
		t.Errorf("list:\n%s", out)
	}
	mustRun(t, "show", "--db", dsn, "1")
	mustRun(t, "verify", "--db", dsn)
}

func writeTemp(t *testing.T, text string) string {
	t.Helper()
	p := t.TempDir() + "/upgrade.sql"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
