package postgres

import (
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/profilers"
)

func TestRegistered(t *testing.T) {
	dialecttest.CheckRegistered(t, Dialect{}, "postgres", "postgres", "postgres://h/db", "postgresql://h/db", "POSTGRES://h/db")
}

func TestQuote(t *testing.T) {
	d := Dialect{}
	dialecttest.CheckQuote(t, d, map[string]string{
		"inst_id":  `"inst_id"`,
		"INST_ID":  `"INST_ID"`, // Quote keeps the case; StoredName lowers it
		`a"b`:      `"a""b"`,
		`""`:       `""""""`,
		"x y`[z]'": "\"x y`[z]'\"",
	})
	if got := dialects.Qualify(d, "", "t"); got != `"t"` {
		t.Errorf("Qualify without schema = %s", got)
	}
	if got := dialects.Qualify(d, `My"Schema`, "t"); got != `"My""Schema"."t"` {
		t.Errorf("Qualify = %s", got)
	}
	if got := d.StoredName("LIGHT_COVERAGE_PROFILER_LINES"); got != "light_coverage_profiler_lines" {
		t.Errorf("StoredName = %s", got)
	}
	if got := d.StoredName("COL____COVERED"); got != "col____covered" {
		t.Errorf("StoredName = %s", got)
	}
}

func TestPlaceholderAndLimits(t *testing.T) {
	d := Dialect{}
	for n, want := range map[int]string{1: "$1", 2: "$2", 65535: "$65535"} {
		if got := d.Placeholder(n); got != want {
			t.Errorf("Placeholder(%d) = %s, want %s", n, got, want)
		}
	}
	if got := dialects.InsertSQL(d, dialects.Qualify(d, "s", "t"), []string{"a", "b"}, 2); got != `INSERT INTO "s"."t" ("a", "b") VALUES ($1, $2), ($3, $4)` {
		t.Errorf("InsertSQL = %s", got)
	}
	if l := d.Facts().Limits; l.MaxParams != 65535 || l.MaxRows != 0 {
		t.Errorf("Limits = %+v", l)
	}
}

func TestColumnType(t *testing.T) {
	d := Dialect{}
	dialecttest.CheckColumnTypes(t, d, map[ddl.Type]string{ddl.String: "TEXT", ddl.Integer: "BIGINT", ddl.Float: "DOUBLE PRECISION", ddl.Decimal: "NUMERIC(28,8)"})
}

func TestBind(t *testing.T) {
	d := Dialect{}
	if got := d.Bind(ddl.Decimal, ddl.Dec("18446744073709551615")); got != "18446744073709551615" {
		t.Errorf("Bind(Decimal) = %#v (%T), want a plain string", got, got)
	}
	dialecttest.CheckBindUnchanged(t, d, ddl.Integer, ddl.Float, ddl.String, ddl.Decimal)
}

func TestLockStatements(t *testing.T) {
	acquire, release := Dialect{}.Lock("")
	if len(acquire) != 1 || acquire[0] != "SELECT pg_advisory_xact_lock(8102661165154435073)" || len(release) != 0 {
		t.Errorf("Lock() = %q, %q", acquire, release)
	}
}

func TestCreateTableStatements(t *testing.T) {
	d := Dialect{}
	got := d.CreateTableIn("", profilers.Relations())
	want := []string{`CREATE TABLE IF NOT EXISTS "relations" (
  "col_child_table" TEXT,
  "col_parent_table" TEXT,
  "id" BIGINT NOT NULL,
  "inst_id" BIGINT NOT NULL,
  CONSTRAINT "pk_relations" PRIMARY KEY ("id")
)`, `CREATE INDEX IF NOT EXISTS "ix_relations_inst" ON "relations" ("inst_id")`}
	if strings.Join(got, ";\n") != strings.Join(want, ";\n") {
		t.Errorf("RELATIONS:\n%s\nwant\n%s", strings.Join(got, ";\n"), strings.Join(want, ";\n"))
	}
	child := ddl.Table{Name: "P_CHILD", Parent: "P_PARENT", Columns: []ddl.Column{
		{Name: "COL_X", Type: ddl.Decimal}, {Name: "ID", Type: ddl.Integer}, {Name: "INST_ID", Type: ddl.Integer, NotNull: true},
		{Name: "PARENT_ID", Type: ddl.Integer}, {Name: "REC_ID", Type: ddl.Integer},
	}}
	got = d.CreateTableIn("My Schema", child)
	want = []string{`CREATE TABLE IF NOT EXISTS "My Schema"."p_child" (
  "col_x" NUMERIC(28,8),
  "id" BIGINT,
  "inst_id" BIGINT NOT NULL,
  "parent_id" BIGINT,
  "rec_id" BIGINT
)`,
		`CREATE INDEX IF NOT EXISTS "ix_p_child_id" ON "My Schema"."p_child" ("inst_id", "id")`,
		`CREATE INDEX IF NOT EXISTS "ix_p_child_parent" ON "My Schema"."p_child" ("inst_id", "parent_id")`,
	}
	if strings.Join(got, ";\n") != strings.Join(want, ";\n") {
		t.Errorf("child:\n%s\nwant\n%s", strings.Join(got, ";\n"), strings.Join(want, ";\n"))
	}
}

func TestDriverDSN(t *testing.T) {
	d := Dialect{}
	cases := map[string]string{
		"postgres://postgres@127.0.0.1:5432/test?sslmode=disable":                "postgres://postgres@127.0.0.1:5432/test?sslmode=disable",
		"postgresql://u:p%40ss@db.example:6543/x?sslmode=require&search_path=s1": "postgresql://u:p%40ss@db.example:6543/x?sslmode=require&search_path=s1",
		"POSTGRES://h/db":                                  "postgres://h/db",
		"postgres:///db?host=/run/postgresql":              "postgres:///db?host=/run/postgresql",
		"postgres://[::1]:5432/db?application_name=profdb": "postgres://[::1]:5432/db?application_name=profdb",
	}
	for in, want := range cases {
		got, err := d.DriverDSN(in)
		if err != nil || got != want {
			t.Errorf("DriverDSN(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{
		"postgres://u:secret@h:notaport/db",
		"postgres://u:secret@h/db#frag",
		"postgres://u:secret@h/a/b",
		"postgres://u:secret@h/db?x=%zz",
		"postgres:u:secret@h/db",
		"mysql://u:secret@h/db",
		"postgres://u:secret@h\x7f/db",
	} {
		got, err := d.DriverDSN(bad)
		if err == nil {
			t.Errorf("DriverDSN(%q) = %q, want an error", bad, got)
			continue
		}
		if !strings.HasPrefix(err.Error(), "postgres: ") || strings.Contains(err.Error(), "secret") {
			t.Errorf("DriverDSN(%q) error %q: want a \"postgres: \" prefix and no password", bad, err)
		}
	}
}

// TestTempSchemas: pg_temp and the real names of a session's temporary
// schemas, pg_temp_N and pg_toast_temp_N, are refused for writing; any
// other name passes, upper-case ones too: profdb quotes the schema, and
// "PG_TEMP" is a schema one may create (TestTempSchemaIsRefused).
func TestTempSchemas(t *testing.T) {
	dialecttest.CheckTempSchemas(t, Dialect{}, []string{"pg_temp", "pg_temp_1", "pg_temp_12", "pg_toast_temp_3"},
		[]string{"", "public", "aqtime", "temp", "PG_TEMP", "Pg_Temp", "pg_temp_", "pg_temp_x", "pg_temp_1x", "pg_toast", "pg_toast_temp_", "pg_catalog", "xpg_temp"})
}
