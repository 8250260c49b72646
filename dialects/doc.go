// Package dialects defines what profdb needs from a SQL database, and keeps
// the registry of the dialects that provide it. Each dialect lives in its own
// package (sqlite, postgres, mysql, sqlserver) with the same files: dialect.go
// (the type, its Facts and its registration), types.go (logical types to
// column types), ddl.go (CREATE statements), inspect.go (existing tables),
// bulk.go (the native bulk path), script.go (the SQL scripts of profdb ddl
// and export --sql-out, Scripter), dsn.go (profdb DSN URLs to driver DSNs),
// and where the dialect has them explain.go (Explainer) and namespace.go
// (Namespaces).
//
// A Dialect returns SQL strings and does no I/O, except in the methods that
// take a context and a DBTX. It is small: the twelve answers every database
// gives differently (its Name and Facts, DriverDSN, Quote, StoredName,
// ColumnType, Placeholder, Bind, CreateTableIn, Tables, Columns and
// ReadSnapshot), and its Facts are data, with zero values as fallbacks.
// What only some databases have, or need, is an optional capability: a
// separate interface found by type assertion, each with a caller and a
// fallback for the dialects without it. Nothing outside this package and
// the dialects' own asks which dialect it has: it asks for a capability or
// a fact. The capabilities, who implements them (x), and what happens
// without them:
//
//	capability         sqlite postgres mysql sqlserver  what for / without it
//	AccessDSN            x      -       -      -        the connection decides whether a file is created or written / the server decides
//	BulkLoader           x      x       x      x        a native bulk path (COPY, LOAD DATA, bulk copy) / batched INSERT
//	Collator             -      -       -      x        exact text comparison in GROUP BY and joins / text compares exactly already
//	ColumnAdder          x      x       x      x        adds profdb's own new columns to its older tables / the table is used as it is
//	Connector            -      x       x      x        profdb dials connections (timeouts, keepalive, interrupt) / the driver dials
//	Distributor          -      x       -      -        spreads a new table over a cluster's nodes (Citus) / tables stay plain
//	Explainer            x      x       x      -        shows a statement's plan, for plantest / no plan of the dialect is checked
//	FewSetsPlanner       -      x       -      x        keeps plans of one result set to the INST_ID index / the planner's own choice
//	IndexSplitter        -      x       -      -        a new table's indexes built after its rows / indexes with the table
//	InstReader           x      -       -      -        a faster read of one result set's rows / SELECT … WHERE INST_ID = ?
//	LockWaiter           x      -       -      -        a writer waits while other writers progress / the server's own lock wait
//	LongRowTuner         x      -       -      -        a small page cache while rows of long values are written / the session as it is
//	Locker               -      x       x      x        serializes result-set allocation / the transaction's own isolation
//	Namespaces           -      x       x      x        a private schema or database, for the test kits / a new file is one
//	QueryKiller          -      -       x      -        stops on the server a statement whose context ended (KILL QUERY) / the driver's cancel stops it
//	NewTableCreator      -      -       -      x        unguarded DDL for a table found missing / CreateTableIn
//	OpenExplainer        x      -       x      -        tells a missing database or a non-database file / the driver's error
//	ReadOnlyTeller       x      x       x      x        tells a refused write (hot standby, read-only) / the server's words, and Facts.ReadOnlyProbe
//	Retrier              -      x       x      x        reruns a transaction after a deadlock or conflict / no retry
//	RowLimiter           x      x       x      -        asks for the first n rows of an ordered SELECT (LIMIT) / the rows are read until n, the rest closed
//	RowKeyer             -      -       x      -        a hidden primary key where the server demands one / tables without
//	Scripter             x      x       x      x        SQL scripts (profdb ddl, export --sql-out) / no script for the dialect
//	StaleSnapshots       -      -       x      x        reads again when a table changed under the snapshot / no error taken for that
//	StatsRefresher       -      x       -      -        refreshes the planner's statistics after an export / the server's own schedule
//	TablesInspector      -      x       -      -        the columns of several tables in one query / Columns per table
//	TempSchemas          x      x       -      -        refuses to write into a schema that dies with the connection / no schema is temporary
//	TxProber             -      -       x      -        finds a transaction the server ended unasked (Galera) / none is looked for
//	ddl.BatchSeparator   -      -       -      x        a batch separator line in scripts (GO) / none
//	ddl.Preamble         -      x       -      -        session settings that open a DDL script / none
//
// TestCapabilities holds this table to the code: the marks, a row for every
// capability, a caller for each, and the size of Dialect.
//
// Dialect packages register themselves in init; programs import them for
// that side effect:
//
//	import _ "github.com/profdb/profdb/dialects/postgres"
//
// and find them by name (Lookup) or by DSN URL scheme (ForDSN).
package dialects
