package sqlite

import (
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/internal/dbtest"
)

func open(t *testing.T) *sql.DB {
	t.Helper()
	return dbtest.Open(t, dbtest.Fresh(t, "sqlite"))
}

// attached returns a connection to a new database with a second one, in
// a new file named file, attached as name.
func attached(t *testing.T, name, file string) *sql.Conn {
	t.Helper()
	ctx := dialecttest.Context(t)
	conn, err := open(t).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.ExecContext(ctx, "ATTACH DATABASE ? AS "+Dialect{}.Quote(name), filepath.Join(t.TempDir(), file)); err != nil {
		t.Fatal(err)
	}
	return conn
}

// TestConformance runs dialecttest's suite, with the catalogue created
// in a second database too, attached on the same connection under a path
// with a space, its columns described as STRICT tables have them and its
// indexes checked against the documented layout.
func TestConformance(t *testing.T) {
	d := Dialect{}
	// A second database on the same connection, for CreateTableIn.
	conn := attached(t, "aux", "aux db.db")
	dialecttest.Run(t, d, conn, dialecttest.Config{
		Schema: "aux",
		Column: func(tab ddl.Table, c ddl.Column) dialects.ColumnInfo {
			isKey := c.Name == tab.Key
			ci := dialects.ColumnInfo{
				Name: d.StoredName(c.Name), DBType: d.ColumnType(c.Type), Type: c.Type,
				Nullable: !c.NotNull && !isKey, HasDefault: isKey && c.Type == ddl.Integer, // INTEGER PRIMARY KEY: the rowid
			}
			switch c.Type {
			case ddl.Integer:
				ci.IntBits = 64
			case ddl.Float:
				ci.FloatBits = 64
			}
			return ci
		},
		CheckTable: func(t *testing.T, schema string, tab ddl.Table) { checkIndexes(t, conn, schema, tab) },
	})
}

// checkIndexes compares the table's indexes in the catalog with
// tab.Indexes(); a single INTEGER primary key is the rowid (no index).
func checkIndexes(t *testing.T, q dialects.DBTX, schema string, tab ddl.Table) {
	t.Helper()
	ctx := dialecttest.Context(t)
	d := Dialect{}
	if schema == "" {
		schema = "main"
	}
	got := map[string]string{}
	rows, err := q.QueryContext(ctx, `SELECT il.name, ii.name FROM pragma_index_list(?1, ?2) il, pragma_index_info(il.name, ?2) ii
WHERE il.origin = 'c' ORDER BY il.name, ii.seqno`, tab.Name, schema)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
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
		if ix.Primary {
			var pk string
			if err := q.QueryRowContext(ctx, `SELECT name FROM pragma_table_info(?1, ?2) WHERE pk = 1`, tab.Name, schema).Scan(&pk); err != nil || pk != d.StoredName(ix.Columns[0]) {
				t.Errorf("%s: primary key %q, %v; want %s", tab.Name, pk, err, ix.Columns[0])
			}
			continue
		}
		want[d.StoredName(ix.Name)] = strings.Join(ix.Columns, ",")
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s.%s indexes = %v, want %v", schema, tab.Name, got, want)
	}
}

// TestDecimalStorage: decimals of ordinary size are stored as numbers, so
// they compare numerically; the huge ones are text, kept exactly.
func TestDecimalStorage(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	db := open(t)
	dialecttest.CreateRoundTripTable(ctx, t, d, db, "")
	dialecttest.InsertRows(ctx, t, d, db, "", dialecttest.RoundTripTable(), dialecttest.RoundTripRows(true))
	var typ string
	if err := db.QueryRowContext(ctx, `SELECT typeof(COL_DECIMAL) FROM PROFDB_ROUND_TRIP WHERE INST_ID = 3`).Scan(&typ); err != nil || typ != "real" {
		t.Errorf("-123.45 stored as %q, %v; want real", typ, err)
	}
	if err := db.QueryRowContext(ctx, `SELECT typeof(COL_DECIMAL) FROM PROFDB_ROUND_TRIP WHERE INST_ID = 1`).Scan(&typ); err != nil || typ != "text" {
		t.Errorf("max uint64 stored as %q, %v; want text", typ, err)
	}
}

