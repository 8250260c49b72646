// Package profilers is the registry of profiler plugins. Each plugin is a
// package that, in its init function, registers the tables of one AQTime
// profiler by name, the way database/sql drivers register:
//
//	import _ "github.com/profdb/profdb/profilers/functiontrace"
//
// The four plugins shipped with profdb are lightcoverage ("light-coverage"),
// resource ("resource"), functiontrace ("function-trace") and referencecount
// ("reference-count"). A fifth profiler can live in its own module: it
// implements Profiler and calls Register.
//
// The two tables shared by every profiler, INSTANCES and RELATIONS, are
// defined once here (Instances, Relations). A Layout writes the tables of
// some profilers as profdb profilers prints them (WriteText, WriteJSON).
package profilers
