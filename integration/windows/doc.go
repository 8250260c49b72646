// Package windows runs profdb's Windows binary under Wine, end to end: the
// profdb.exe of the release archive (or any profdb.exe) that
// PROFDB_TEST_WINE_EXE names, in the Wine prefix WINEPREFIX names, which
// holds the bcryptprimitives.dll built from shim/bcryptprimitives.c (Go's
// runtime needs its ProcessPrng; Wine 8 has none). .ci/wine-check prepares
// both and runs this package; without PROFDB_TEST_WINE_EXE every test
// skips, and with it, a missing Wine or shim fails.
//
// What it checks, as a user on Windows would meet it: every command on
// SQLite; export, show, compare and check against PostgreSQL and MariaDB
// over TCP (PROFDB_TEST_POSTGRES, PROFDB_TEST_MYSQL); Windows paths
// (drive letters, backslashes, mixed separators, "..\", "C:\" and
// "\\server\share\" names inside coverage files and diffs, --source-root
// C:\src and what it refuses, names that differ only in case); CRLF
// inputs (LCOV, Cobertura, Go coverage, a git diff made with
// core.autocrlf); UTF-8 names; output files replaced where they exist; and
// the exit statuses 0, 1 and 2 with the messages profdb gives on Linux.
// docs/testing.md lists what cannot run under Wine, and why.
package windows
