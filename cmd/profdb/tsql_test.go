package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/resultsettest"
	"github.com/profdb/profdb/store"
)

// goLine is a batch separator line as sqlcmd reads it: GO alone on its
// line, any case, blanks around it.
var goLine = regexp.MustCompile(`(?im)^[ \t]*GO[ \t]*\r?$`)

// tsqlBatches splits a T-SQL script into batches on its GO lines, as
// sqlcmd does before sending them, leaving out empty ones.
func tsqlBatches(script string) []string {
	var out []string
	for _, b := range goLine.Split(script, -1) {
		if strings.TrimSpace(b) != "" {
			out = append(out, b)
		}
	}
	return out
}

// runTSQLScript runs a T-SQL script the way "sqlcmd -b -x -i FILE" does:
// batch after batch on one connection, each sent as a SQL batch, stopping at
// the first error. There is no sqlcmd on the test machines; what it sends
// is no more than this (the script uses no sqlcmd commands, and -x turns
// off its variables).
func runTSQLScript(dsn, script string) (string, error) {
	db, err := sql.Open("sqlserver", dsn)
	if err != nil {
		return "", err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	conn, err := db.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	for i, b := range tsqlBatches(script) {
		if _, err := conn.ExecContext(ctx, b); err != nil {
			first, _, _ := strings.Cut(strings.TrimSpace(b), "\n")
			return fmt.Sprintf("batch %d (%s): %v", i+1, first, err), fmt.Errorf("batch %d: %w", i+1, err)
		}
	}
	return "", nil
}

// sqlcmdRunner is the scriptRunner of SQL Server (see runTSQLScript).
func sqlcmdRunner(*testing.T) scriptRunner {
	return func(dsn, script string) (string, error) {
		b, err := os.ReadFile(script)
		if err != nil {
			return "", err
		}
		return runTSQLScript(dsn, string(b))
	}
}

func TestTSQLBatches(t *testing.T) {
	got := tsqlBatches("SET NOCOUNT ON;\nGO\n\nSELECT 'GO';\n  go  \r\nSELECT 1 -- GO\nGO\n")
	want := []string{"SET NOCOUNT ON;\n", "\n\nSELECT 'GO';\n", "\nSELECT 1 -- GO\n"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("batches %q, want %q", got, want)
	}
}

// isBabelfish reports whether the SQL Server at dsn is Babelfish.
func isBabelfish(t *testing.T, dsn string) bool {
	t.Helper()
	bf, err := sqlserver.IsBabelfish(context.Background(), dbtest.Open(t, dsn))
	if err != nil {
		t.Fatal(err)
	}
	return bf
}

// TestSQLOutNULGuard: a SQL Server script holding text with NUL stores it
// exactly on SQL Server; on Babelfish, which cannot store NUL (its NCHAR(0)
// is NULL), the script stops before writing anything, saying why, instead
// of turning the text into NULL.
func TestSQLOutNULGuard(t *testing.T) {
	dsn := dbtest.Fresh(t, "sqlserver")
	dir := t.TempDir()
	seed := resultsettest.Full(t, "resource", "seed", "sqlserver", 2, false)
	mustRun(t, "export", "--db", dsn, "-q", writeInput(t, filepath.Join(dir, "seed.json"), seed))
	set := resultsettest.Full(t, "resource", "nul\x00inside", "sqlserver", 3, true)
	script := filepath.Join(dir, "out.sql")
	mustRun(t, "export", "--sql-out", script, "--dialect", "sqlserver", writeInput(t, filepath.Join(dir, "in.json"), set))
	b, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "IF NCHAR(0) IS NULL THROW") {
		t.Fatal("a script with NUL in its text has no NUL guard")
	}
	out, err := runTSQLScript(dsn, string(b))
	db, oerr := exporter.Open(context.Background(), dsn, store.Options{}, exporter.Options{})
	if oerr != nil {
		t.Fatal(oerr)
	}
	defer db.Close()
	list, lerr := db.DB().List(context.Background())
	if lerr != nil {
		t.Fatal(lerr)
	}
	if isBabelfish(t, dsn) {
		if err == nil || !strings.Contains(out, "U+0000 (NUL), which this server cannot store") {
			t.Fatalf("on Babelfish the script did not stop at its NUL guard: %v\n%s", err, out)
		}
		if len(list) != 1 {
			t.Fatalf("the stopped script wrote result sets: %+v", list)
		}
	} else {
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if len(list) != 2 {
			t.Fatalf("list: %+v", list)
		}
		resultsettest.CompareStored(t, db.DB(), 2, set)
	}
	resultsettest.CompareStored(t, db.DB(), 1, seed)
	if got := mustRun(t, "verify", "--db", dsn); strings.TrimSpace(got) != "ok" {
		t.Fatalf("verify: %s", got)
	}
}

// TestDDLScriptInSQLServer runs "profdb ddl --dialect sqlserver" twice on a
// SQL Server database, batch by batch as sqlcmd sends it: the second run
// does nothing, every table is there, and dialecttest.ConsumerQuery runs.
func TestDDLScriptInSQLServer(t *testing.T) {
	dsn := dbtest.Fresh(t, "sqlserver")
	script := mustRun(t, "ddl", "--dialect", "sqlserver")
	for round := range 2 {
		if out, err := runTSQLScript(dsn, script); err != nil {
			t.Fatalf("round %d: %v\n%s", round+1, err, out)
		}
	}
	db := dbtest.Open(t, dsn)
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_TYPE = 'BASE TABLE'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != wantTables(t) {
		t.Errorf("%d tables, want %d", n, wantTables(t))
	}
	var ix int
	if err := db.QueryRow("SELECT COUNT(*) FROM sys.indexes WHERE object_id = OBJECT_ID(N'dbo.FUNCTION_TRACE_PROFILER_CALL_TRACE') AND index_id > 0").Scan(&ix); err != nil {
		t.Fatal(err)
	}
	if ix != 2 {
		t.Errorf("CALL_TRACE has %d indexes after two runs, want 2", ix)
	}
	if _, err := db.Exec(dialecttest.ConsumerQuery); err != nil {
		t.Errorf("the consumer query: %v", err)
	}
}
