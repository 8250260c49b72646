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
// records how many there were in all (List, kept by Top).
//
// It is the one home of every figure: show, report, compare, check and
// merge read through it, and hold no SQL of their own for a figure it
// defines. Line coverage (LineCoverage), routine coverage
// (RoutinesCovered), file coverage (FileCoverage), total time (TotalTime),
// own time, time with children and calls per routine (TimesByRoutine,
// OwnTimes), classes (ClassCompare) are read one way for one result set or
// two side by side. A routine's identity is RoutineID and its name for
// people FullName. Names are grouped and matched exactly on every dialect
// (ExactText): Calc.go and calc.go are two files on SQL Server too.
//
// Calls have one meaning (RoutineTime): the times a routine was called as
// the profiler counted them, its ROUTINES row's COL_HIT_COUNT (for a
// sampling profile its samples), else its CALL_TRACE rows; a trace's calls
// are the sum over its routines. Two result sets compare (and merge) when
// Comparable says so: one profiler, one counter name and frequency.
//
// A Summary writes itself as `profdb show` prints it (WriteText, WriteJSON),
// with internal/textout's tables and number formats (FormatTime, Percent),
// so a Go user gets the command's bytes; a Listing (store's list of result
// sets) as `profdb list` prints it.
//
// A table a figure needs and the database lacks is a
// *store.MissingTableError (errors.Is store.ErrMissingTable).
package readback
