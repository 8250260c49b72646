package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
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
	var res []resultset.Result
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
	var list []store.Listing
	if err := json.Unmarshal([]byte(mustRun(t, "list", "--db", dsn, "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Caption != "my run" || list[0].Rows != res[0].Rows || list[0].Profiler != "light-coverage" {
		t.Fatalf("list: %+v", list)
	}
	// --caption gives every result set of the input, and of every file,
	// the caption: all are exported.
	two := filepath.Join(t.TempDir(), "two.json")
	if err := os.WriteFile(two, []byte(`{"profiler":"resource","caption":"a","tables":{}} {"profiler":"resource","caption":"b","tables":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out = mustRun(t, "export", "--db", dsn, "--caption", "x", two, "../../examples/function-trace.json")
	if strings.Count(out, `"x"`) != 3 {
		t.Fatalf("two files, three result sets with --caption x:\n%s", out)
	}
	list = nil
	if err := json.Unmarshal([]byte(mustRun(t, "list", "--db", dsn, "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 4 || list[1].Caption != "x" || list[2].Caption != "x" || list[3].Caption != "x" || list[3].Profiler != "function-trace" {
		t.Fatalf("list after --caption x on three result sets: %+v", list)
	}
	if !strings.Contains(mustRun(t, "export", "--help"), "caption of every result set") {
		t.Error("export --help does not say --caption applies to every result set")
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
	if code == 0 || !strings.Contains(stderr, "cobertura, gocover, jacoco, json, lcov, pprof, profilerj") {
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
	db, err := exporter.Open(t.Context(), dsn, store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.DB().SQL().Exec(`UPDATE FUNCTION_TRACE_PROFILER_CALL_TRACE SET PARENT_ID = 99 WHERE INST_ID = 1 AND ID = 3`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	out, stderr, code := runCLI(t, "verify", "--db", dsn)
	if code == 0 || !strings.Contains(out, "INST_ID 1: FUNCTION_TRACE_PROFILER_CALL_TRACE: 1 row whose PARENT_ID names no row of FUNCTION_TRACE_PROFILER_THREADS") ||
		!strings.Contains(stderr, "1 finding") {
		t.Fatalf("verify after damage: %d\n%s\n%s", code, out, stderr)
	}
	if out := mustRun(t, "verify", "--db", dsn, "--inst", "2"); strings.TrimSpace(out) != "ok" {
		t.Fatalf("verify --inst 2: %s", out)
	}
	// delete counts the rows list counts.
	var listed []store.Listing
	if err := json.Unmarshal([]byte(mustRun(t, "list", "--db", dsn, "--json")), &listed); err != nil || len(listed) != 2 {
		t.Fatalf("list --json: %v %v", listed, err)
	}
	out = mustRun(t, "delete", "--db", dsn, "--inst", "1")
	if want := fmt.Sprintf("deleted INST_ID 1 (%d rows)\n", listed[0].Rows); out != want {
		t.Fatalf("delete: %q, want %q (the rows list counts)", out, want)
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
	if _, stderr, code := runCLI(t, "delete", "--db", dsn); code == 0 || !strings.Contains(stderr, "--inst, --older-than or --keep-last is required") {
		t.Fatalf("delete without --inst: %d %s", code, stderr)
	}
}

// TestRetriesFlag: export and copy take --retries, documented with its
// default, and refuse a negative count.
func TestRetriesFlag(t *testing.T) {
	for _, cmd := range []string{"export", "copy"} {
		help := mustRun(t, cmd, "--help")
		if !strings.Contains(help, "--retries") || !strings.Contains(help, fmt.Sprintf("(default %d)", exporter.DefaultRetries)) {
			t.Errorf("%s --help does not document --retries and its default:\n%s", cmd, help)
		}
	}
	db := sqliteDSN(t)
	for _, args := range [][]string{
		{"export", "--db", db, "--retries", "-1", "../../examples/resource.json"},
		{"copy", "--from", db, "--to", db, "--retries", "-1"},
	} {
		_, errOut, code := runCLI(t, args...)
		if code == 0 || !strings.Contains(errOut, "--retries: want 0 or more") {
			t.Errorf("profdb %s --retries -1: exit %d, %q", args[0], code, errOut)
		}
	}
	out := mustRun(t, "export", "--db", db, "--retries", "0", "../../examples/resource.json")
	if !strings.Contains(out, "INST_ID 1 ") {
		t.Errorf("export --retries 0: %q", out)
	}
}

// TestVerifyFindsDuplicateIDs: two rows of a table sharing an ID, made by
// hand with SQL, are a finding that names the table and the ID.
func TestVerifyFindsDuplicateIDs(t *testing.T) {
	dsn := sqliteDSN(t)
	mustRun(t, "export", "--db", dsn, "../../examples/function-trace.json")
	db, err := exporter.Open(t.Context(), dsn, store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.DB().SQL().Exec(`UPDATE FUNCTION_TRACE_PROFILER_METAPARAMETERS SET ID = 0 WHERE INST_ID = 1 AND ID = 1`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	out, stderr, code := runCLI(t, "verify", "--db", dsn)
	// Findings are verify's negative answer: exit 1 (2 is for a verify that
	// could not run).
	if code != 1 || strings.TrimSpace(out) != "INST_ID 1: FUNCTION_TRACE_PROFILER_METAPARAMETERS: 1 ID held by more than one row: ID 0" ||
		!strings.Contains(stderr, "1 finding") {
		t.Fatalf("verify after damage: %d\n%s\n%s", code, out, stderr)
	}
}

// TestEmptyInputIsAnError checks that an input holding no result set is
// an error that says so, writing nothing, unless --allow-empty, which
// still says so on standard error. A coverage report with no coverable
// line (Cobertura, LCOV, JaCoCo) holds none; the reader's note on its
// totals comes first.
func TestEmptyInputIsAnError(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct{ content, note string }{
		"empty.json":    {"[]\n", ""},
		"c.out":         {"mode: set\n", ""}, // go test -coverprofile of a package without tests
		"cobertura.xml": {`<?xml version="1.0" ?>` + "\n<coverage/>\n", ": lines: no lines"},
		"no-sf.info":    {"TN:\n", ": lines......: no data found, functions..: no data found"},
		"no-da.info":    {"TN:\nSF:a.c\nFN:1,f\nFNDA:1,f\nend_of_record\n", ": lines......: no data found, functions..: 100.0% (1 of 1 functions)"},
		"jacoco.xml": {`<!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd">` + "\n" + `<report name="x"><sessioninfo id="s" start="1" dump="2"/></report>`,
			": lines: no lines, methods: no methods"},
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		note := ""
		if c.note != "" {
			note = "profdb: " + path + c.note + "\n"
		}
		db := filepath.Join(dir, "profdb.db")
		stdout, stderr, code := runCLI(t, "export", "--db", "sqlite:"+db, path)
		want := note + "profdb: export: " + path + ": holds no result set, nothing written (--allow-empty accepts that)\n"
		if code != exitCannotRun || stdout != "" || stderr != want {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2, nothing, %q", name, code, stdout, stderr, want)
		}
		stdout, stderr, code = runCLI(t, "export", "--allow-empty", "--db", "sqlite:"+db, path)
		if want := note + "profdb: " + path + ": holds no result set\n"; code != 0 || stdout != "" || stderr != want {
			t.Errorf("%s --allow-empty: exit %d, stdout %q, stderr %q; want 0, nothing, %q", name, code, stdout, stderr, want)
		}
		// Nothing written: not even the new database file is left.
		if _, err := os.Lstat(db); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the database file is there (%v)", name, err)
		}
	}
}

// TestProfilerJWithInternalSubsetIsDetected: a ProfilerJ snapshot whose
// DOCTYPE has an internal subset (entity declarations, '>' inside) is
// recognised without --format and exported.
func TestProfilerJWithInternalSubsetIsDetected(t *testing.T) {
	b, err := os.ReadFile("../../examples/profilerj/coverage-only.xml")
	if err != nil {
		t.Fatal(err)
	}
	decl, rest, ok := strings.Cut(string(b), "?>")
	if !ok {
		t.Fatal("the example has no XML declaration")
	}
	doc := decl + "?>\n<!DOCTYPE doc [\n<!ENTITY a \"x\">\n<!ENTITY b \"&a;&a;&a;\">\n]>" + rest
	path := filepath.Join(t.TempDir(), "subset.xml")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(mustRun(t, "export", "--db", sqliteDSN(t), path))
	want := strings.Fields(mustRun(t, "export", "--db", sqliteDSN(t), "../../examples/profilerj/coverage-only.xml"))
	if len(got) < 5 || len(want) < 5 || !reflect.DeepEqual(got[:5], want[:5]) {
		t.Errorf("with the internal subset export printed %q, without it %q", got, want)
	}
}
