// Package sqlscript writes result sets as a SQL script instead of into a
// database: Script is an resultset.Target, so any input reader that feeds a
// database feeds a script the same way ("profdb export --sql-out FILE
// --dialect D").
//
// The script runs as it is in the dialect's own client (sqlite3, psql,
// mariadb/mysql, sqlcmd) against a database that may already hold result
// sets. It holds, in order:
//
//   - session settings (client encoding; on MySQL the strict sql_mode with
//     NO_BACKSLASH_ESCAPES, so that a single quote in a string
//     literal is escaped only by doubling it);
//   - the start of one transaction and the allocation lock that concurrent
//     profdb exporters share (SQLite: BEGIN IMMEDIATE; PostgreSQL:
//     pg_advisory_xact_lock; MySQL: GET_LOCK; SQL Server: sp_getapplock);
//   - the idempotent CREATE TABLE / CREATE INDEX statements of INSTANCES,
//     RELATIONS and the tables of the profilers exported (the statements of
//     "profdb ddl"), unless Options.NoCreate is set;
//   - for each result set, its INST_ID and first RELATIONS ID, computed by
//     the script itself when it runs (one more than the largest INST_ID in
//     INSTANCES, and than the largest ID in RELATIONS), its RELATIONS rows,
//     its data rows and its INSTANCES row, as multi-row INSERTs whose values
//     are literals;
//   - the commit.
//
// So the script appends its result sets with fresh INST_IDs whatever the
// database already holds, and a script that fails part-way leaves nothing
// behind (run sqlite3 with -bail, psql with -v ON_ERROR_STOP=1 and sqlcmd
// with -b, so that the client stops at the first error).
//
// # Dialect forms
//
// What differs between the dialects' scripts, their statements and
// literals, is the dialect's own: each dialect package implements
// dialects.Scripter, and takes in its script the allocation lock its
// dialects.Locker takes for an export. The allocated IDs live where each
// dialect can keep them between statements: a TEMP table (SQLite,
// PostgreSQL) read through scalar subqueries, user variables (MySQL), or a
// #temp table (SQL Server) read into T-SQL variables at the start of each
// batch, every batch checking that the one before it ran to its end (with
// SET XACT_ABORT ON an error rolls everything back and ends the batch).
//
// Values are literals in canonical form (see resultset.Convert), escaped for
// the dialect: strings in single quotes, each single quote inside doubled,
// with carriage returns (which the sqlite3 and mariadb shells would drop)
// and NUL written as character functions joined to the rest (N'...' on SQL
// Server, where line feeds become NCHAR(10) too and "$(" is split, so that
// sqlcmd finds neither GO lines nor variables inside a string), exact
// decimals as numeric literals, integers as integer literals, NULL as NULL.
// Floating-point values are written so that the server reads back the same
// double: in SQLite, whose literal parser is not exact for every double, as
// an integer mantissa scaled by powers of two, CAST(m AS REAL)/2^k, which
// IEEE arithmetic computes exactly; elsewhere as the shortest decimal that
// round-trips, which those servers parse exactly. Decimal values in SQLite's
// ANY columns take the same storage class as the exporter binds (integer,
// real or text; see dialects/sqlite).
//
// The script uses the table and column names profdb creates (upper case, or
// lower case on PostgreSQL; see dialects.Dialect.StoredName), qualified by
// Options.Schema. Unlike an export into a database, it cannot look at
// existing tables first: tables that exist under other names, or with
// narrower columns, are the server's business when the script runs.
//
// # DDL
//
// DDL returns the script of "profdb ddl", which only creates the tables.
// It and a Script create their tables alike: the tables of Tables, each
// with the statements of CreateTable.
package sqlscript
