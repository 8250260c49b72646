// Command profdb writes AQTime profiler results into SQL databases (SQLite,
// PostgreSQL, MySQL/MariaDB, SQL Server) using AQTime's documented table
// layout, and reads them back.
//
// Usage:
//
//	profdb export [--db DSN] FILE...       results into a database
//	profdb script --dialect D FILE...      the same as a SQL script
//	profdb list | verify | show | report   read what a database holds
//	profdb copy --from DSN --to DSN        result sets between databases
//	profdb delete --inst N | --older-than AGE
//	profdb ddl --dialect D                 the tables' DDL
//	profdb profilers                       the layout of every profiler
//	profdb version
//
// The database is a DSN whose scheme picks the dialect (sqlite:FILE,
// postgres://, mysql://, sqlserver://); the default is sqlite:profdb.db in
// the current folder. Every command has --help; docs/cli in the repository
// is the reference, generated from the commands, and docs/guide.md says
// what each does and what can be relied on.
//
// Errors go to standard error prefixed "profdb: ". The exit status is the
// same contract for every command: 0 done, 1 the command's negative answer
// (check: a rule failed; compare: not comparable; verify: problems found),
// 2 could not run; 130/143 when interrupted. One function, exitStatus,
// maps errors to statuses, and one, phrase, words library errors that name
// Options fields (optionerr) with the flags that set them. DSN passwords are never printed, and names from data are
// printed with their control characters escaped (internal/termtext).
//
// This package is the command line only: the work is done by the library
// packages (store, exporter, readback, report, the input readers), and this
// is the one place that imports the dialects, profilers and input formats
// for their registration.
package main
