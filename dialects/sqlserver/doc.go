// Package sqlserver is profdb's Microsoft SQL Server dialect, driven by
// github.com/microsoft/go-mssqldb under its "sqlserver" driver name.
//
// Programs select it with a blank import and a DSN of the form
//
//	sqlserver://user:password@host:1433?database=profiling
//
// which is handed to go-mssqldb as it is (see DriverDSN).
//
// Tables and columns are created under their documented upper-case names
// (docs/layout.md, "Upper-case names without quotes": unquoted upper-case
// queries must find them),
// quoted with [brackets]. The logical types map to NVARCHAR(MAX), BIGINT,
// DECIMAL(28,8) and FLOAT (a 53-bit double); see ColumnType. Every CREATE
// statement is guarded by an OBJECT_ID or sys.indexes test, so a script can
// run again over an existing database, and stands alone as a batch: scripts
// separate the statements with GO lines (BatchSeparator).
//
// Result-set allocation is serialized with a transaction-owned application
// lock (Lock), and values are bound in the forms go-mssqldb sends without
// loss (Bind).
//
// Plans and statistics (docs/performance.md, "Plans and statistics"): SQL
// Server updates a table's statistics itself when a query finds them stale
// (AUTO_UPDATE_STATISTICS), and the dialect sets nothing there. On
// Babelfish, whose statements PostgreSQL plans, the transactions that work
// on a few result sets get PostgreSQL's settings (FewSetsSettings); the
// statistics are Babelfish's autovacuum's, since no T-SQL statement
// refreshes them.
package sqlserver
