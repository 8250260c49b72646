// Package integration is profdb's end-to-end test suite, a Go module of its
// own (github.com/profdb/profdb/integration) so that its dependencies
// (testcontainers-go and the Docker client) stay out of profdb's.
//
// Conformance holds the checks every target must pass, in the manner of
// golang-migrate's shared driver tests: the dialects' own suite
// (dialecttest.Run) and the exporter's checks over it; the test files add the
// existing-database scenarios (tables a DBA made with scripts from
// testdata/DIALECT), the SQL Server checks against an in-process TDS server
// when no SQL Server is at hand, and the copy chain between dialects.
//
// A target's server comes from its environment variable (PROFDB_TEST_POSTGRES,
// PROFDB_TEST_MYSQL, PROFDB_TEST_MARIADB, PROFDB_TEST_SQLSERVER, each a profdb
// DSN), or, when that is unset and a Docker engine answers, from a container
// the suite starts itself with testcontainers-go: the image the variable with
// _IMAGE appended names (PROFDB_TEST_POSTGRES_IMAGE, ...), else postgres:16,
// mysql:8.4, mariadb:11, mcr.microsoft.com/mssql/server:2022-latest. With
// neither, the target is skipped with a message, except under CI=true for the
// servers CI provides (postgres, mysql, sqlserver), where that is a failure.
// PROFDB_TEST_TARGETS (a comma-separated list) runs only the targets it names,
// and fails those that get no server. SQLite always runs, on temporary files.
//
// Containers carry the suite's labels (LabelSuite, LabelPID, LabelHost) and
// publish their ports on 127.0.0.1 only; PrepareDocker, called by TestMain,
// points testcontainers at 127.0.0.1, runs without Ryuk when its image is not
// present, and removes containers that killed runs left behind. The images
// integration/images/build makes from Debian's packages need no registry.
package integration
