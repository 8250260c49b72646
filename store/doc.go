// Package store is a database of result sets: the handle that everything
// reading, writing or administering one goes through.
//
// Open opens the database a profdb DSN names (its dialect is picked by the
// DSN's scheme, see dialects.ForDSN) with connect and I/O timeouts that
// bound every network wait. On a DB:
//
//   - List lists the result sets in INSTANCES, with their profilers (found
//     from RELATIONS), row counts and what PROFDB_RESULT_SETS records;
//   - Verify checks result sets as an export checks one before it commits;
//   - Read streams a result set's rows back, in canonical form, as a
//     resultset.ResultSet that can be written elsewhere (profdb copy);
//   - DeleteAll removes result sets in one transaction, and KeepLast says
//     which of them a retention of the newest N deletes;
//   - BeginSnapshot and Catalog give readers of their own (package
//     readback) one consistent view and the real names of the documented
//     tables and columns.
//
// Where there is nothing to read, a read says so instead of answering:
// List and Verify of a database without an INSTANCES table fail with an
// error wrapping ErrNoResultSets, Open for reading refuses an SQLite file
// that is missing, empty or no database, and a schema that does not exist
// is dialects.ErrNoSchema; Missing tells all of these from other failures.
// An SQLite file that Open created is removed by Close while it is still
// empty and no other DB has it open, so that a write that failed leaves no
// file behind, and none removes the file another is about to write into.
//
// Findings and Deletion write themselves as profdb verify and delete print
// them (WriteText, WriteJSON).
//
// Every read runs in one consistent snapshot (dialects.Dialect.ReadSnapshot), so a
// result set being exported or deleted meanwhile is either whole or absent.
package store
