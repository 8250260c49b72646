package sqlscript

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

// Allocation-lock names and keys shared with the dialects' export path, so
// that a script and "profdb export" running at once take turns. They repeat
// the constants of the dialect packages (dialects/postgres AllocLockKey,
// dialects/mysql AllocLockNameSQL, dialects/sqlserver AllocLock), which this
// package does not import: programs choose the dialects they register.
const (
	pgAllocLockKey int64 = 0x70726F6664620001
	allocLockName        = "profdb.alloc"
	lockTimeoutSec       = 600
)

// mysqlSQLMode is the session sql_mode of a MySQL script: the one
// dialects/mysql gives every connection (SQLMode there): strict, and
// backslash an ordinary character in string literals.
const mysqlSQLMode = "STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION,NO_BACKSLASH_ESCAPES"

// form is what differs between the dialects' scripts.
type form interface {
	// runHint says how the client runs the script.
	runHint() string
	// begin returns the statements before the DDL: session settings, and
	// where DDL takes part in transactions, the start of the transaction
	// and the lock.
	begin() []string
	// afterDDL returns the statements between the DDL and the first
	// result set.
	afterDDL() []string
	// allocate returns the statements that compute a result set's INST_ID
	// and RELATIONS base ID from the tables inst and rel (qualified) and
	// their quoted INST_ID and ID columns.
	allocate(inst, instCol, rel, relCol string) []string
	// instID is the expression for the current INST_ID.
	instID() string
	// utcNow is the expression for the time the statement runs, as text
	// in store.TimeFormat (PROFDB_RESULT_SETS.EXPORTED_AT).
	utcNow() string
	// relID is the expression for the k-th (1-based) RELATIONS ID.
	relID(k int) string
	// refuse returns the statements that stop the script, rolling back,
	// when query (an store.TableCheck's) returns a row: the message is
	// before, the row's fault_id (or NULL), after. Where the client's error
	// cannot carry the message (SQLite), comment says what failed above the
	// statement.
	refuse(query, before, after string) []string
	// end returns the statements that commit.
	end() []string
	// separator is the batch separator line ("GO") written after each DDL
	// statement, or "".
	separator() string
	// batch wraps the statements of the data part that run together: with
	// a batch separator, step numbers the batches from 1 and final marks
	// the last one, the commit (see sqlserverForm); otherwise it returns
	// stmts.
	batch(step int, stmts []string, final bool) []string
}

// nulGuarder is implemented by forms whose scripts, when they hold text with
// U+0000 (NUL), first check that the server can store it.
type nulGuarder interface {
	// nulGuard returns the statements, run before anything is written, that
	// stop the script when the server cannot store NUL in text.
	nulGuard() []string
}

func formFor(d dialects.Dialect, schema string) (form, error) {
	switch d.Name() {
	case "sqlite":
		return sqliteForm{}, nil
	case "postgres":
		return postgresForm{}, nil
	case "mysql":
		return mysqlForm{schema: schema}, nil
	case "sqlserver":
		return sqlserverForm{}, nil
	}
	return nil, fmt.Errorf("sqlscript: no script form for dialect %s", d.Name())
}

// tempIDs is the TEMP table of SQLite and PostgreSQL scripts.
const tempIDs = "profdb_ids"

// tempRefused is the TEMP table whose insert stops a SQLite or MySQL script
// that refuses a result set.
const tempRefused = "profdb_refused"

// sqliteForm: BEGIN IMMEDIATE takes the database's write lock at once, as
// profdb's own connections do (_txlock=immediate), so allocation cannot
// race. The IDs live in a TEMP table.
type sqliteForm struct{}

func (sqliteForm) runHint() string { return "sqlite3 -bail DATABASE < FILE" }
func (sqliteForm) begin() []string { return []string{"BEGIN IMMEDIATE"} }
func (sqliteForm) afterDDL() []string {
	return []string{
		"CREATE TEMP TABLE IF NOT EXISTS " + tempIDs + " (inst_id INTEGER, rel_id INTEGER)",
		// SQLite has no statement that raises an error of its own text
		// outside a trigger, and RAISE there takes only a literal: a
		// refused result set inserts a row that this CHECK turns away, and
		// the client names the line, whose comment says what was found.
		"CREATE TEMP TABLE IF NOT EXISTS " + tempRefused + " (fault_id INTEGER,\n  CONSTRAINT \"" + sqliteRefusal + "\" CHECK (fault_id IS NULL AND fault_id IS NOT NULL))",
	}
}

