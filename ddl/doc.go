// Package ddl is profdb's dialect-neutral schema model: tables, columns and
// the four logical types of the AQTime "Database Structure" documents
// (String, Integer, Decimal, Floating-point), the validation of a profiler's
// table set, ordering by the parent-child graph, index derivation, and the
// assembly of statements into a script.
//
// The package does no I/O. Dialects (see package dialects) turn tables into
// SQL statements with pure functions; Script joins them into a file that the
// dialect's own command-line client can run.
package ddl
