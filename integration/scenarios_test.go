package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/resultsettest"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// goLine matches a SQL Server batch separator line.
var goLine = regexp.MustCompile(`(?mi)^[ \t]*GO[ \t]*\r?$`)

// statements splits a DBA script: SQL Server scripts into their GO
// batches, the others into statements ending with ";" at the end of a line.
// Comment-only pieces are dropped, as is the final ";".
func statements(dialect, script string) []string {
	var pieces []string
	if dialect == "sqlserver" {
		pieces = goLine.Split(script, -1)
	} else {
		var cur strings.Builder
		for _, line := range strings.SplitAfter(script, "\n") {
			cur.WriteString(line)
			if strings.HasSuffix(strings.TrimSpace(line), ";") {
				pieces = append(pieces, cur.String())
				cur.Reset()
			}
		}
		pieces = append(pieces, cur.String())
	}
	var out []string
	for _, p := range pieces {
		var code []string
		for _, l := range strings.Split(p, "\n") {
			if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "--") {
				code = append(code, l)
			}
		}
		if st := strings.TrimSuffix(strings.TrimSpace(strings.Join(code, "\n")), ";"); st != "" {
			out = append(out, st)
		}
	}
	return out
}

// runScript runs testdata/DIALECT/file on dsn statement by statement, each
// ${NAME} replaced by vars[NAME].
func runScript(t testing.TB, dsn, dialect, file string, vars map[string]string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", dialect, file))
	if err != nil {
		t.Fatal(err)
	}
	script := os.Expand(string(b), func(k string) string {
		v, ok := vars[k]
		if !ok {
			t.Fatalf("%s: no value for ${%s}", file, k)
		}
		return v
	})
	db := Open(t, dsn)
	for _, st := range statements(dialect, script) {
		if _, err := db.ExecContext(Ctx(t), st); err != nil {
			t.Fatalf("%s/%s: %v\n%s", dialect, file, err, st)
		}
	}
}

// tableNames lists the tables of schema ("" for the default), sorted.
func tableNames(t testing.TB, db *store.DB, schema string) []string {
	t.Helper()
	names, err := db.Dialect().Tables(Ctx(t), db.SQL(), schema)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	return names
}

// onlyOwnAdded checks that an export into a DBA's tables added profdb's
// own tables (which record the run) beside them and nothing else; when
// every export may have been refused, also that it added nothing (a
// database whose DDL is transactional rolls the tables back with the
// result set).
func onlyOwnAdded(t testing.TB, db *store.DB, before, after []string, refusedOnly bool) {
	t.Helper()
	if refusedOnly && reflect.DeepEqual(after, before) {
		return
	}
	want := append([]string(nil), before...)
	for _, own := range profilers.Own() {
		if name := db.Dialect().StoredName(own.Name); !slices.Contains(want, name) {
			want = append(want, name)
		}
	}
	sort.Strings(want)
	if !reflect.DeepEqual(after, want) {
		t.Errorf("tables before the export %v, after %v; want profdb's own added, nothing else", before, after)
	}
}

// lcTables are the names of INSTANCES, RELATIONS and the Light Coverage
// tables.
func lcTables() []string {
	def := profilers.MustLookup(lightcoverage.Name)
	names := []string{profilers.InstancesTable, profilers.RelationsTable}
	return append(names, def.TableNames()...)
}

// exactOrRefused exports f into tables a DBA made: either every value
// reads back exactly, or the export fails naming table, column and row and
// writes nothing. Silently changed values fail the test.
func exactOrRefused(t testing.TB, db *exporter.Exporter, f *Fixture) {
	t.Helper()
	before := Counts(t, db.DB(), "")
	res, err := resultset.Export(Ctx(t), db, f.ResultSet())
	if err != nil {
		if !regexp.MustCompile(`table \w+, column \w+, row \d+: `).MatchString(err.Error()) {
			t.Errorf("export refused without naming table, column and row: %v", err)
		}
		if after := Counts(t, db.DB(), ""); !reflect.DeepEqual(before, after) {
			t.Errorf("rows changed by a refused export: %v -> %v", before, after)
		}
		t.Logf("refused: %v", err)
		return
	}
	resultsettest.CompareStored(t, db.DB(), res.InstID, f)
}