// sqliteRefusal is the name of the CHECK constraint that stops a SQLite
// script, which the client prints.
const sqliteRefusal = "profdb: result set refused, nothing written: the comment above the failing line says why"

func (sqliteForm) refuse(query, before, after string) []string {
	return []string{"-- refused when " + comment(before+"N"+after) + "\nINSERT INTO temp." + tempRefused + " (fault_id) SELECT fault_id FROM (" + query + ") LIMIT 1"}
}
func (sqliteForm) allocate(inst, instCol, rel, relCol string) []string {
	return tempAllocate("temp."+tempIDs, inst, instCol, rel, relCol)
}
func (sqliteForm) instID() string { return "(SELECT inst_id FROM temp." + tempIDs + ")" }
func (sqliteForm) utcNow() string { return "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')" }
func (sqliteForm) relID(k int) string {
	return "(SELECT rel_id FROM temp." + tempIDs + ") + " + strconv.Itoa(k)
}
func (sqliteForm) end() []string {
	return []string{"DROP TABLE temp." + tempIDs, "DROP TABLE temp." + tempRefused, "COMMIT"}
}
func (sqliteForm) batch(_ int, stmts []string, _ bool) []string { return stmts }
func (sqliteForm) separator() string                            { return "" }

func tempAllocate(tmp, inst, instCol, rel, relCol string) []string {
	return []string{
		"DELETE FROM " + tmp,
		"INSERT INTO " + tmp + " (inst_id, rel_id) SELECT\n  (SELECT COALESCE(MAX(" + instCol + "), 0) + 1 FROM " + inst + "),\n  (SELECT COALESCE(MAX(" + relCol + "), 0) FROM " + rel + ")",
	}
}

// postgresForm: the transaction-scoped advisory lock of profdb's exporter,
// taken in a DO block so that psql prints nothing; the IDs live in a TEMP
// table dropped at commit. client_encoding and standard_conforming_strings
// make the literals mean what they say whatever the client's locale;
// client_min_messages keeps the notices of CREATE ... IF NOT EXISTS quiet.
type postgresForm struct{}

func (postgresForm) runHint() string { return "psql -v ON_ERROR_STOP=1 -d DATABASE -f FILE" }
func (postgresForm) begin() []string {
	return []string{
		"SET client_encoding = 'UTF8'",
		"SET client_min_messages = warning",
		"SET standard_conforming_strings = on",
		"BEGIN",
		"DO $$BEGIN PERFORM pg_advisory_xact_lock(" + strconv.FormatInt(pgAllocLockKey, 10) + "); END$$",
	}
}
func (postgresForm) afterDDL() []string {
	return []string{"CREATE TEMP TABLE " + tempIDs + " (inst_id BIGINT, rel_id BIGINT) ON COMMIT DROP"}
}
func (postgresForm) allocate(inst, instCol, rel, relCol string) []string {
	return tempAllocate("pg_temp."+tempIDs, inst, instCol, rel, relCol)
}
func (postgresForm) instID() string { return "(SELECT inst_id FROM pg_temp." + tempIDs + ")" }
func (postgresForm) utcNow() string {
	return `to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`
}
func (postgresForm) relID(k int) string {
	return "(SELECT rel_id FROM pg_temp." + tempIDs + ") + " + strconv.Itoa(k)
}
func (postgresForm) end() []string { return []string{"COMMIT"} }
func (postgresForm) refuse(query, before, after string) []string {
	msg, _ := stringLiteral("postgres", strings.ReplaceAll(before, "%", "%%")+"%"+strings.ReplaceAll(after, "%", "%%"))
	return []string{"DO $$DECLARE v text;\nBEGIN\n  SELECT COALESCE(q.fault_id::text, 'NULL') INTO v FROM (" + query + ") q LIMIT 1;\n" +
		"  IF FOUND THEN RAISE EXCEPTION " + msg + ", v; END IF;\nEND$$"}
}
func (postgresForm) batch(_ int, stmts []string, _ bool) []string { return stmts }
func (postgresForm) separator() string                            { return "" }

// mysqlForm: the session lock of profdb's exporter, taken before the DDL
// (which commits implicitly on MySQL) and released after the commit. SET
// @profdb_lock = IF(GET_LOCK(...) = 1, 1, <a subquery of two rows>) fails
// the statement when the lock times out (GET_LOCK returns 0) or fails
// (NULL), without a stored program; DO would not do, as it ignores the
// error. The IDs live in user variables.
type mysqlForm struct{ schema string }

