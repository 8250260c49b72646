package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/profdb/profdb/internal/dbtest"
)

// TestWriteIntoTempSchemaRefused: a schema that lasts only as long as the
// connection (SQLite's temp, in any case; PostgreSQL's pg_temp) is refused
// by every command that writes into a database or a script for one: exit
// 2, the schema named and why, nothing printed on standard output, and the
// database exactly as it was (a missing SQLite file not created).
func TestWriteIntoTempSchemaRefused(t *testing.T) {
	const example = "../../examples/function-trace.json"
	const sqliteWhy = `schema "%s" is SQLite's temporary database, which each connection has of its own and deletes when it closes: nothing written there would be kept; leave the schema out to write into the database file itself (main)`
	refused := func(t *testing.T, want string, args ...string) {
		t.Helper()
		out, errOut, code := runCLI(t, args...)
		if code != 2 || out != "" || !strings.Contains(errOut, want) {
			t.Errorf("profdb %s: exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout, %q",
				strings.Join(args, " "), code, out, errOut, want)
		}
	}

	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		missing := filepath.Join(dir, "new.db")
		refused(t, fmt.Sprintf(sqliteWhy, "temp"), "export", "--db", "sqlite:"+missing, "--schema", "temp", example)
		if _, err := os.Lstat(missing); !os.IsNotExist(err) {
			t.Errorf("export --schema temp left %s: %v", missing, err)
		}

		path := filepath.Join(dir, "p.db")
		dsn := "sqlite:" + path
		mustRun(t, "export", "--db", dsn, example, example)
		before := mustRead(t, path)
		for _, args := range [][]string{
			{"export", "--db", dsn, "--schema", "TEMP", example},
			{"export", "--db", dsn, "--schema", "Temp", "--no-create", example},
			{"merge", "--db", dsn, "--schema", "temp", "1", "2"},
			{"delete", "--db", dsn, "--schema", "temp", "--inst", "1"},
			{"copy", "--from", dsn, "--to", dsn, "--to-schema", "temp", "--inst", "1"},
			{"export", "--sql-out", "-", "--dialect", "sqlite", "--schema", "temp", example},
			{"script", "--dialect", "sqlite", "--schema", "temp", example},
			{"ddl", "--dialect", "sqlite", "--schema", "temp"},
			{"ddl", "--upgrade", "--db", dsn, "--schema", "temp"},
		} {
			schema := args[slices.IndexFunc(args, func(a string) bool { return strings.EqualFold(a, "temp") })]
			refused(t, fmt.Sprintf(sqliteWhy, schema), args...)
		}
		if after := mustRead(t, path); !bytes.Equal(before, after) {
			t.Error("the database file changed")
		}
		var list []struct {
			InstID int64 `json:"inst_id"`
		}
		if err := json.Unmarshal([]byte(mustRun(t, "list", "--db", dsn, "--json")), &list); err != nil || len(list) != 2 || list[1].InstID != 2 {
			t.Errorf("list after the refusals: %+v, %v; want INST_IDs 1 and 2", list, err)
		}
	})

	t.Run("postgres", func(t *testing.T) {
		dsn := dbtest.Fresh(t, "postgres")
		const why = `schema "%s" is PostgreSQL's temporary schema of a session, which PostgreSQL drops with its tables when the session ends: nothing written there would be kept`
		for _, schema := range []string{"pg_temp", "pg_temp_1", "pg_toast_temp_1"} {
			refused(t, fmt.Sprintf(why, schema), "export", "--db", dsn, "--schema", schema, example)
		}
		refused(t, fmt.Sprintf(why, "pg_temp"), "export", "--sql-out", "-", "--dialect", "postgres", "--schema", "pg_temp", example)
		var tables int
		if err := dbtest.Open(t, dsn).QueryRow("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema()").Scan(&tables); err != nil || tables != 0 {
			t.Errorf("the schema holds %d tables (%v), want none", tables, err)
		}
	})
}