func verifyClean(t testing.TB, db *store.DB) {
	t.Helper()
	if fs, err := db.Verify(Ctx(t), 0); err != nil || len(fs) != 0 {
		t.Fatalf("Verify: %v %v", fs, err)
	}
}

// TestExistingDatabase exports into databases prepared by DBA scripts
// (testdata/DIALECT/*.sql) on every target.
func TestExistingDatabase(t *testing.T) {
	for _, name := range TargetNames {
		t.Run(name, func(t *testing.T) {
			tg := Lookup(t, name)
			t.Run("unquoted-names", func(t *testing.T) { unquotedNames(t, tg) })
			t.Run("quoted-upper-case-names", func(t *testing.T) { quotedNames(t, tg) })
			t.Run("narrow-types", func(t *testing.T) { narrowTypes(t, tg) })
			t.Run("separate-schema", func(t *testing.T) { separateSchema(t, tg) })
			t.Run("restricted-login", func(t *testing.T) { restrictedLogin(t, tg) })
		})
	}
}

// unquotedNames: tables created with unquoted upper-case names (lower case
// on PostgreSQL) are found and used; only profdb's own tables are created
// beside them; the Light Coverage query reads the export.
func unquotedNames(t *testing.T, tg Target) {
	ns := tg.Fresh(t)
	runScript(t, ns.DSN, tg.Dialect, "unquoted.sql", nil)
	db := OpenExporter(t, ns.DSN, store.Options{}, exporter.Options{})
	before := tableNames(t, db.DB(), "")
	if tg.Dialect == "postgres" && !reflect.DeepEqual(before[0], "instances") {
		t.Fatalf("PostgreSQL should have folded the names to lower case: %v", before)
	}
	cov, want := CoverageSet("coverage", 3, 4)
	Export(t, db, cov)
	resultsettest.CompareStored(t, db.DB(), 1, cov)
	if got := RunCoverageQuery(t, ns.DSN); !reflect.DeepEqual(got, want) {
		t.Errorf("Light Coverage query:\n%v\nwant\n%v", got, want)
	}
	exactOrRefused(t, db, resultsettest.Full(t, lightcoverage.Name, "edge values", tg.Dialect, 4, false))
	onlyOwnAdded(t, db.DB(), before, tableNames(t, db.DB(), ""), false)
	verifyClean(t, db.DB())
}

// quotedNames: tables whose quoted names are upper case (which PostgreSQL
// keeps) are used as they are.
func quotedNames(t *testing.T, tg Target) {
	ns := tg.Fresh(t)
	runScript(t, ns.DSN, tg.Dialect, "quoted.sql", nil)
	db := OpenExporter(t, ns.DSN, store.Options{}, exporter.Options{})
	before := tableNames(t, db.DB(), "")
	want := lcTables()
	sort.Strings(want)
	if !reflect.DeepEqual(before, want) {
		t.Fatalf("tables %v, want %v", before, want)
	}
	exactOrRefused(t, db, resultsettest.Full(t, lightcoverage.Name, "edge values", tg.Dialect, 4, false))
	onlyOwnAdded(t, db.DB(), before, tableNames(t, db.DB(), ""), true)
	verifyClean(t, db.DB())
}

