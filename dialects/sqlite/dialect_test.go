package sqlite

import (
	"fmt"
	"math"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/profilers"
)

func TestRegistered(t *testing.T) {
	dialecttest.CheckRegistered(t, Dialect{}, "sqlite", "sqlite", "sqlite:x.db", "sqlite:///tmp/x.db", "SQLite://x.db")
	if _, ok := any(Dialect{}).(dialects.Locker); ok {
		t.Error("SQLite serializes writers with BEGIN IMMEDIATE and needs no Locker")
	}
}

func TestQuote(t *testing.T) {
	d := Dialect{}
	dialecttest.CheckQuote(t, d, map[string]string{
		"INST_ID":   `"INST_ID"`,
		`a"b`:       `"a""b"`,
		`"`:         `""""`,
		"x y`[z]'":  "\"x y`[z]'\"",
		"":          `""`,
		`COL____"_`: `"COL____""_"`,
	})
	if got := dialects.Qualify(d, "", "T"); got != `"T"` {
		t.Errorf("Qualify without schema = %s", got)
	}
	if got := dialects.Qualify(d, `a"ux`, "T"); got != `"a""ux"."T"` {
		t.Errorf("Qualify = %s", got)
	}
	if got := d.StoredName("LIGHT_COVERAGE_PROFILER_LINES"); got != "LIGHT_COVERAGE_PROFILER_LINES" {
		t.Errorf("StoredName changed the name: %s", got)
	}
}

func TestPlaceholderAndLimits(t *testing.T) {
	d := Dialect{}
	for n := 1; n <= 3; n++ {
		if got := d.Placeholder(n); got != "?" {
			t.Errorf("Placeholder(%d) = %s", n, got)
		}
	}
	if got := dialects.InsertSQL(d, dialects.Qualify(d, "", "T"), []string{"A", "B"}, 2); got != `INSERT INTO "T" ("A", "B") VALUES (?, ?), (?, ?)` {
		t.Errorf("InsertSQL = %s", got)
	}
	if l := d.Facts().Limits; l.MaxParams != 32766 || l.MaxRows != 0 {
		t.Errorf("Limits = %+v", l)
	}
}

func TestColumnType(t *testing.T) {
	d := Dialect{}
	want := map[ddl.Type]string{ddl.String: "TEXT", ddl.Integer: "INTEGER", ddl.Float: "REAL", ddl.Decimal: "ANY"}
	dialecttest.CheckColumnTypes(t, d, want)
	// The declared type maps back to the logical type.
	for typ, w := range want {
		if got := affinity(w); got != typ {
			t.Errorf("affinity(%s) = %s, want %s", w, got, typ)
		}
	}
}

func TestBind(t *testing.T) {
	d := Dialect{}
	cases := []struct {
		in   any
		want any
	}{
		{ddl.Dec("0"), int64(0)},
		{ddl.Dec("-123"), int64(-123)},
		{ddl.Dec("9223372036854775807"), int64(9223372036854775807)},
		{ddl.Dec("-9223372036854775808"), int64(-9223372036854775808)},
		{ddl.Dec("9223372036854775808"), "9223372036854775808"}, // 2^63 prints back as 9223372036854776000
		{ddl.Dec("18446744073709551615"), "18446744073709551615"},
		{ddl.Dec("18446744073709551616"), "18446744073709551616"},
		{ddl.Dec("100000000000000000000"), 1e20}, // prints back exactly
		{ddl.Dec("0.12345678"), 0.12345678},
		{ddl.Dec("-123.45"), -123.45},
		{ddl.Dec("0.1"), 0.1},
		{ddl.Dec("12345678901234567.5"), "12345678901234567.5"},
		{ddl.Dec("99999999999999999999.99999999"), "99999999999999999999.99999999"},
		{"1.5", 1.5},
		{nil, nil},
	}
	for _, c := range cases {
		if got := d.Bind(ddl.Decimal, c.in); got != c.want {
			t.Errorf("Bind(Decimal, %#v) = %#v (%T), want %#v (%T)", c.in, got, got, c.want, c.want)
		}
	}
	dialecttest.CheckBindUnchanged(t, d, ddl.Integer, ddl.Float, ddl.String)
}

