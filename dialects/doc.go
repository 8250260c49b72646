// Package dialects defines what profdb needs from a SQL database, and keeps
// the registry of the dialects that provide it. Each dialect lives in its own
// package (sqlite, postgres, mysql, sqlserver) with the same files: dialect.go
// (the type and its registration), types.go (logical types to column types),
// ddl.go (CREATE statements), inspect.go (existing tables), bulk.go (the
// native bulk path), script.go (the SQL scripts of profdb export --sql-out,
// Scripter) and dsn.go (profdb DSN URLs to driver DSNs).
//
// A Dialect returns SQL strings and does no I/O, except in the methods that
// take a context and a DBTX. Optional capabilities are separate interfaces
// found by type assertion, each with a fallback for the dialects without
// it: BulkLoader (batched INSERT without), TempSchemas (without it no
// schema is temporary: WritableSchema lets every one through), LockWaiter
// (without it a write begins as the server lets it, and the store does
// not wait again while other writers make progress), and the others
// dialect.go declares.
//
// Dialect packages register themselves in init; programs import them for
// that side effect:
//
//	import _ "github.com/profdb/profdb/dialects/postgres"
//
// and find them by name (Lookup) or by DSN URL scheme (ForDSN).
package dialects
