package postgres

import (
	"database/sql"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/internal/dbtest"
)

// open returns a handle on a fresh schema and the schema's name.
func open(t *testing.T) (*sql.DB, string) {
	t.Helper()
	dsn := dbtest.Fresh(t, "postgres")
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return dbtest.Open(t, dsn), u.Query().Get("search_path")
}

// TestConformance runs dialecttest's suite, the catalogue created once
// into the current schema and once naming it, its columns described as
// profdb creates them (names stored lower case) and its indexes checked
// against the documented layout. Text cannot hold U+0000
// (TestValuesRefused).
func TestConformance(t *testing.T) {
	db, schema := open(t)
	dialecttest.Run(t, Dialect{}, db, dialecttest.Config{
		Schema:     schema,
		NoNUL:      true,
		Column:     createdColumn,
		CheckTable: func(t *testing.T, _ string, tab ddl.Table) { checkIndexes(t, db, tab) },
	})
}

// createdColumn describes column c of table tab as profdb creates it:
// its name stored lower case, its type as the dialect maps it.
func createdColumn(tab ddl.Table, c ddl.Column) dialects.ColumnInfo {
	ci := dialects.ColumnInfo{Name: strings.ToLower(c.Name), Type: c.Type, Nullable: !c.NotNull && c.Name != tab.Key}
	switch c.Type {
	case ddl.Integer:
		ci.DBType, ci.IntBits = "bigint", 64
	case ddl.String:
		ci.DBType = "text"
	case ddl.Float:
		ci.DBType, ci.FloatBits = "double precision", 64
	case ddl.Decimal:
		ci.DBType, ci.Precision, ci.Scale = "numeric(28,8)", 28, 8
	}
	return ci
}

// checkIndexes compares the table's indexes in pg_catalog with
// tab.Indexes(), names and columns in stored (lower) case.
func checkIndexes(t *testing.T, q dialects.DBTX, tab ddl.Table) {
	t.Helper()
	ctx := dialecttest.Context(t)
	d := Dialect{}
	rows, err := q.QueryContext(ctx, `SELECT ic.relname, x.indisprimary, a.attname
FROM pg_index x
JOIN pg_class ic ON ic.oid = x.indexrelid
JOIN pg_class tc ON tc.oid = x.indrelid
CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, n)
JOIN pg_attribute a ON a.attrelid = tc.oid AND a.attnum = k.attnum
WHERE tc.relnamespace = current_schema()::regnamespace AND tc.relname = $1
ORDER BY ic.relname, k.n`, d.StoredName(tab.Name))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]string{}
	for rows.Next() {
		var (
			ix, col string
			primary bool
		)
		if err := rows.Scan(&ix, &primary, &col); err != nil {
			t.Fatal(err)
		}
		if got[ix] == "" && primary {
			got[ix] = "PRIMARY:"
		} else if got[ix] != "" && !strings.HasSuffix(got[ix], ":") {
			got[ix] += ","
		}
		got[ix] += col
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, ix := range tab.Indexes() {
		v := strings.ToLower(strings.Join(ix.Columns, ","))
		if ix.Primary {
			v = "PRIMARY:" + v
		}
		want[d.StoredName(ix.Name)] = v
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s indexes = %v, want %v", tab.Name, got, want)
	}
}

// TestValuesRefused: what PostgreSQL cannot store is an error, not a
// silent change.
func TestValuesRefused(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	db, _ := open(t)
	dialecttest.CreateRoundTripTable(ctx, t, d, db, "")

	// U+0000 cannot be stored.
	bad := []any{int64(100), "a\x00b", nil, nil, nil}
	cols := []string{"inst_id", "col_string", "col_integer", "col_decimal", "col_float"}
	if _, err := db.ExecContext(ctx, dialects.InsertSQL(d, dialects.Qualify(d, "", "profdb_round_trip"), cols, 1), bad...); err == nil {
		t.Error("a string with U+0000 was accepted")
	}
	// A decimal beyond NUMERIC(28,8) is refused, not rounded or clamped.
	if _, err := db.ExecContext(ctx, `INSERT INTO profdb_round_trip (inst_id, col_decimal) VALUES ($1, $2)`,
		int64(101), d.Bind(ddl.Decimal, ddl.Dec("123456789012345678901"))); err == nil {
		t.Error("a 21-digit decimal was accepted")
	}
}

