package mysql

import (
	"database/sql"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/internal/dbtest"
)

// open returns a handle on a fresh database and the database's name.
func open(t *testing.T) (*sql.DB, string) {
	t.Helper()
	dsn := dbtest.Fresh(t, "mysql")
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return dbtest.Open(t, dsn), strings.TrimPrefix(u.Path, "/")
}

// TestSession: every connection runs in strict mode with utf8mb4_bin.
func TestSession(t *testing.T) {
	ctx := dialecttest.Context(t)
	db, _ := open(t)
	var mode, coll, client, results string
	if err := db.QueryRowContext(ctx, "SELECT @@SESSION.sql_mode, @@collation_connection, @@character_set_client, @@character_set_results").
		Scan(&mode, &coll, &client, &results); err != nil {
		t.Fatal(err)
	}
	for _, m := range strings.Split(SQLMode, ",") {
		if !strings.Contains(","+mode+",", ","+m+",") {
			t.Errorf("sql_mode %q lacks %s", mode, m)
		}
	}
	if coll != "utf8mb4_bin" || client != "utf8mb4" || results != "utf8mb4" {
		t.Errorf("collation_connection %s, character_set_client %s, character_set_results %s", coll, client, results)
	}
	n, err := MaxAllowedPacket(ctx, db)
	if err != nil || n < 1<<20 {
		t.Errorf("MaxAllowedPacket = %d, %v", n, err)
	}
}