// narrowTypes: values that fit narrower columns go in and read back; a
// value that does not fails naming table, column and row, and nothing is
// written; an extra nullable column stays NULL.
func narrowTypes(t *testing.T, tg Target) {
	ns := tg.Fresh(t)
	runScript(t, ns.DSN, tg.Dialect, "narrow.sql", nil)
	db := OpenExporter(t, ns.DSN, store.Options{}, exporter.Options{})
	cov, want := CoverageSet("narrow", 3, 4)
	Export(t, db, cov)
	resultsettest.CompareStored(t, db.DB(), 1, cov)
	if got := RunCoverageQuery(t, ns.DSN); !reflect.DeepEqual(got, want) {
		t.Errorf("Light Coverage query:\n%v\nwant\n%v", got, want)
	}
	var notes int64
	if err := db.DB().SQL().QueryRow("SELECT COUNT(*) FROM LIGHT_COVERAGE_PROFILER_SOURCE_FILES_DATA WHERE DBA_NOTE IS NOT NULL").Scan(&notes); err != nil || notes != 0 {
		t.Errorf("DBA_NOTE filled in %d rows (%v)", notes, err)
	}

	before := Counts(t, db.DB(), "")
	for _, c := range []struct {
		table, col string
		value      any
		want       string
		sqlite     bool // SQLite enforces the column type too
	}{
		{lightcoverage.Lines, "COL_SOURCE_LINE", int64(2147483648), "2147483648 does not fit column type", false},
		{lightcoverage.SourceFilesData, "COL_FILE_NAME", strings.Repeat("ж", 256), "text of 256 characters does not fit column type", false},
		{lightcoverage.SourceFilesData, "COL____COVERED", 0.1, "0.1 cannot be held exactly by column type", false},
		{lightcoverage.SourceFilesData, "COL_HIT_COUNT", ddl.Dec("123456789.5"), "123456789.5 needs 9 integer digits", true},
	} {
		if tg.Dialect == "sqlite" && !c.sqlite {
			continue // SQLite does not enforce INT, VARCHAR(n) or FLOAT widths
		}
		bad, _ := CoverageSet("too wide", 3, 4)
		tb := bad.Table(c.table)
		tb.Set(len(tb.Rows)-1, c.col, c.value)
		prefix := fmt.Sprintf("table %s, column %s, row %d: ", c.table, c.col, len(tb.Rows))
		_, err := resultset.Export(Ctx(t), db, bad.ResultSet())
		if err == nil || !strings.Contains(err.Error(), prefix+c.want) {
			t.Errorf("%s: error = %v, want %q", c.col, err, prefix+c.want)
		}
		if after := Counts(t, db.DB(), ""); !reflect.DeepEqual(before, after) {
			t.Fatalf("%s: rows changed: %v -> %v", c.col, before, after)
		}
	}
	verifyClean(t, db.DB())
}

// separateSchema: INSTANCES and RELATIONS made by a DBA in a separate schema
// (a database on MySQL); exporter.Options.Schema and --schema write there
// and create the missing tables there, nothing in the default one.
func separateSchema(t *testing.T, tg Target) {
	if tg.Dialect == "sqlite" {
		t.Skip("SQLite has no schemas of its own: --schema names a database attached on the same connection, which a DSN cannot set up")
	}
	ns := tg.Fresh(t)
	schema := ns.Name + "_aq"
	vars := map[string]string{"SCHEMA": schema}
	runScript(t, ns.DSN, tg.Dialect, "schema.sql", vars)
	if tg.Dialect != "sqlserver" { // the schema goes with the test's database
		t.Cleanup(func() { runScript(t, tg.Server, tg.Dialect, "schema-drop.sql", vars) })
	}
	db := OpenExporter(t, ns.DSN, store.Options{Schema: schema}, exporter.Options{})
	cov, _ := CoverageSet("in a schema", 2, 3)
	Export(t, db, cov)
	resultsettest.CompareStored(t, db.DB(), 1, cov)

	ft := resultsettest.Full(t, functiontrace.Name, "cli --schema", tg.Dialect, 3, false)
	in := writeInput(t, "ft.json", ft)
	out := mustProfdb(t, "export", "--db", ns.DSN, "--schema", schema, "-q", in)
	if ids := instIDs(t, out); len(ids) != 1 || ids[0] != 2 {
		t.Fatalf("export --schema printed %q", out)
	}
	resultsettest.CompareStored(t, db.DB(), 2, ft)
	if out := mustProfdb(t, "list", "--db", ns.DSN, "--schema", schema); !strings.Contains(out, "function-trace") || !strings.Contains(out, "light-coverage") {
		t.Errorf("list --schema:\n%s", out)
	}
	if out := mustProfdb(t, "verify", "--db", ns.DSN, "--schema", schema); strings.TrimSpace(out) != "ok" {
		t.Errorf("verify --schema: %s", out)
	}
	if names := tableNames(t, db.DB(), ""); len(names) != 0 {
		t.Errorf("tables created outside the schema: %v", names)
	}
	d := db.DB().Dialect()
	var want []string
	for _, n := range lcTables() {
		want = append(want, d.StoredName(n))
	}
	def := profilers.MustLookup(functiontrace.Name)
	for _, n := range def.TableNames() {
		want = append(want, d.StoredName(n))
	}
	for _, own := range profilers.Own() { // the export adds them beside the DBA's
		want = append(want, d.StoredName(own.Name))
	}
	sort.Strings(want)
	if got := tableNames(t, db.DB(), schema); !reflect.DeepEqual(got, want) {
		t.Errorf("tables in the schema %v, want %v", got, want)
	}
}

