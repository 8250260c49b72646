// Package referencecount registers the tables of AQTime's Reference Count
// profiler as the profiler "reference-count". Import it for its side effect:
//
//	import _ "github.com/profdb/profdb/profilers/referencecount"
package referencecount
