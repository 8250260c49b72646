package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/profdb/profdb/exporter"
)

func sqliteDSN(t *testing.T) string {
	return "sqlite:" + filepath.Join(t.TempDir(), "p.db")
}

func TestExportPrintsOneLinePerResultSet(t *testing.T) {
	dsn := sqliteDSN(t)
	out := mustRun(t, "export", "--db", dsn, "../../examples/function-trace.json", "../../examples/resource.json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "INST_ID 1  function-trace  76 rows  \"") ||
		!strings.HasPrefix(lines[1], "INST_ID 2  resource  ") {
		t.Fatalf("output:\n%s", out)
	}
}

func TestExportJSONAndCaption(t *testing.T) {
	dsn := sqliteDSN(t)
	out := mustRun(t, "export", "--db", dsn, "--json", "--caption", "my run", "../../examples/light-coverage.json")
	var res []exporter.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("--json output is not a JSON array of results: %v\n%s", err, out)
	}
	if len(res) != 1 || res[0].InstID != 1 || res[0].Profiler != "light-coverage" || res[0].Caption != "my run" ||
		res[0].Rows == 0 || len(res[0].Tables) != 8 {
		t.Fatalf("results: %+v", res)
	}
	var sum int64
	for _, n := range res[0].Tables {
		sum += n
	}
	if sum != res[0].Rows {
		t.Fatalf("rows %d != sum of tables %d", res[0].Rows, sum)
	}
	// list shows the caption given on the command line.
	var list []exporter.Listing
	if err := json.Unmarshal([]byte(mustRun(t, "list", "--db", dsn, "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Caption != "my run" || list[0].Rows != res[0].Rows || list[0].Profiler != "light-coverage" {
		t.Fatalf("list: %+v", list)
	}
	// --caption names one result set: two are refused.
	two := filepath.Join(t.TempDir(), "two.json")
	os.WriteFile(two, []byte(`{"profiler":"resource","tables":{}} {"profiler":"resource","tables":{}}`), 0o644)
	_, stderr, code := runCLI(t, "export", "--db", dsn, "--caption", "x", two)
	if code == 0 || !strings.Contains(stderr, "--caption names a single result set") {
		t.Fatalf("two result sets with --caption: %d %s", code, stderr)
	}
}

func TestExportFromStandardInput(t *testing.T) {
	dsn := sqliteDSN(t)
	f, err := os.Open("../../examples/resource.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	old := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = old }()
	out := mustRun(t, "export", "--db", dsn, "-")
	if !strings.HasPrefix(out, "INST_ID 1  resource  ") {
		t.Fatalf("output: %s", out)
	}
}

func TestExportFormatOverride(t *testing.T) {
	dsn := sqliteDSN(t)
	// An LCOV tracefile read as JSON is an error naming the file.
	_, stderr, code := runCLI(t, "export", "--db", dsn, "--format", "json", "../../input/lcov/testdata/coverage.info")
	if code == 0 || !strings.Contains(stderr, "coverage.info:1:") {
		t.Fatalf("lcov as json: %d %s", code, stderr)
	}
	out := mustRun(t, "export", "--db", dsn, "--format", "lcov", "../../input/lcov/testdata/coverage.info")
	if !strings.HasPrefix(out, "INST_ID 1  light-coverage  ") {
		t.Fatalf("output: %s", out)
	}
	_, stderr, code = runCLI(t, "export", "--db", dsn, "--format", "xml", "x")
	if code == 0 || !strings.Contains(stderr, "gocover, json, lcov, profilerj") {
		t.Fatalf("unknown format: %d %s", code, stderr)
	}
}

func TestVerifyAndDelete(t *testing.T) {
	dsn := sqliteDSN(t)
	mustRun(t, "export", "--db", dsn, "../../examples/function-trace.json", "../../examples/reference-count.json")
	if out := mustRun(t, "verify", "--db", dsn); strings.TrimSpace(out) != "ok" {
		t.Fatalf("verify: %s", out)
	}
	// Break a parent link by hand: verify finds it and fails.
	db, err := exporter.Open(t.Context(), dsn, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().Exec(`UPDATE FUNCTION_TRACE_PROFILER_CALL_TRACE SET PARENT_ID = 99 WHERE INST_ID = 1 AND ID = 3`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	out, stderr, code := runCLI(t, "verify", "--db", dsn)
	if code == 0 || !strings.Contains(out, "INST_ID 1: FUNCTION_TRACE_PROFILER_CALL_TRACE: 1 rows whose PARENT_ID names no row of FUNCTION_TRACE_PROFILER_THREADS") ||
		!strings.Contains(stderr, "1 finding") {
		t.Fatalf("verify after damage: %d\n%s\n%s", code, out, stderr)
	}
	if out := mustRun(t, "verify", "--db", dsn, "--inst", "2"); strings.TrimSpace(out) != "ok" {
		t.Fatalf("verify --inst 2: %s", out)
	}
	out = mustRun(t, "delete", "--db", dsn, "--inst", "1")
	if !strings.HasPrefix(out, "deleted INST_ID 1 (") {
		t.Fatalf("delete: %s", out)
	}
	if out := mustRun(t, "verify", "--db", dsn); strings.TrimSpace(out) != "ok" {
		t.Fatalf("verify after delete: %s", out)
	}
	list := mustRun(t, "list", "--db", dsn)
	if strings.Contains(list, "function-trace") || !strings.Contains(list, "reference-count") {
		t.Fatalf("list after delete:\n%s", list)
	}
	if _, stderr, code := runCLI(t, "delete", "--db", dsn, "--inst", "1"); code == 0 || !strings.Contains(stderr, "no result set 1") {
		t.Fatalf("deleting twice: %d %s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "delete", "--db", dsn); code == 0 || !strings.Contains(stderr, "--inst is required") {
		t.Fatalf("delete without --inst: %d %s", code, stderr)
	}
}