// TestConformance runs dialecttest's suite, the catalogue created once
// into the current database and once naming it, its columns described as
// profdb creates them and its tables' indexes, engine and collation checked
// against the documented layout.
func TestConformance(t *testing.T) {
	db, schema := open(t)
	var version string
	if err := db.QueryRowContext(dialecttest.Context(t), "SELECT VERSION()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	mariaDB := strings.Contains(strings.ToLower(version), "mariadb")
	dialecttest.Run(t, Dialect{}, db, dialecttest.Config{
		Schema: schema,
		Column: func(tab ddl.Table, c ddl.Column) dialects.ColumnInfo {
			ci := dialects.ColumnInfo{Name: c.Name, Type: c.Type, Nullable: !c.NotNull && c.Name != tab.Key}
			switch c.Type {
			case ddl.Integer:
				ci.DBType, ci.IntBits = "bigint", 64
				if mariaDB {
					ci.DBType = "bigint(20)"
				}
			case ddl.String:
				ci.DBType = "longtext"
			case ddl.Float:
				ci.DBType, ci.FloatBits = "double", 64
			case ddl.Decimal:
				ci.DBType, ci.Precision, ci.Scale = "decimal(28,8)", 28, 8
			}
			return ci
		},
		CheckTable: func(t *testing.T, _ string, tab ddl.Table) { checkTable(t, db, schema, tab) },
	})
}

// checkTable compares the table's indexes in information_schema with
// tab.Indexes(), and checks engine and collation.
func checkTable(t *testing.T, q dialects.DBTX, schema string, tab ddl.Table) {
	t.Helper()
	ctx := dialecttest.Context(t)
	var engine, coll string
	if err := q.QueryRowContext(ctx, "SELECT ENGINE, TABLE_COLLATION FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
		schema, tab.Name).Scan(&engine, &coll); err != nil {
		t.Fatal(err)
	}
	if engine != "InnoDB" || coll != "utf8mb4_bin" {
		t.Errorf("%s: engine %s, collation %s", tab.Name, engine, coll)
	}
	rows, err := q.QueryContext(ctx, `SELECT INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS
WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY INDEX_NAME, SEQ_IN_INDEX`, schema, tab.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]string{}
	for rows.Next() {
		var ix, col string
		if err := rows.Scan(&ix, &col); err != nil {
			t.Fatal(err)
		}
		if got[ix] != "" {
			got[ix] += ","
		}
		got[ix] += col
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, ix := range tab.Indexes() {
		name := ix.Name
		if ix.Primary {
			name = "PRIMARY"
		}
		want[name] = strings.Join(ix.Columns, ",")
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s indexes = %v, want %v", tab.Name, got, want)
	}
}

// TestStrict: out-of-range and malformed values are errors, not clamped,
// truncated or converted.
func TestStrict(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	db, _ := open(t)
	dialecttest.CreateRoundTripTable(ctx, t, d, db, "")
	for col, v := range map[string]any{
		"COL_DECIMAL": d.Bind(ddl.Decimal, ddl.Dec("123456789012345678901")),
		"COL_INTEGER": "12a",
		"COL_FLOAT":   "x",
	} {
		if _, err := db.ExecContext(ctx, "INSERT INTO PROFDB_ROUND_TRIP (INST_ID, "+col+") VALUES (?, ?)", int64(1), v); err == nil {
			t.Errorf("%s accepted %#v", col, v)
		}
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO PROFDB_ROUND_TRIP (COL_STRING) VALUES (?)", "x"); err == nil {
		t.Error("a row without INST_ID was accepted")
	}
}

// TestInspectHandMade: a table a DBA created with the usual types.
func TestInspectHandMade(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	db, schema := open(t)
	if _, err := db.ExecContext(ctx, `CREATE TABLE dba_made (
		ID INT NOT NULL AUTO_INCREMENT PRIMARY KEY, NAME VARCHAR(255), RATIO FLOAT, AMOUNT DECIMAL(10,2),
		T8 TINYINT, T16 SMALLINT, T24 MEDIUMINT, BIG BIGINT UNSIGNED, D DOUBLE, NOTE TEXT, LONGNOTE LONGTEXT,
		CODE CHAR(3) NOT NULL DEFAULT 'x', NULLDEF VARCHAR(10) DEFAULT NULL, DAY DATE, L1 VARCHAR(20) CHARACTER SET latin1
	) CHARACTER SET utf8mb4`); err != nil {
		t.Fatal(err)
	}
	names, err := d.Tables(ctx, db, "")
	if err != nil || strings.Join(names, ",") != "dba_made" {
		t.Errorf("Tables = %v, %v", names, err)
	}
	got, err := d.Columns(ctx, db, schema, "dba_made")
	if err != nil {
		t.Fatal(err)
	}
	// COLUMN_TYPE spells integer widths on MariaDB and MySQL 5.7 only.
	for i := range got {
		if j := strings.IndexByte(got[i].DBType, '('); j >= 0 && strings.Contains(got[i].DBType, "int(") {
			got[i].DBType = got[i].DBType[:j] + got[i].DBType[strings.IndexByte(got[i].DBType, ')')+1:]
		}
	}
	want := []dialects.ColumnInfo{
		{Name: "ID", DBType: "int", Type: ddl.Integer, IntBits: 32, HasDefault: true},
		{Name: "NAME", DBType: "varchar(255)", Type: ddl.String, Nullable: true, MaxChars: 255},
		{Name: "RATIO", DBType: "float", Type: ddl.Float, Nullable: true, FloatBits: 32},
		{Name: "AMOUNT", DBType: "decimal(10,2)", Type: ddl.Decimal, Nullable: true, Precision: 10, Scale: 2},
		{Name: "T8", DBType: "tinyint", Type: ddl.Integer, Nullable: true, IntBits: 8},
		{Name: "T16", DBType: "smallint", Type: ddl.Integer, Nullable: true, IntBits: 16},
		{Name: "T24", DBType: "mediumint", Type: ddl.Integer, Nullable: true, IntBits: 24},
		{Name: "BIG", DBType: "bigint unsigned", Type: ddl.Integer, Nullable: true, IntBits: 64},
		{Name: "D", DBType: "double", Type: ddl.Float, Nullable: true, FloatBits: 64},
		{Name: "NOTE", DBType: "text", Type: ddl.String, Nullable: true, MaxChars: 65535 / 4},
		{Name: "LONGNOTE", DBType: "longtext", Type: ddl.String, Nullable: true},
		{Name: "CODE", DBType: "char(3)", Type: ddl.String, MaxChars: 3, HasDefault: true},
		{Name: "NULLDEF", DBType: "varchar(10)", Type: ddl.String, Nullable: true, MaxChars: 10},
		{Name: "DAY", DBType: "date", Nullable: true},
		{Name: "L1", DBType: "varchar(20)", Type: ddl.String, Nullable: true, MaxChars: 20},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Columns(dba_made) =\n%+v\nwant\n%+v", got, want)
	}
}

// TestLock: the session lock is held from acquire to release, across the
// transaction, on one connection.
func TestLock(t *testing.T) {
	ctx := dialecttest.Context(t)
	db, dbName := open(t)
	acquire, release := Dialect{}.Lock("")
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, s := range acquire {
		var got sql.NullInt64
		if err := conn.QueryRowContext(ctx, s).Scan(&got); err != nil || got.Int64 != 1 {
			t.Fatalf("%s = %v, %v", s, got, err)
		}
	}
	free := func() bool {
		var n sql.NullInt64
		if err := db.QueryRowContext(ctx, "SELECT IS_FREE_LOCK(CONCAT('profdb.', MD5(?)))", dbName).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n.Int64 == 1
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if free() {
		t.Fatal("the lock ended with the transaction; it should last until release")
	}
	for _, s := range release {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if !free() {
		t.Fatal("the lock is still held after release")
	}
}

// TestLargeStatement: one INSERT may carry more than max_allowed_packet in
// all (the driver sends long values in packets of their own); a single
// value larger than max_allowed_packet is an error.
func TestLargeStatement(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	db, _ := open(t)
	dialecttest.CreateRoundTripTable(ctx, t, d, db, "")
	packet, err := MaxAllowedPacket(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if packet > 64<<20 {
		t.Skipf("max_allowed_packet is %d bytes: too large to exceed in a test", packet)
	}
	big := strings.Repeat("ж", 1<<19) // 1 MiB
	n := int(packet>>20) + 4
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int64(i + 1), big, nil, nil, nil}
	}
	dialecttest.InsertRows(ctx, t, d, db, "", dialecttest.RoundTripTable(), rows)
	var total int64
	if err := db.QueryRowContext(ctx, "SELECT SUM(LENGTH(COL_STRING)) FROM PROFDB_ROUND_TRIP").Scan(&total); err != nil {
		t.Fatal(err)
	}
	if total != int64(n)<<20 || total <= packet {
		t.Fatalf("stored %d bytes in one statement, want %d (> max_allowed_packet %d)", total, int64(n)<<20, packet)
	}
	huge := strings.Repeat("a", int(packet)+1)
	if _, err := db.ExecContext(ctx, "INSERT INTO PROFDB_ROUND_TRIP (INST_ID, COL_STRING) VALUES (?, ?)", int64(0), huge); err == nil {
		t.Fatal("a value larger than max_allowed_packet was accepted")
	}
}
