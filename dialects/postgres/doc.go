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
package postgres
