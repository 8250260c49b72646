// Package readback reads stored result sets back for people to look at:
// the figures `profdb show` prints and `profdb report` draws, aggregated in
// SQL so that memory stays bounded however large a result set is.
//
// A Reader works inside one read transaction (a snapshot of the database)
// and finds the tables and columns through the database's catalogue,
// case-insensitively, so it reads the tables profdb creates as well as
// DBA-made ones with lower-case, quoted names and narrower types. Table
// names come from the registered profiler plugins; SQL text is quoted and
// parameterised by the result set's dialect. Query results are scanned into
// structs with sqlx.
//
// Lists that can be long (routines, lines, objects) are capped: each holds
// at most the number of entries Options.Top asks for, best first, and
// records how many there were in all.
package readback
