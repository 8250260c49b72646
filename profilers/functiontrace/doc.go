// Package functiontrace registers the tables of AQTime's Function Trace
// profiler as the profiler "function-trace". Import it for its side effect:
//
//	import _ "github.com/profdb/profdb/profilers/functiontrace"
package functiontrace
