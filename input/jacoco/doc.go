// Package jacoco reads JaCoCo XML reports (Java and Kotlin builds: the
// jacoco Maven and Gradle plugins, JaCoCo's Ant tasks and command-line
// tool, org.jacoco.report's XMLFormatter) into light-coverage result sets,
// and registers itself as the input format "jacoco". Import it for its side
// effect:
//
//	import _ "github.com/profdb/profdb/input/jacoco"
//
// Packages become modules, classes' source files source files, methods
// routines (ran when their METHOD counter says covered); the lines of a
// <sourcefile> go to the method of the file that starts last at or before
// them, a line being covered when it has covered instructions. Branch,
// instruction and complexity counters are not kept. docs/jacoco.md gives
// the mapping attribute by attribute.
//
// The report is read as a stream: one package's classes and one source
// file's lines are held in memory at a time, and routines and lines go to a
// temporary spool, so memory does not grow with the file. Nothing is
// written when the report is malformed; errors name the file and line. The
// DTD that JaCoCo's DOCTYPE names is never fetched, and entity
// declarations are refused.
package jacoco
