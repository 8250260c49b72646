// Command profdb writes AQTime profiler results into SQL databases (SQLite,
// PostgreSQL, MySQL/MariaDB, SQL Server) using AQTime's documented table
// layout, and prints that layout.
//
// Usage:
//
//	profdb ddl --dialect D [--profiler NAME]... [--schema S] [-o FILE]
//	profdb profilers [--json] [NAME]...
//	profdb version
//
// ddl prints the script that creates INSTANCES, RELATIONS and the tables of
// the chosen profilers (all of them by default) for one dialect: sqlite,
// postgres, mysql or sqlserver. The script runs as it is in the dialect's own
// client (sqlite3, psql, mariadb/mysql, sqlcmd) and can be run again: every
// statement is idempotent. The scripts for all four profilers are checked in
// under ddl/sql.
//
// profilers lists the registered profiler plugins with their tables, each
// table's parent and its columns with their logical types (String, Integer,
// Decimal, Float); --json prints the same as
//
//	{"shared": [TABLE...], "profilers": [{"name": ..., "tables": [TABLE...]}]}
//
// where TABLE is {"name": ..., "parent": NAME or null, "columns": [{"name":
// ..., "type": ...}]}.
//
// Errors go to standard error prefixed "profdb: ", and the exit status is
// then non-zero. DSN passwords are never printed.
package main