// TestInspectHandMade: tables a DBA created, unquoted (stored lower case)
// and quoted upper case, with the usual types.
func TestInspectHandMade(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	db, schema := open(t)
	for _, s := range []string{
		`CREATE TABLE DBA_Made (ID integer, NAME varchar(255), AMOUNT numeric(10,2), RATIO real, BIG bigint,
			NOTE text NOT NULL DEFAULT 'x', SMALL smallint, FREE numeric, CODE char(3), D double precision,
			SERIAL_ID serial, IDENT bigint GENERATED ALWAYS AS IDENTITY, NULLDEF text DEFAULT NULL, FLAG boolean, TS timestamp)`,
		`CREATE TABLE "DBA_UPPER" ("ID" bigint NOT NULL, "COL_Name" text, "COL_MARK" numeric(28,8))`,
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	names, err := d.Tables(ctx, db, schema)
	if err != nil || strings.Join(names, ",") != "DBA_UPPER,dba_made" {
		t.Errorf("Tables = %v, %v", names, err)
	}
	got, err := d.Columns(ctx, db, "", "dba_made")
	if err != nil {
		t.Fatal(err)
	}
	want := []dialects.ColumnInfo{
		{Name: "id", DBType: "integer", Type: ddl.Integer, Nullable: true, IntBits: 32},
		{Name: "name", DBType: "character varying(255)", Type: ddl.String, Nullable: true, MaxChars: 255},
		{Name: "amount", DBType: "numeric(10,2)", Type: ddl.Decimal, Nullable: true, Precision: 10, Scale: 2},
		{Name: "ratio", DBType: "real", Type: ddl.Float, Nullable: true, FloatBits: 32},
		{Name: "big", DBType: "bigint", Type: ddl.Integer, Nullable: true, IntBits: 64},
		{Name: "note", DBType: "text", Type: ddl.String, HasDefault: true},
		{Name: "small", DBType: "smallint", Type: ddl.Integer, Nullable: true, IntBits: 16},
		{Name: "free", DBType: "numeric", Type: ddl.Decimal, Nullable: true},
		{Name: "code", DBType: "character(3)", Type: ddl.String, Nullable: true, MaxChars: 3},
		{Name: "d", DBType: "double precision", Type: ddl.Float, Nullable: true, FloatBits: 64},
		{Name: "serial_id", DBType: "integer", Type: ddl.Integer, HasDefault: true, IntBits: 32},
		{Name: "ident", DBType: "bigint", Type: ddl.Integer, HasDefault: true, IntBits: 64},
		{Name: "nulldef", DBType: "text", Type: ddl.String, Nullable: true},
		{Name: "flag", DBType: "boolean", Nullable: true},
		{Name: "ts", DBType: "timestamp without time zone", Nullable: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Columns(dba_made) =\n%+v\nwant\n%+v", got, want)
	}
	got, err = d.Columns(ctx, db, schema, "DBA_UPPER")
	if err != nil {
		t.Fatal(err)
	}
	want = []dialects.ColumnInfo{
		{Name: "ID", DBType: "bigint", Type: ddl.Integer, IntBits: 64},
		{Name: "COL_Name", DBType: "text", Type: ddl.String, Nullable: true},
		{Name: "COL_MARK", DBType: "numeric(28,8)", Type: ddl.Decimal, Nullable: true, Precision: 28, Scale: 8},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Columns(DBA_UPPER) =\n%+v\nwant\n%+v", got, want)
	}
	// The real name is matched exactly: the upper-case table is not
	// "dba_upper".
	if _, err := d.Columns(ctx, db, "", "dba_upper"); err == nil {
		t.Error(`Columns found "dba_upper" for a table named "DBA_UPPER"`)
	}
}

// TestLock: the acquire statement holds the lock until the transaction
// ends.
func TestLock(t *testing.T) {
	ctx := dialecttest.Context(t)
	db, _ := open(t)
	acquire, release := Dialect{}.Lock("")
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, s := range acquire {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	try := func() bool {
		var ok bool
		if err := db.QueryRowContext(ctx, "SELECT pg_try_advisory_xact_lock($1)", AllocLockKey).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if try() {
		t.Fatal("another session got the lock while the transaction held it")
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if len(release) != 0 {
		t.Fatalf("release = %q, want none", release)
	}
	// The lock is the database's: other tests' exporters in the same
	// database may hold it a moment, so the test waits for them.
	for deadline := time.Now().Add(10 * time.Second); !try(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the lock outlived the transaction")
		}
	}
}

// TestTempSchemaIsRefused: a table created in pg_temp, as profdb quotes
// the schema, lives in the session's pg_temp_N and no other session sees
// it: WritableSchema refuses pg_temp, pg_temp_N and pg_toast_temp_N
// (naming the schema, wrapping dialects.ErrTempSchema). "PG_TEMP", quoted
// as profdb quotes it, is an ordinary schema that lasts, and passes.
func TestTempSchemaIsRefused(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	db, _ := open(t)
	one, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	if _, err := one.ExecContext(ctx, "CREATE TABLE "+dialects.Qualify(d, "pg_temp", "instances")+" (inst_id bigint)"); err != nil {
		t.Fatal(err)
	}
	var real, toast string
	if err := one.QueryRowContext(ctx, `SELECT n.nspname, 'pg_toast_temp_' || substr(n.nspname, length('pg_temp_') + 1)
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.oid = 'pg_temp.instances'::regclass AND n.oid = pg_catalog.pg_my_temp_schema()`).Scan(&real, &toast); err != nil {
		t.Fatalf("the table created in pg_temp is not in the session's temporary schema: %v", err)
	}
	other, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var seen sql.NullString
	if err := other.QueryRowContext(ctx, "SELECT to_regclass('pg_temp.instances')::text").Scan(&seen); err != nil || seen.Valid {
		t.Errorf("another session sees pg_temp.instances: %v, %v", seen, err)
	}
	dialecttest.CheckTempSchemas(t, d, []string{"pg_temp", real, toast}, nil)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var temp bool
	if err := dialects.ExecAll(ctx, tx, []string{`CREATE SCHEMA "PG_TEMP"`, `CREATE TABLE "PG_TEMP".t (x int)`}); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT pg_catalog.pg_is_other_temp_schema(n.oid) OR n.oid = pg_catalog.pg_my_temp_schema()
FROM pg_catalog.pg_namespace n WHERE n.nspname = 'PG_TEMP'`).Scan(&temp); err != nil || temp {
		t.Errorf(`schema "PG_TEMP" temporary: %v, %v; want an ordinary schema`, temp, err)
	}
	dialecttest.CheckTempSchemas(t, d, nil, []string{"PG_TEMP"})
}
