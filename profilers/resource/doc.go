// Package resource registers the tables of AQTime's Resource profiler as the
// profiler "resource". Import it for its side effect:
//
//	import _ "github.com/profdb/profdb/profilers/resource"
package resource
