// Package lightcoverage registers the tables of AQTime's Light Coverage
// profiler as the profiler "light-coverage". Import it for its side effect:
//
//	import _ "github.com/profdb/profdb/profilers/lightcoverage"
package lightcoverage