// lock names the allocation lock of the database the script writes into,
// as dialects/mysql does: MySQL lock names are server-wide.
func (f mysqlForm) lock() string {
	db := "DATABASE()"
	if f.schema != "" {
		db = "'" + strings.ReplaceAll(f.schema, "'", "''") + "'"
	}
	return "CONCAT('profdb.', MD5(" + db + "))"
}

func (mysqlForm) runHint() string { return "mariadb DATABASE < FILE (or mysql)" }
func (f mysqlForm) begin() []string {
	return []string{
		"SET NAMES utf8mb4 COLLATE utf8mb4_bin",
		"SET SESSION sql_mode = '" + mysqlSQLMode + "'",
		fmt.Sprintf("SET @profdb_lock = IF(GET_LOCK(%s, %d) = 1, 1, (SELECT 1 UNION ALL SELECT 2))", f.lock(), lockTimeoutSec),
	}
}

// afterDDL starts the transaction; a result set that is refused inserts its
// message into the integer column of a TEMPORARY table, which strict mode
// refuses with an error that quotes the message (MySQL has no statement
// that raises an error outside a stored program). Its primary key is for
// servers that demand one on every table (innodb_force_primary_key,
// sql_require_primary_key, Galera's strict mode).
func (mysqlForm) afterDDL() []string {
	return []string{"CREATE TEMPORARY TABLE IF NOT EXISTS " + tempRefused + " (refused BIGINT PRIMARY KEY)", "START TRANSACTION"}
}
func (mysqlForm) refuse(query, before, after string) []string {
	b, _ := stringLiteral("mysql", before)
	a, _ := stringLiteral("mysql", after)
	return []string{"INSERT INTO " + tempRefused + " (refused) SELECT CONCAT(" + b + ", COALESCE(CAST(q.fault_id AS CHAR), 'NULL'), " + a + ") FROM (" + query + ") q LIMIT 1"}
}
func (mysqlForm) allocate(inst, instCol, rel, relCol string) []string {
	return []string{
		"SET @profdb_inst_id = (SELECT COALESCE(MAX(" + instCol + "), 0) + 1 FROM " + inst + ")",
		"SET @profdb_rel_id = (SELECT COALESCE(MAX(" + relCol + "), 0) FROM " + rel + ")",
	}
}
func (mysqlForm) instID() string     { return "@profdb_inst_id" }
func (mysqlForm) utcNow() string     { return "DATE_FORMAT(UTC_TIMESTAMP(), '%Y-%m-%dT%H:%i:%sZ')" }
func (mysqlForm) relID(k int) string { return "@profdb_rel_id + " + strconv.Itoa(k) }
func (f mysqlForm) end() []string {
	return []string{"COMMIT", "DROP TEMPORARY TABLE IF EXISTS " + tempRefused, "DO RELEASE_LOCK(" + f.lock() + ")"}
}
func (mysqlForm) batch(_ int, stmts []string, _ bool) []string { return stmts }
func (mysqlForm) separator() string                            { return "" }

// sqlserverForm: SQL Server scripts are split into batches by GO lines,
// and T-SQL variables do not outlive a batch, so the IDs live in a #temp
// table. SET XACT_ABORT ON makes a run-time error roll the transaction back
// and end the batch; the later batches would then run outside any
// transaction, and a compile error (a column the table lacks) ends its batch
// without any rollback. So every data batch starts by checking that the
// transaction is still open and that the batch before it ran to its end
// (it counts batches in #profdb_ids.step); if not, it rolls back and stops
// with THROW, which ends the batch. Run with sqlcmd -b, the client stops at
// the first error anyway; -x keeps it from expanding $(...) in the data.
// The lock is sp_getapplock owned by the transaction, as in profdb's
// exporter.
type sqlserverForm struct{}

const sqlserverTemp = "#" + tempIDs

func (sqlserverForm) runHint() string { return "sqlcmd -b -x -d DATABASE -i FILE" }
func (sqlserverForm) begin() []string { return []string{"SET NOCOUNT ON", "SET XACT_ABORT ON"} }

