package sqlserver_test

import (
	"database/sql"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/microsoft/go-mssqldb/msdsn"
	"github.com/sqlc-dev/teesql/ast"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/dialects/sqlserver"
)

func TestRegistered(t *testing.T) {
	d, err := dialects.Lookup("sqlserver")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.(sqlserver.Dialect); !ok {
		t.Fatalf("Lookup(sqlserver) = %T", d)
	}
	for _, dsn := range []string{"sqlserver://sa:pw@localhost?database=x", "SQLSERVER://h"} {
		d, err := dialects.ForDSN(dsn)
		if err != nil || d.Name() != "sqlserver" {
			t.Errorf("ForDSN(%s) = %v, %v", dialects.Redact(dsn), d, err)
		}
	}
	if d.Facts().Driver != "sqlserver" {
		t.Errorf("DriverName = %q: the go-mssqldb driver with @p1 parameters is \"sqlserver\"", d.Facts().Driver)
	}
	if got := d.(ddl.BatchSeparator).BatchSeparator(); got != "GO" {
		t.Errorf("BatchSeparator = %q", got)
	}
}

func TestQuote(t *testing.T) {
	var d sqlserver.Dialect
	for in, want := range map[string]string{
		"INST_ID":   "[INST_ID]",
		"a]b":       "[a]]b]",
		"]]":        "[]]]]]",
		"[x":        "[[x]",
		"o'brien":   "[o'brien]",
		"COL____CO": "[COL____CO]",
	} {
		if got := d.Quote(in); got != want {
			t.Errorf("Quote(%q) = %q, want %q", in, got, want)
		}
		// teesql reads the quoted identifier back as the name, as SQL
		// Server does; Babelfish rejects a doubled ']' inside brackets.
		sc, err := teeParse("SELECT 1 AS " + d.Quote(in))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		walk(sc, func(n any) {
			if id, ok := n.(*ast.IdentifierOrValueExpression); ok && id.Identifier != nil {
				got = append(got, id.Identifier.Value)
			}
		})
		if len(got) != 1 || got[0] != in {
			t.Errorf("%s reads back as %q, want %q", d.Quote(in), got, in)
		}
	}
	if got := dialects.Qualify(d, "", "INSTANCES"); got != "[INSTANCES]" {
		t.Errorf("Qualify(\"\", INSTANCES) = %q", got)
	}
	if got := dialects.Qualify(d, "prof]db", "INSTANCES"); got != "[prof]]db].[INSTANCES]" {
		t.Errorf("Qualify = %q", got)
	}
	if got := d.StoredName("COL____COVERED"); got != "COL____COVERED" {
		t.Errorf("StoredName changes the documented name: %q", got)
	}
}

func TestColumnType(t *testing.T) {
	var d sqlserver.Dialect
	want := map[ddl.Type]string{
		ddl.String:  "NVARCHAR(MAX)",
		ddl.Integer: "BIGINT",
		ddl.Decimal: "DECIMAL(28,8)",
		ddl.Float:   "FLOAT",
	}
	for typ, w := range want {
		if got := d.ColumnType(typ); got != w {
			t.Errorf("ColumnType(%v) = %q, want %q", typ, got, w)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("ColumnType(0) does not panic")
		}
	}()
	d.ColumnType(0)
}

