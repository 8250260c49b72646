// Package interchange reads and writes profdb's interchange JSON: AQTime
// result sets as JSON objects, one table of rows per documented table name.
// It registers itself with package input as format "json".
//
// A file holds one result set object, a JSON array of them, or several of
// them one after another:
//
//	{"profiler": "function-trace", "caption": "nightly 42",
//	 "counter": {"name": "Time", "description": "Elapsed Time", "frequency": 2400000000},
//	 "tables": {"FUNCTION_TRACE_PROFILER_THREADS": [
//	   {"ID": 0, "PARENT_ID": -1, "REC_ID": 0, "COL_WIN32THREADID": 4711}]}}
//
// Table and column names are the documented ones, matched without regard to
// case; an omitted column is NULL and INST_ID is never given. Numbers are
// read exactly (as int64 or json.Number, converted by resultset.Convert), so
// a Decimal keeps all its digits; a Decimal may also be written as a string.
// The keys of a result set may come in any order: without "profiler" before
// the first table, the profiler is the one that defines that table. A child
// table that comes before its parent is held in a temporary file and written
// after the parent, so that a Target always receives parents first.
//
// Read decodes with a streaming scanner of its own: memory stays bounded
// whatever the size of the file, and it is some thirty times faster than
// encoding/json's Decoder.Token. Every error names the file, line and column
// (see Error); the result set it occurs in is rolled back.
//
// Writer writes the format and Target is an resultset.Target that does, for
// generating inputs and for tests. The format is described fully in
// docs/interchange.md.
package interchange
