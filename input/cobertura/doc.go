// Package cobertura reads Cobertura XML coverage reports (coverage.py's
// coverage xml, gcovr --xml, coverlet, Istanbul's cobertura reporter, the
// Cobertura tool itself) into light-coverage result sets, and registers
// itself as the input format "cobertura". Import it for its side effect:
//
//	import _ "github.com/profdb/profdb/input/cobertura"
//
// Packages become modules, classes' files source files, methods routines,
// and lines keep their hit counts; lines of a class outside all of its
// methods form a routine named after the class. Branch data is not kept.
// docs/cobertura.md gives the mapping attribute by attribute.
//
// The report is read as a stream: one class at a time is held in memory,
// and routines and lines go to a temporary spool, so memory does not grow
// with the file. Nothing is written when the report is malformed; errors
// name the file and line. Entity declarations in a DOCTYPE are refused,
// and no DTD is ever fetched.
package cobertura