func TestCreateTableStatements(t *testing.T) {
	d := Dialect{}
	got := d.CreateTableIn("", profilers.Instances())
	want := []string{`CREATE TABLE IF NOT EXISTS "INSTANCES" (
  "CAPTION" TEXT,
  "COUNTER_DESCRIPTION" TEXT,
  "COUNTER_FREQUENCY" ANY,
  "COUNTER_NAME" TEXT,
  "INST_ID" INTEGER NOT NULL PRIMARY KEY
) STRICT`}
	if strings.Join(got, ";\n") != strings.Join(want, ";\n") {
		t.Errorf("INSTANCES:\n%s\nwant\n%s", strings.Join(got, ";\n"), strings.Join(want, ";\n"))
	}
	child := ddl.Table{Name: "P_CHILD", Parent: "P_PARENT", Columns: []ddl.Column{
		{Name: "COL_X", Type: ddl.Float}, {Name: "ID", Type: ddl.Integer}, {Name: "INST_ID", Type: ddl.Integer, NotNull: true},
		{Name: "PARENT_ID", Type: ddl.Integer}, {Name: "REC_ID", Type: ddl.Integer},
	}}
	got = d.CreateTableIn("aux", child)
	want = []string{`CREATE TABLE IF NOT EXISTS "aux"."P_CHILD" (
  "COL_X" REAL,
  "ID" INTEGER,
  "INST_ID" INTEGER NOT NULL,
  "PARENT_ID" INTEGER,
  "REC_ID" INTEGER
) STRICT`,
		`CREATE INDEX IF NOT EXISTS "aux"."IX_P_CHILD_ID" ON "P_CHILD" ("INST_ID", "ID")`,
		`CREATE INDEX IF NOT EXISTS "aux"."IX_P_CHILD_PARENT" ON "P_CHILD" ("INST_ID", "PARENT_ID")`,
	}
	if strings.Join(got, ";\n") != strings.Join(want, ";\n") {
		t.Errorf("child:\n%s\nwant\n%s", strings.Join(got, ";\n"), strings.Join(want, ";\n"))
	}
	for _, s := range got {
		if strings.HasSuffix(strings.TrimSpace(s), ";") {
			t.Errorf("statement ends in a semicolon: %s", s)
		}
	}
}