// nulGuard stops the script where NCHAR(0), the script's NUL, is NULL: SQL
// Server stores NUL in NVARCHAR, but Babelfish (PostgreSQL underneath)
// cannot, and its NCHAR(0) is NULL, which would turn every text holding one
// into NULL without an error.
func (sqlserverForm) nulGuard() []string {
	return []string{"IF NCHAR(0) IS NULL THROW 50000, " +
		"N'profdb: this script holds text with the character U+0000 (NUL), which this server cannot store (NCHAR(0) is NULL); nothing was written', 1"}
}
func (sqlserverForm) afterDDL() []string {
	return []string{
		"IF OBJECT_ID(N'tempdb.." + sqlserverTemp + "') IS NOT NULL DROP TABLE " + sqlserverTemp,
		"CREATE TABLE " + sqlserverTemp + " (inst_id bigint NULL, rel_id bigint NULL, step int NOT NULL)",
		"BEGIN TRANSACTION",
		"DECLARE @profdb_lock int",
		"EXEC @profdb_lock = sp_getapplock @Resource = N'" + allocLockName + "', @LockMode = N'Exclusive', @LockOwner = N'Transaction', @LockTimeout = " +
			strconv.Itoa(lockTimeoutSec*1000),
		"IF @profdb_lock < 0 THROW 50000, N'profdb: could not lock " + allocLockName + "', 1",
		"INSERT INTO " + sqlserverTemp + " (step) VALUES (0)",
		"GO",
	}
}
func (sqlserverForm) allocate(inst, instCol, rel, relCol string) []string {
	return []string{
		"UPDATE " + sqlserverTemp + " SET\n  inst_id = (SELECT COALESCE(MAX(" + instCol + "), 0) + 1 FROM " + inst + "),\n  rel_id = (SELECT COALESCE(MAX(" + relCol + "), 0) FROM " + rel + ")",
	}
}
func (sqlserverForm) instID() string { return "@profdb_inst_id" }
func (sqlserverForm) utcNow() string {
	return "CONVERT(nvarchar(19), SYSUTCDATETIME(), 126) + N'Z'"
}
func (sqlserverForm) relID(k int) string { return "@profdb_rel_id + " + strconv.Itoa(k) }
func (sqlserverForm) end() []string {
	return []string{"COMMIT TRANSACTION", "DROP TABLE " + sqlserverTemp}
}
func (sqlserverForm) separator() string { return "GO" }
func (sqlserverForm) refuse(query, before, after string) []string {
	b, _ := stringLiteral("sqlserver", before)
	a, _ := stringLiteral("sqlserver", after)
	return []string{
		"DECLARE @profdb_refused nvarchar(2048)",
		"SELECT TOP 1 @profdb_refused = CONCAT(" + b + ", COALESCE(CAST(q.fault_id AS nvarchar(20)), N'NULL'), " + a + ") FROM (" + query + ") q",
		"IF @profdb_refused IS NOT NULL\nBEGIN\n  ROLLBACK TRANSACTION;\n  THROW 50000, @profdb_refused, 1;\nEND",
	}
}

// batch makes stmts the batch number step: it runs only when the
// transaction is open and batch step-1 ran to its end, and unless it is the
// final one (the commit) it records its own end.
func (sqlserverForm) batch(step int, stmts []string, final bool) []string {
	guard := []string{
		"IF @@TRANCOUNT = 0 OR NOT EXISTS (SELECT 1 FROM " + sqlserverTemp + " WHERE step = " + strconv.Itoa(step-1) + ")\n" +
			"BEGIN\n" +
			"  IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION;\n" +
			"  THROW 50000, N'profdb: an earlier batch of this script failed; everything is rolled back and nothing more is written', 1;\n" +
			"END",
	}
	if final {
		return append(append(guard, stmts...), "GO")
	}
	out := append(guard,
		"DECLARE @profdb_inst_id bigint, @profdb_rel_id bigint",
		"SELECT @profdb_inst_id = inst_id, @profdb_rel_id = rel_id FROM "+sqlserverTemp)
	out = append(out, stmts...)
	return append(out, "UPDATE "+sqlserverTemp+" SET step = "+strconv.Itoa(step), "GO")
}

// The columns of INSTANCES and RELATIONS the script writes, in the
// exporter's order.
var (
	instanceCols = []string{"CAPTION", "COUNTER_DESCRIPTION", "COUNTER_FREQUENCY", "COUNTER_NAME", ddl.InstID}
	relationCols = []string{"COL_CHILD_TABLE", "COL_PARENT_TABLE", ddl.ID, ddl.InstID}
)
