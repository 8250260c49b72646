package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/store"
)

// TestBadInputLeavesDatabaseUnchanged feeds profdb export one bad file
// after another and checks, on each local database, that each gets its own
// clear error naming the place, and that no table's row count changes.
func TestBadInputLeavesDatabaseUnchanged(t *testing.T) {
	const head = `{"profiler":"function-trace","caption":"bad","tables":{"FUNCTION_TRACE_PROFILER_THREADS":[{"ID":0,"PARENT_ID":-1}],`
	long := strings.Repeat("x", 300)
	cases := []struct {
		name, json string
		want       []string // all must appear in stderr
		narrowOnly bool     // needs the narrow ROUTINES table a DBA made
	}{
		{"malformed JSON", head + `"FUNCTION_TRACE_PROFILER_CALL_TRACE":[{"ID":1,,}]}}`, []string{"bad.json:1:", "want"}, false},
		{"truncated file", head + `"FUNCTION_TRACE_PROFILER_CALL_TRACE":[{"ID":1},{"ID":2`, []string{"bad.json:1:", "unexpected end"}, false},
		{"unknown profiler", `{"profiler":"allocation","tables":{}}`, []string{"bad.json:1:", "allocation"}, false},
		{"unknown table", head + `"FUNCTION_TRACE_PROFILER_NOPE":[{"ID":1}]}}`, []string{"bad.json:1:", "FUNCTION_TRACE_PROFILER_NOPE"}, false},
		{"unknown column", head + `"FUNCTION_TRACE_PROFILER_CALL_TRACE":[{"ID":1,"COL_NOPE":2}]}}`, []string{"bad.json:1:", "COL_NOPE"}, false},
		{"INST_ID given", head + `"FUNCTION_TRACE_PROFILER_CALL_TRACE":[{"ID":1,"INST_ID":2}]}}`, []string{"bad.json:1:", "INST_ID"}, false},
		{"text in an integer column", head + "\n" + `"FUNCTION_TRACE_PROFILER_CALL_TRACE":[{"ID":1},` + "\n" + `{"ID":2,"COL__S":"fast"}]}}`,
			[]string{"bad.json:3", "table FUNCTION_TRACE_PROFILER_CALL_TRACE, column COL__S, row 2", "want an integer"}, false},
		{"integer out of range", head + `"FUNCTION_TRACE_PROFILER_CALL_TRACE":[{"ID":1,"COL__S":9223372036854775808}]}}`,
			[]string{"bad.json:1", "column COL__S, row 1", "out of range"}, false},
		{"decimal with 9 places", head + `"FUNCTION_TRACE_PROFILER_ROUTINES":[{"ID":1,"COL_ADDRESS":"0.123456789"}]}}`,
			[]string{"bad.json:1", "column COL_ADDRESS, row 1", "more than 8 decimal places"}, false},
		{"non-finite float", `{"profiler":"light-coverage","tables":{"LIGHT_COVERAGE_PROFILER_MODULES_DATA":[{"ID":1,"COL____COVERED":1e999}]}}`,
			[]string{"bad.json:1", "COL____COVERED", "out of range"}, false},
		{"overlong string for a narrow column", head + `"FUNCTION_TRACE_PROFILER_ROUTINES":[{"ID":1,"COL_CLASS_NAME":"ok"},{"ID":2,"COL_CLASS_NAME":"` + long + `"}]}}`,
			[]string{"bad.json:1", "table FUNCTION_TRACE_PROFILER_ROUTINES, column COL_CLASS_NAME, row 2", "300 characters does not fit"}, true},
		// What verify finds, export refuses before it commits (the row is
		// named by its ID: the check runs in the database, after the load).
		{"PARENT_ID naming no parent row", head + `"FUNCTION_TRACE_PROFILER_CALL_TRACE":[{"ID":1,"PARENT_ID":0},{"ID":2,"PARENT_ID":99}]}}`,
			[]string{"bad.json:1", "refused, nothing written", "table FUNCTION_TRACE_PROFILER_CALL_TRACE: 1 row whose PARENT_ID names no row of FUNCTION_TRACE_PROFILER_THREADS: ID 2"}, false},
		{"duplicate ID", head + `"FUNCTION_TRACE_PROFILER_CALL_TRACE":[{"ID":1,"PARENT_ID":0},{"ID":2,"PARENT_ID":0},{"ID":1,"PARENT_ID":0}]}}`,
			[]string{"bad.json:1", "refused, nothing written", "table FUNCTION_TRACE_PROFILER_CALL_TRACE: 1 ID held by more than one row: ID 1"}, false},
		{"duplicate ID in a parent table", `{"profiler":"function-trace","caption":"bad","tables":{"FUNCTION_TRACE_PROFILER_THREADS":[{"ID":0,"PARENT_ID":-1},{"ID":0,"PARENT_ID":-1}]}}`,
			[]string{"bad.json:1", "table FUNCTION_TRACE_PROFILER_THREADS: 1 ID held by more than one row: ID 0"}, false},
		{"top-level PARENT_ID not -1", `{"profiler":"function-trace","caption":"bad","tables":{"FUNCTION_TRACE_PROFILER_THREADS":[{"ID":0,"PARENT_ID":-1},{"ID":1,"PARENT_ID":0}]}}`,
			[]string{"bad.json:1", "table FUNCTION_TRACE_PROFILER_THREADS: 1 row whose PARENT_ID is not -1 (the table is top-level): ID 1"}, false},
		{"second result set bad, first kept", `{"profiler":"function-trace","caption":"good","tables":{}}` + "\n" + head + `"FUNCTION_TRACE_PROFILER_CALL_TRACE":[{"ID":"x"}]}}`,
			[]string{"bad.json:2", "column ID, row 1"}, false},
	}
	// SQL Server (Babelfish in CI) answers catalog queries slowly: it
	// runs only the checks that export shares with verify.
	onSQLServer := map[string]bool{"PARENT_ID naming no parent row": true, "duplicate ID": true}
	for _, target := range []struct{ dialect, bulk string }{
		{"sqlite", "auto"}, {"sqlite", "off"}, {"postgres", "auto"}, {"postgres", "off"}, {"mysql", "auto"}, {"mysql", "off"},
		{"sqlserver", "auto"}, {"sqlserver", "off"},
	} {
		dialect := target.dialect
		t.Run(dialect+"/bulk="+target.bulk, func(t *testing.T) {
			dsn := dbtest.Fresh(t, dialect)
			mustRun(t, "export", "--db", dsn, "../../examples/function-trace.json")
			narrow := dialect == "postgres" || dialect == "mysql" // SQLite does not enforce VARCHAR(n)
			if narrow {
				makeNarrowRoutines(t, dsn)
			}
			dir := t.TempDir()
			for _, c := range cases {
				if c.narrowOnly && !narrow || dialect == "sqlserver" && !onSQLServer[c.name] {
					continue
				}
				t.Run(c.name, func(t *testing.T) {
					before := tableCounts(t, dsn)
					path := filepath.Join(dir, "bad.json")
					if err := os.WriteFile(path, []byte(c.json), 0o644); err != nil {
						t.Fatal(err)
					}
					stdout, stderr, code := runCLI(t, "export", "--db", dsn, "--bulk", target.bulk, path)
					if code == 0 {
						t.Fatalf("export succeeded; stdout %s", stdout)
					}
					for _, w := range c.want {
						if !strings.Contains(stderr, w) {
							t.Errorf("stderr %q does not contain %q", stderr, w)
						}
					}
					after := tableCounts(t, dsn)
					if c.name == "second result set bad, first kept" {
						// Each result set is its own transaction: the good
						// one before the bad one is committed, and reported.
						if !strings.Contains(stdout, `"good"`) {
							t.Errorf("the committed result set is not reported: %q", stdout)
						}
						before["INSTANCES"]++
						before["RELATIONS"] += 10
						before["PROFDB_RESULT_SETS"]++
					}
					if !reflect.DeepEqual(before, after) {
						t.Fatalf("row counts changed:\nbefore %v\nafter  %v", before, after)
					}
				})
			}
		})
	}
}

// makeNarrowRoutines replaces the function-trace ROUTINES table with one a
// DBA made by hand, with a VARCHAR(255) class name.
func makeNarrowRoutines(t *testing.T, dsn string) {
	t.Helper()
	ctx := context.Background()
	db, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d := db.DB().Dialect()
	q := func(s string) string { return d.Quote(d.StoredName(s)) }
	tbl := dialects.Qualify(d, "", d.StoredName(functiontrace.Routines))
	for _, s := range []string{
		"DROP TABLE " + tbl,
		fmt.Sprintf("CREATE TABLE %s (%s BIGINT NOT NULL, %s BIGINT, %s BIGINT, %s BIGINT, %s VARCHAR(255), %s DECIMAL(28,8))",
			tbl, q("INST_ID"), q("ID"), q("PARENT_ID"), q("REC_ID"), q("COL_CLASS_NAME"), q("COL_ADDRESS")),
	} {
		if _, err := db.DB().SQL().ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}