func TestPlaceholdersAndLimits(t *testing.T) {
	var d sqlserver.Dialect
	for n, want := range map[int]string{1: "@p1", 2: "@p2", 2098: "@p2098"} {
		if got := d.Placeholder(n); got != want {
			t.Errorf("Placeholder(%d) = %q, want %q", n, got, want)
		}
	}
	l := d.Facts().Limits
	if l.MaxParams != 2098 || l.MaxRows != 1000 {
		t.Errorf("Limits = %+v, want 2098 parameters, 1000 rows", l)
	}
	for cols, want := range map[int]int{1: 1000, 2: 1000, 3: 699, 12: 174, 37: 56} {
		if got := dialects.RowsPerInsert(l, cols); got != want {
			t.Errorf("RowsPerInsert(%d columns) = %d, want %d", cols, got, want)
		}
	}
	// The largest INSERT of a 12-column table stays within both limits.
	// INSERTs at both limits run on the real server in exporter's
	// TestSQLServerRealServer.
	cols := []string{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L"}
	rows := dialects.RowsPerInsert(l, len(cols))
	sql := dialects.InsertSQL(d, dialects.Qualify(d, "", "T"), cols, rows)
	if !strings.HasSuffix(sql, "@p2088)") || strings.Contains(sql, "@p2089") {
		t.Errorf("INSERT of %d rows ends %q", rows, sql[len(sql)-40:])
	}
}

func TestBind(t *testing.T) {
	var d sqlserver.Dialect
	for _, c := range []struct {
		typ  ddl.Type
		in   any
		want any
	}{
		// NULL is typed (Decimal as NVARCHAR, like its values): Babelfish
		// refuses go-mssqldb's untyped NULL (TDS type 0x1F).
		// Decimal: canonical text as a plain Go string (NVARCHAR), never a
		// number that would lose the scale.
		{ddl.Decimal, ddl.Dec("12345678901234567890.12345678"), "12345678901234567890.12345678"},
		{ddl.Decimal, ddl.Dec("-0.5"), "-0.5"},
		{ddl.Decimal, ddl.Dec("0"), "0"},
		{ddl.Decimal, int64(42), "42"},
		{ddl.Decimal, 0.25, "0.25"},
		{ddl.Decimal, nil, sql.NullString{}},
		// String: a Go string, which go-mssqldb sends as NVARCHAR.
		{ddl.String, "Grüße ☃ 'x'", "Grüße ☃ 'x'"},
		{ddl.String, "", ""},
		{ddl.String, int64(-7), "-7"},
		{ddl.String, ddl.Dec("1.5"), "1.5"},
		{ddl.String, nil, sql.NullString{}},
		// Integer and Float: int64 and float64 as they are.
		{ddl.Integer, int64(-9223372036854775808), int64(-9223372036854775808)},
		{ddl.Integer, 7, int64(7)},
		{ddl.Integer, nil, sql.NullInt64{}},
		{ddl.Float, 1.0 / 3, 1.0 / 3},
		{ddl.Float, float32(0.5), 0.5},
		{ddl.Float, nil, sql.NullFloat64{}},
	} {
		got := d.Bind(c.typ, c.in)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Bind(%v, %#v) = %#v (%T), want %#v (%T)", c.typ, c.in, got, got, c.want, c.want)
		}
	}
}

func TestLock(t *testing.T) {
	var d sqlserver.Dialect
	acquire, release := d.Lock("")
	if len(release) != 0 {
		t.Errorf("release = %q: the lock is owned by the transaction", release)
	}
	if len(acquire) != 1 {
		t.Fatalf("acquire = %q", acquire)
	}
	// The batch runs on the real server in TestRealServer, which checks
	// that it holds the lock.
	for _, want := range []string{
		"sp_getapplock @Resource = N'profdb.alloc', @LockMode = N'Exclusive', @LockOwner = N'Transaction', @LockTimeout = 600000",
		"IF @profdb_lock < 0 RAISERROR(",
		", 16, 1, @profdb_lock)",
	} {
		if !strings.Contains(acquire[0], want) {
			t.Errorf("acquire lacks %q:\n%s", want, acquire[0])
		}
	}
}

func TestDriverDSN(t *testing.T) {
	var d sqlserver.Dialect
	for _, c := range []struct {
		dsn                     string
		host, port, db, user    string
		password, app, instance string
	}{
		{"sqlserver://sa:p%40ss:w0rd@db.example:1433?database=prof", "db.example", "1433", "prof", "sa", "p@ss:w0rd", "profdb", ""},
		{"SQLServer://u:pw@host/SQLEXPRESS?database=x&app+name=mine", "host", "", "x", "u", "pw", "mine", "SQLEXPRESS"},
		{"sqlserver://host", "host", "", "", "", "", "profdb", ""},
	} {
		out, err := d.DriverDSN(c.dsn)
		if err != nil {
			t.Errorf("DriverDSN(%s): %v", dialects.Redact(c.dsn), err)
			continue
		}
		cfg, err := msdsn.Parse(out)
		if err != nil {
			t.Errorf("go-mssqldb rejects %s: %v", dialects.Redact(out), err)
			continue
		}
		port := ""
		if cfg.Port != 0 {
			port = strconv.FormatUint(cfg.Port, 10)
		}
		if cfg.Host != c.host || cfg.Instance != c.instance || port != c.port || cfg.Database != c.db ||
			cfg.User != c.user || cfg.Password != c.password || cfg.AppName != c.app {
			t.Errorf("DriverDSN(%s) = %s: host %q instance %q port %q db %q user %q app %q (password ok: %v)",
				dialects.Redact(c.dsn), dialects.Redact(out), cfg.Host, cfg.Instance, port, cfg.Database, cfg.User,
				cfg.AppName, cfg.Password == c.password)
		}
	}
}

func TestDriverDSNErrors(t *testing.T) {
	var d sqlserver.Dialect
	const secret = "Olympus"
	for _, c := range []struct{ dsn, want string }{
		{"postgres://u:" + secret + "@h/db", "scheme"},
		{"sqlserver:///db?password=" + secret, "no host"},
		{"sqlserver:u:" + secret, "no host"},
		{"sqlserver://u:" + secret + "@h:port/x", "percent-encoded"},
		{"sqlserver://u:" + secret + "%zz@h", "percent-encoded"},
		{"sqlserver://u:zz/" + secret + "@h", "percent-encoded"},
		{"sqlserver://h:port", "invalid port"},
		{"sqlserver://u:" + secret + "@h?log=abc", "invalid log"},
	} {
		_, err := d.DriverDSN(c.dsn)
		if err == nil {
			t.Errorf("DriverDSN(%s) accepted", dialects.Redact(c.dsn))
			continue
		}
		msg := err.Error()
		t.Log(msg)
		if strings.Contains(msg, secret) || strings.Contains(msg, "zz") {
			t.Errorf("error shows the password: %s", msg)
		}
		if !strings.HasPrefix(msg, "sqlserver: parse DSN ") || !strings.Contains(msg, c.want) {
			t.Errorf("DriverDSN error %q, want prefix \"sqlserver: parse DSN\" and %q", msg, c.want)
		}
	}
	// go-mssqldb quotes the rejected value of another setting; that it is
	// the password's text is no reason to mask it: where "xxxxx" stood
	// would tell the password.
	for _, dsn := range []string{
		"sqlserver://u:Mars%2F" + secret + "@h?timezone=Mars/" + secret,
		"sqlserver://u@h?password=Mars/" + secret + "&timezone=Mars/" + secret,
	} {
		_, err := d.DriverDSN(dsn)
		if err == nil || !strings.Contains(err.Error(), "xxxxx") || !strings.Contains(err.Error(), "invalid timezone 'Mars/"+secret+"'") {
			t.Errorf("DriverDSN(%s) = %v, want the DSN's password masked and the time zone as it is", dialects.Redact(dsn), err)
		}
	}
	// Causes stay reachable where they hold no secret.
	_, err := d.DriverDSN("sqlserver://u:pw@h?log=abc")
	if errors.Unwrap(err) == nil {
		t.Errorf("error %v wraps nothing", err)
	}
}

// TestNoTempSchemas: on SQL Server a temporary table is one whose name
// begins with #, in tempdb, never a schema: [#x].[INSTANCES] is a table
// of an ordinary schema named #x, and [tempdb].[INSTANCES] one of a
// schema tempdb of the current database (an export into a schema that does
// not exist fails, naming it). No schema is refused for writing.
func TestNoTempSchemas(t *testing.T) {
	var d sqlserver.Dialect
	if _, ok := any(d).(dialects.TempSchemas); ok {
		t.Error("the sqlserver dialect claims temporary schemas")
	}
	dialecttest.CheckTempSchemas(t, d, nil, []string{"", "dbo", "#x", "##x", "tempdb", "temp", "pg_temp"})
}
