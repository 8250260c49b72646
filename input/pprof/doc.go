// Package pprof reads the profiles of Go's own profiler (the gzipped
// protobuf files `go test -cpuprofile`, runtime/pprof and net/http/pprof
// write, and that `go tool pprof` reads) and registers itself as the input
// format "pprof". Import it for its side effect:
//
//	import _ "github.com/profdb/profdb/input/pprof"
//
// The profile is decoded with github.com/google/pprof/profile. A CPU
// profile becomes a Function Trace result set (one routine per function,
// the call tree of the sample stacks); a heap or allocation profile becomes
// a Resource result set (one class per allocation site, the live objects
// with their creation stacks). Other sample types (mutex, block, goroutine)
// are refused with an error naming them. docs/pprof.md gives the mapping
// column by column.
package pprof
