// Package resultsettest is a test kit: result sets of any profiler with
// every table and every column filled with edge values — quotes, backslashes,
// lines clients take for commands, non-ASCII and over 1 MiB of text, the
// edges of 64-bit integers and of DECIMAL(28,8), doubles at the edges of
// the range and random bit patterns — kept as rows, so that a test can
// export them any number of times (as input, to a database, as a script)
// and compare what comes back with them value by value.
//
// cmd/profdb's tests (script, secrets, sqlout, tsql) and the integration
// module's conformance suite, scenarios and Galera test build their result
// sets here, so that all exercise the same values; CompareStored is the
// one check of a set read back against them.
package resultsettest
