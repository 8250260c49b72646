// Package dbtest gives tests the database servers they need: the DSN of
// each server from the environment, and fresh private schemas (PostgreSQL),
// databases (MySQL/MariaDB) or files (SQLite) so that packages testing in
// parallel never see each other's tables.
//
// The environment variables are PROFDB_TEST_POSTGRES, PROFDB_TEST_MYSQL and
// PROFDB_TEST_SQLSERVER, each a profdb DSN URL. When one is unset, a test
// that needs it skips saying why, except under CI=true, where it fails: CI
// provides the PostgreSQL, MySQL (MariaDB) and SQL Server (Babelfish)
// servers and a silent skip there would hide a broken run.
//
// The dialect packages must be imported by the test binary (blank imports in
// the test file) for Fresh to open connections.
//
// It is a test kit, the one way every test reaches a database server: the
// tests of store, exporter, readback, compare, merge, gate, trend, report,
// selector, input/pprof, every dialect and cmd/profdb, the plan tests
// (internal/plantest), the history benchmark (internal/historytest) and the
// integration module use it.
package dbtest
