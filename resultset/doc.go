// Package resultset is the result-set model: what the profilers' typed
// builders and the input readers fill, and what the exporter consumes.
//
// A result set is a Header (the profiler, the caption, the counter: what
// its INSTANCES row records) and rows per table. Readers deliver one to a
// Target: Begin returns a ResultWriter that takes the tables (Table) and
// their rows (TableWriter.Write), and ends with Commit or Rollback. A
// ResultSet holds a whole result set as iterators, and Export writes it to
// any Target in parent-before-child order. Convert checks a value against
// the logical type of its column and brings it to canonical form. Memory
// is a Target that keeps result sets in memory, for tests and for tools
// that transform them.
//
// Results and Result.Line write result sets written as profdb export
// prints them.
//
// The package imports ddl, the profiler registry and the text helpers
// (internal/textout, internal/termtext): neither the exporter nor any
// database dialect.
package resultset