// TestStrictRejects: STRICT tables refuse text in number columns instead
// of storing it silently.
func TestStrictRejects(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	db := open(t)
	dialecttest.CreateRoundTripTable(ctx, t, d, db, "")
	for _, col := range []string{"COL_INTEGER", "COL_FLOAT", "INST_ID"} {
		_, err := db.ExecContext(ctx, `INSERT INTO PROFDB_ROUND_TRIP (INST_ID, `+col+`) VALUES (1, 'abc')`)
		if err == nil {
			t.Errorf("text into %s was accepted", col)
		}
	}
	// INSTANCES.INST_ID is an INTEGER PRIMARY KEY, where SQLite assigns
	// the next rowid for a NULL; in profiler tables it is NOT NULL.
	for _, tab := range dialecttest.AllTables(t) {
		if tab.Name != "LIGHT_COVERAGE_PROFILER_LINES" {
			continue
		}
		for _, s := range d.CreateTableIn("", tab) {
			if _, err := db.ExecContext(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO LIGHT_COVERAGE_PROFILER_LINES (ID) VALUES (1)`); err == nil {
		t.Error("NULL INST_ID was accepted")
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO LIGHT_COVERAGE_PROFILER_LINES (INST_ID, COL_SOURCE_LINE) VALUES (1, '12a')`); err == nil {
		t.Error("text in an Integer column was accepted")
	}
}

// TestInspectHandMade: tables a DBA created without STRICT, with the usual
// type names, map by SQLite's affinity rules.
func TestInspectHandMade(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	db := open(t)
	if _, err := db.ExecContext(ctx, `CREATE TABLE dba_made (
		a INT, b VARCHAR(255) NOT NULL DEFAULT 'x', c DECIMAL(10,2), d FLOAT, e TEXT DEFAULT NULL,
		f BLOB, g DOUBLE PRECISION, h NUMERIC, i BIGINT, j NUMERIC(12), k REAL, l
	)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE dba_keyed (id INTEGER PRIMARY KEY, name TEXT)`); err != nil {
		t.Fatal(err)
	}
	got, err := d.Columns(ctx, db, "", "dba_made")
	if err != nil {
		t.Fatal(err)
	}
	// Outside STRICT tables numbers may be rounded; the message says what keeps them.
	const strictExact = "SQLite tables made by profdb are STRICT and keep them exactly"
	want := []dialects.ColumnInfo{
		{Name: "a", DBType: "INT", Type: ddl.Integer, Nullable: true, IntBits: 64, ApproxNumbers: true, ApproxExact: strictExact},
		{Name: "b", DBType: "VARCHAR(255)", Type: ddl.String, HasDefault: true},
		{Name: "c", DBType: "DECIMAL(10,2)", Type: ddl.Decimal, Nullable: true, Precision: 10, Scale: 2, ApproxNumbers: true, ApproxExact: strictExact},
		{Name: "d", DBType: "FLOAT", Type: ddl.Float, Nullable: true, FloatBits: 64, ApproxNumbers: true, ApproxExact: strictExact},
		{Name: "e", DBType: "TEXT", Type: ddl.String, Nullable: true},
		{Name: "f", DBType: "BLOB", Nullable: true},
		{Name: "g", DBType: "DOUBLE PRECISION", Type: ddl.Float, Nullable: true, FloatBits: 64, ApproxNumbers: true, ApproxExact: strictExact},
		{Name: "h", DBType: "NUMERIC", Type: ddl.Decimal, Nullable: true, ApproxNumbers: true, ApproxExact: strictExact},
		{Name: "i", DBType: "BIGINT", Type: ddl.Integer, Nullable: true, IntBits: 64, ApproxNumbers: true, ApproxExact: strictExact},
		{Name: "j", DBType: "NUMERIC(12)", Type: ddl.Decimal, Nullable: true, Precision: 12, ApproxNumbers: true, ApproxExact: strictExact},
		{Name: "k", DBType: "REAL", Type: ddl.Float, Nullable: true, FloatBits: 64, ApproxNumbers: true, ApproxExact: strictExact},
		{Name: "l", DBType: "", Nullable: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Columns(dba_made) =\n%+v\nwant\n%+v", got, want)
	}
	got, err = d.Columns(ctx, db, "main", "dba_keyed")
	if err != nil {
		t.Fatal(err)
	}
	want = []dialects.ColumnInfo{
		{Name: "id", DBType: "INTEGER", Type: ddl.Integer, IntBits: 64, HasDefault: true, ApproxNumbers: true, ApproxExact: strictExact},
		{Name: "name", DBType: "TEXT", Type: ddl.String, Nullable: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Columns(dba_keyed) =\n%+v\nwant\n%+v", got, want)
	}
	names, err := d.Tables(ctx, db, "")
	if err != nil || strings.Join(names, ",") != "dba_keyed,dba_made" {
		t.Errorf("Tables = %v, %v", names, err)
	}
}

// TestDriverDSNOpens: the driver DSN opens the file the profdb DSN names,
// with the busy timeout set, even for a path with a space, '#' and '%'.
func TestDriverDSNOpens(t *testing.T) {
	ctx := dialecttest.Context(t)
	path := t.TempDir() + "/a b#d%41.db"
	db := dbtest.Open(t, "sqlite:"+path)
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	var timeout int
	if err := db.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&timeout); err != nil || int64(timeout) != dialects.DefaultLockTimeout.Milliseconds() {
		t.Errorf("busy_timeout = %d, %v", timeout, err)
	}
	var file string
	if err := db.QueryRowContext(ctx, "SELECT file FROM pragma_database_list WHERE name = 'main'").Scan(&file); err != nil || file != path {
		t.Errorf("database file = %q, %v; want %q", file, err, path)
	}
	var sync int
	if err := db.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync); err != nil || sync != 2 {
		t.Errorf("synchronous = %d, %v; want 2 (FULL)", sync, err)
	}
}

// TestModeParameter: sqlite:PATH?mode=ro opens PATH read-only (a write
// fails, nothing is created next to it), and a missing file under mode=ro
// or mode=rw is an error, not a new empty database.
func TestModeParameter(t *testing.T) {
	ctx := dialecttest.Context(t)
	dir := t.TempDir()
	path := dir + "/x.db"
	rw := dbtest.Open(t, "sqlite:"+path)
	if _, err := rw.ExecContext(ctx, "CREATE TABLE t (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	ro := dbtest.Open(t, "sqlite:"+path+"?mode=ro")
	var n int
	if err := ro.QueryRowContext(ctx, "SELECT COUNT(*) FROM t").Scan(&n); err != nil {
		t.Fatalf("read through mode=ro: %v", err)
	}
	if _, err := ro.ExecContext(ctx, "INSERT INTO t VALUES (1)"); err == nil || !strings.Contains(err.Error(), "readonly") {
		t.Errorf("INSERT through mode=ro: %v, want a read-only error", err)
	}
	for _, mode := range []string{"ro", "rw"} {
		missing := dir + "/missing-" + mode + ".db"
		drv, err := Dialect{}.DriverDSN("sqlite:" + missing + "?mode=" + mode)
		if err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("sqlite", drv)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.PingContext(ctx); err == nil {
			t.Errorf("mode=%s opened a missing file", mode)
		}
		db.Close()
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "x.db" {
			t.Errorf("file %q created beside x.db", e.Name())
		}
	}
}

// TestSchemaNamesIgnoreCase: a schema is an attached database's name, which
// SQLite matches ignoring case ("MAIN" is main, "Temp" is temp, which
// exists before anything is created in it), so Tables and Columns find the
// tables under any case; a name no database has is an error wrapping
// dialects.ErrNoSchema.
func TestSchemaNamesIgnoreCase(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	conn := attached(t, "Aux", "aux.db")
	for _, schema := range []string{"main", "aux"} {
		if _, err := conn.ExecContext(ctx, "CREATE TABLE "+dialects.Qualify(d, schema, "T")+" (ID INTEGER)"); err != nil {
			t.Fatal(err)
		}
	}
	for _, schema := range []string{"MAIN", "Main", "AUX", "aux"} {
		tables, err := d.Tables(ctx, conn, schema)
		if err != nil || !reflect.DeepEqual(tables, []string{"T"}) {
			t.Errorf("Tables(%q) = %v, %v; want [T]", schema, tables, err)
		}
		cols, err := d.Columns(ctx, conn, schema, "T")
		if err != nil || len(cols) != 1 || cols[0].Name != "ID" {
			t.Errorf("Columns(%q, T) = %+v, %v; want the column ID", schema, cols, err)
		}
	}
	for _, schema := range []string{"temp", "TEMP", "Temp"} {
		if tables, err := d.Tables(ctx, conn, schema); err != nil || len(tables) != 0 {
			t.Errorf("Tables(%q) = %v, %v; want no table and no error", schema, tables, err)
		}
	}
	if tables, err := d.Tables(ctx, conn, "other"); !errors.Is(err, dialects.ErrNoSchema) || !strings.Contains(err.Error(), `"other"`) {
		t.Errorf("Tables(other) = %v, %v; want an error naming it, wrapping dialects.ErrNoSchema", tables, err)
	}
}

// TestTempSchemaIsRefused: what one connection writes into temp, in any
// case, another never sees, and the file keeps nothing of it: SQLite's
// temporary database belongs to the connection. WritableSchema refuses it
// (naming it, wrapping dialects.ErrTempSchema) and lets main, the default
// and an attached database's name through.
func TestTempSchemaIsRefused(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	db := open(t)
	one, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	for _, schema := range []string{"temp", "TEMP", "Temp"} {
		if _, err := one.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS "+dialects.Qualify(d, schema, "INSTANCES")+" (INST_ID INTEGER)"); err != nil {
			t.Fatal(err)
		}
		if tables, err := d.Tables(ctx, one, schema); err != nil || !reflect.DeepEqual(tables, []string{"INSTANCES"}) {
			t.Fatalf("Tables(%q) on the writing connection = %v, %v", schema, tables, err)
		}
	}
	other, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for _, q := range []dialects.DBTX{other, db} {
		for _, schema := range []string{"temp", "main"} {
			if tables, err := d.Tables(ctx, q, schema); err != nil || len(tables) != 0 {
				t.Errorf("Tables(%q) on another connection = %v, %v; want none", schema, tables, err)
			}
		}
	}
	dialecttest.CheckTempSchemas(t, d, []string{"temp", "TEMP", "Temp"}, []string{"", "main", "MAIN", "aux", "temporary", "temp2", " temp", "temp.x"})
	if err := dialects.WritableSchema(d, "temp"); !strings.Contains(err.Error(), "leave the schema out to write into the database file itself (main)") {
		t.Errorf("WritableSchema(temp) = %v: want it to say what to do instead", err)
	}
}

// TestWriteProgressAndLockTimedOut: a writer that cannot take the lock
// another holds within the busy timeout fails with an error LockTimedOut
// recognises, and WriteProgress stays the same while the holder writes
// nothing; it changes when the holder writes rows that reach the file (its
// journal) and when it commits, and not when a reader reads.
func TestWriteProgressAndLockTimedOut(t *testing.T) {
	ctx := dialecttest.Context(t)
	d := Dialect{}
	path := filepath.Join(t.TempDir(), "p.db")
	holder := holdWriteLock(t, path)
	progress := func() string {
		t.Helper()
		p, err := d.WriteProgress(path)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	idle := progress()
	drv, wait, err := d.DriverDSNWait("sqlite:"+path, dialects.ReadWrite, 50*time.Millisecond)
	if err != nil || wait != 50*time.Millisecond {
		t.Fatal(drv, wait, err)
	}
	waiter, err := sql.Open("sqlite", drv)
	if err != nil {
		t.Fatal(err)
	}
	defer waiter.Close()
	tx, err := waiter.BeginTx(ctx, nil)
	if err == nil {
		tx.Rollback()
		t.Fatal("a second writer began while the first held the lock")
	}
	if !d.LockTimedOut(err) {
		t.Errorf("LockTimedOut(%v) = false", err)
	}
	reader := dbtest.Open(t, "sqlite:"+path+"?mode=ro")
	var n int
	if err := reader.QueryRowContext(ctx, "SELECT COUNT(*) FROM t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if p := progress(); p != idle {
		t.Errorf("WriteProgress changed from %q to %q while the holder wrote nothing", idle, p)
	}
	// Enough rows to spill SQLite's page cache (CacheKiB) into the file.
	if _, err := holder.ExecContext(ctx, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) INSERT INTO t SELECT printf('%.1000c', 'x') FROM n", 2*CacheKiB); err != nil {
		t.Fatal(err)
	}
	written := progress()
	if written == idle {
		t.Errorf("WriteProgress stayed %q while the holder wrote %d KiB", idle, 2*CacheKiB)
	}
	if _, err := holder.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	if p := progress(); p == written {
		t.Errorf("WriteProgress stayed %q over a commit", p)
	}
	if d.LockTimedOut(errors.New("database is locked")) || d.LockTimedOut(nil) {
		t.Error("LockTimedOut takes an error that is no SQLITE_BUSY")
	}
}

// tryLockEnv names, in a child process of TestWriteProgressKeepsLocks, the
// database file whose write lock the child tries to take.
const tryLockEnv = "PROFDB_TEST_SQLITE_TRYLOCK"

// TestWriteProgressKeepsLocks: a store asks WriteProgress while other
// connections of its own process may hold SQLite's locks on the file;
// asking must not drop them (closing any descriptor of the file would, as
// POSIX record locks belong to the process). A child process tries to
// take the write lock after WriteProgress ran in this one, whose
// connection holds it: the child must find it held.
func TestWriteProgressKeepsLocks(t *testing.T) {
	if path := os.Getenv(tryLockEnv); path != "" {
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		_, err = db.Exec("BEGIN IMMEDIATE")
		if err == nil {
			t.Fatal("the child took the write lock the parent holds")
		}
		if !(Dialect{}).LockTimedOut(err) {
			t.Fatalf("BEGIN IMMEDIATE: %v, want SQLITE_BUSY", err)
		}
		return
	}
	ctx := dialecttest.Context(t)
	path := filepath.Join(t.TempDir(), "k.db")
	holdWriteLock(t, path)
	if _, err := (Dialect{}).WriteProgress(path); err != nil {
		t.Fatal(err)
	}
	child := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestWriteProgressKeepsLocks$", "-test.count=1")
	child.Env = append(os.Environ(), tryLockEnv+"="+path)
	if out, err := child.CombinedOutput(); err != nil {
		t.Fatalf("after WriteProgress, another process could take the write lock this one holds: %v\n%s", err, out)
	}
}

// holdWriteLock makes a database at path with a table t and returns a
// connection to it that holds the write lock (BEGIN IMMEDIATE) until the
// test ends.
func holdWriteLock(t *testing.T, path string) *sql.Conn {
	t.Helper()
	ctx := dialecttest.Context(t)
	db := dbtest.Open(t, "sqlite:"+path)
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (x TEXT)"); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	return conn
}
