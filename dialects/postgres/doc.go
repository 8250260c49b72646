// Package postgres is profdb's PostgreSQL dialect, on the driver
// github.com/lib/pq (database/sql driver name "postgres"). Importing it
// registers the dialect for the DSN schemes "postgres:" and "postgresql:":
//
//	import _ "github.com/profdb/profdb/dialects/postgres"
//
// PostgreSQL folds unquoted names to lower case, so the tables and columns
// profdb creates are stored lower case (StoredName), and a consumer's
// unquoted upper-case query such as
//
//	SELECT COL_FILE_NAME FROM LIGHT_COVERAGE_PROFILER_SOURCE_FILES_DATA
//
// finds them (docs/layout.md, "Upper-case names without quotes").
// Generated SQL quotes every name.
//
// A schema "" means the connection's current schema (the first existing
// schema of search_path, which the DSN may set).
//
// Result-set allocation is serialized with a transaction-scoped advisory
// lock (Lock).
//
// Plans and statistics (docs/performance.md, "Plans and statistics"): the
// transactions that work on a few result sets (reads of one result set, a
// delete, an export) begin with FewSetsSettings, which turn sequential
// scans (where an index serves), parallel workers and JIT off for that
// transaction, so that stale statistics cannot make a statement about one
// result set read a whole table. After an export, RefreshStats runs
// ANALYZE (SKIP_LOCKED) on each table the export grew, when autovacuum's
// rule says its statistics are stale. It skips, without an error, a table
// the login does not own: an export through a login that may insert but
// not ANALYZE (export --no-create with a role of its own) leaves the
// statistics to autovacuum. It skips Citus tables too, whose shards the
// workers analyse.
package postgres