// restrictedLogin: a login that may INSERT and SELECT but not CREATE
// exports with --no-create into tables made beforehand, and fails clearly,
// writing nothing, when a table is missing.
func restrictedLogin(t *testing.T, tg Target) {
	if tg.Dialect == "sqlite" {
		t.Skip("SQLite has no logins")
	}
	ns := tg.Fresh(t)
	runScript(t, ns.DSN, tg.Dialect, "unquoted.sql", nil)
	user := "profdb_ro_" + randomHex(4)
	pw := "Ro-" + randomHex(6) + "-pw1A"
	vars := map[string]string{"USER": user, "PASSWORD": pw, "NAMESPACE": ns.Name}
	runScript(t, ns.DSN, tg.Dialect, "restricted.sql", vars)
	t.Cleanup(func() { runScript(t, ns.DSN, tg.Dialect, "restricted-drop.sql", vars) })
	ro := WithLogin(ns.DSN, user, pw)

	cov, want := CoverageSet("restricted", 2, 3)
	out, errOut, code := profdb(t, "export", "--db", ro, "--no-create", "-q", writeInput(t, "cov.json", cov))
	noSecret(t, pw, out, errOut)
	if code != 0 || !reflect.DeepEqual(instIDs(t, out), []int64{1}) {
		t.Fatalf("export --no-create as %s: exit %d\n%s%s", user, code, out, errOut)
	}
	admin := OpenExporter(t, ns.DSN, store.Options{}, exporter.Options{})
	resultsettest.CompareStored(t, admin.DB(), 1, cov)
	if got := RunCoverageQuery(t, ro); !reflect.DeepEqual(got, want) {
		t.Errorf("Light Coverage query as %s:\n%v\nwant\n%v", user, got, want)
	}

	tablesBefore := tableNames(t, admin.DB(), "")
	ft := writeInput(t, "ft.json", resultsettest.Full(t, functiontrace.Name, "no tables", tg.Dialect, 3, false))
	out, errOut, code = profdb(t, "export", "--db", ro, "--no-create", "-q", ft)
	noSecret(t, pw, out, errOut)
	if code == 0 || !strings.Contains(errOut, "does not exist") || !strings.Contains(errOut, "--no-create") || !strings.Contains(errOut, "FUNCTION_TRACE_PROFILER_") {
		t.Errorf("export --no-create of a profiler without tables: exit %d\n%s", code, errOut)
	}
	// Without --no-create the login cannot create them either.
	out, errOut, code = profdb(t, "export", "--db", ro, "-q", ft)
	noSecret(t, pw, out, errOut)
	if code == 0 {
		t.Errorf("export creating tables as %s succeeded:\n%s", user, out)
	}
	t.Logf("without --no-create: %s", strings.TrimSpace(errOut))
	if after := tableNames(t, admin.DB(), ""); !reflect.DeepEqual(tablesBefore, after) {
		t.Errorf("tables changed: %v -> %v", tablesBefore, after)
	}
	list, err := admin.DB().List(Ctx(t))
	if err != nil || len(list) != 1 {
		t.Errorf("result sets after the failures: %+v %v", list, err)
	}
	verifyClean(t, admin.DB())
}