func TestDriverDSN(t *testing.T) {
	d := Dialect{}
	const q = "?_pragma=busy_timeout%28600000%29&_pragma=cache_size%28-16384%29&_txlock=immediate&_dqs=0"
	cases := map[string]string{
		"sqlite:/tmp/x.db":           "file:///tmp/x.db" + q,
		"sqlite:x.db":                "file:x.db" + q,
		"sqlite:dir/x.db":            "file:dir/x.db" + q,
		"sqlite:///abs/path/x.db":    "file:///abs/path/x.db" + q,
		"sqlite://x.db":              "file:x.db" + q,
		"sqlite://rel/x.db":          "file:rel/x.db" + q,
		"sqlite:/tmp/a b#d%20.db":    "file:///tmp/a%20b%23d%2520.db" + q,
		"sqlite:x.db?mode=rwc":       "file:x.db" + q,
		"sqlite:x.db?mode=rw":        "file:x.db?mode=rw&" + q[1:],
		"sqlite:///x.db?mode=ro":     "file:///x.db?mode=ro&_pragma=busy_timeout%28600000%29&_dqs=0", // SQLite's own page cache, deferred BEGIN
		"sqlite:/tmp/ж.db":           "file:///tmp/%D0%B6.db" + q,
		"sqlite:////server/share.db": "file:////server/share.db" + q,
	}
	for in, want := range cases {
		got, err := d.DriverDSN(in)
		if err != nil || got != want {
			t.Errorf("DriverDSN(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"sqlite:", "sqlite://", "sqlite::memory:", "postgres://u:secret@h/db", "postgres:u:secret@h/db", "x.db",
		"sqlite:x.db?mode=memory", "sqlite:x.db?mode=xyz", "sqlite:x.db?cache=shared", "sqlite:x.db?mode=ro&mode=rw", "sqlite:?mode=ro",
		"sqlite:x.db?lock_timeout=-1s", "sqlite:x.db?lock_timeout=5", "sqlite:x.db?lock_timeout=soon", "sqlite:x.db?lock_timeout=1s&lock_timeout=2s",
		"sqlite:x.db?busy_timeout=5000", "sqlite:x.db?_busy_timeout=5000"} {
		got, err := d.DriverDSN(bad)
		if err == nil {
			t.Errorf("DriverDSN(%q) = %q, want an error", bad, got)
			continue
		}
		if !strings.HasPrefix(err.Error(), "sqlite: ") || strings.Contains(err.Error(), "secret") {
			t.Errorf("DriverDSN(%q) error %q: want an \"sqlite: \" prefix and no password", bad, err)
		}
	}
}

// TestLockTimeout: the lock timeout is SQLite's busy timeout on every
// connection, reading or writing: the DSN's lock_timeout (0: no limit, the
// most SQLite takes) unless the caller gives one, DefaultLockTimeout
// without either; DriverDSNWait returns the one it set.
func TestLockTimeout(t *testing.T) {
	d := Dialect{}
	cases := []struct {
		dsn      string
		wait     time.Duration
		millis   int64
		returned time.Duration
	}{
		{"sqlite:x.db", 0, 600000, dialects.DefaultLockTimeout},
		{"sqlite:x.db?lock_timeout=90s", 0, 90000, 90 * time.Second},
		{"sqlite:x.db?mode=ro&lock_timeout=1h", 0, 3600000, time.Hour},
		{"sqlite:x.db?lock_timeout=0", 0, math.MaxInt32, -1},
		{"sqlite:x.db?lock_timeout=90s", 2 * time.Second, 2000, 2 * time.Second},
		{"sqlite:x.db", -1, math.MaxInt32, -1},
		{"sqlite:x.db", time.Microsecond, 1, time.Microsecond},
		{"sqlite:x.db", 10000 * time.Hour, math.MaxInt32, 10000 * time.Hour},
	}
	for _, c := range cases {
		for _, a := range []dialects.Access{dialects.ReadWrite, dialects.NoCreate, dialects.ReadOnly} {
			got, wait, err := d.DriverDSNWait(c.dsn, a, c.wait)
			if err != nil {
				t.Fatalf("DriverDSNWait(%q, %d, %v): %v", c.dsn, a, c.wait, err)
			}
			_, query, _ := strings.Cut(got, "?")
			vals, err := url.ParseQuery(query)
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("busy_timeout(%d)", c.millis); vals["_pragma"][0] != want || wait != c.returned {
				t.Errorf("DriverDSNWait(%q, %d, %v) = %q, %v; want %s, %v", c.dsn, a, c.wait, got, wait, want, c.returned)
			}
		}
	}
}

// TestDriverDSNAccess: read-only and no-create connections open the file
// with SQLite's mode=ro and mode=rw, the stricter of the DSN's mode and the
// access winning; only read-only ones begin deferred.
func TestDriverDSNAccess(t *testing.T) {
	d := Dialect{}
	cases := []struct {
		dsn  string
		a    dialects.Access
		mode string // "" for none (rwc)
	}{
		{"sqlite:x.db", dialects.ReadWrite, ""},
		{"sqlite:x.db", dialects.NoCreate, "rw"},
		{"sqlite:x.db", dialects.ReadOnly, "ro"},
		{"sqlite:x.db?mode=ro", dialects.ReadWrite, "ro"},
		{"sqlite:x.db?mode=ro", dialects.NoCreate, "ro"},
		{"sqlite:x.db?mode=rw", dialects.ReadWrite, "rw"},
		{"sqlite:x.db?mode=rw", dialects.ReadOnly, "ro"},
		{"sqlite:x.db?mode=rwc", dialects.NoCreate, "rw"},
	}
	for _, c := range cases {
		got, err := d.DriverDSNAccess(c.dsn, c.a)
		if err != nil {
			t.Fatalf("DriverDSNAccess(%q, %d): %v", c.dsn, c.a, err)
		}
		path, query, _ := strings.Cut(got, "?")
		if path != "file:x.db" {
			t.Errorf("DriverDSNAccess(%q, %d) = %q: want the file x.db", c.dsn, c.a, got)
		}
		vals, err := url.ParseQuery(query)
		if err != nil {
			t.Fatal(err)
		}
		if vals.Get("mode") != c.mode || len(vals["mode"]) > 1 {
			t.Errorf("DriverDSNAccess(%q, %d) = %q: want mode %q", c.dsn, c.a, got, c.mode)
		}
		if immediate := vals.Get("_txlock") == "immediate"; immediate != (c.mode != "ro") {
			t.Errorf("DriverDSNAccess(%q, %d) = %q: _txlock=immediate is wanted exactly when writing", c.dsn, c.a, got)
		}
	}
	if p, err := d.File("sqlite:///tmp/a b.db?mode=ro"); err != nil || p != "/tmp/a b.db" {
		t.Errorf("File = %q, %v; want /tmp/a b.db", p, err)
	}
}

func TestAffinity(t *testing.T) {
	cases := map[string]ddl.Type{
		"INT": ddl.Integer, "tinyint": ddl.Integer, "BIGINT": ddl.Integer, "POINT": ddl.Integer, // "INT" anywhere wins
		"VARCHAR(255)": ddl.String, "NCHAR(3)": ddl.String, "CLOB": ddl.String, "text": ddl.String,
		"BLOB": 0, "": 0,
		"REAL": ddl.Float, "FLOAT": ddl.Float, "DOUBLE PRECISION": ddl.Float,
		"DECIMAL(10,2)": ddl.Decimal, "NUMERIC": ddl.Decimal, "ANY": ddl.Decimal, "BOOLEAN": ddl.Decimal,
	}
	for decl, want := range cases {
		if got := affinity(decl); got != want {
			t.Errorf("affinity(%q) = %s, want %s", decl, got, want)
		}
	}
}
