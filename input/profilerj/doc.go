// Package profilerj reads Terrasoft ProfilerJ XML snapshots and registers
// the input format "profilerj". Import it for its side effect:
//
//	import _ "github.com/profdb/profdb/input/profilerj"
//
// A snapshot's sections become result sets: <coverage> a Light Coverage
// result set, <profile> and <sampler> each a Function Trace result set, and
// <memory> a Resource result set. docs/profilerj.md lists, attribute by
// attribute, where each value goes and what is not kept.
//
// The whole file is parsed before anything is written, so a malformed,
// cut-off or hand-edited snapshot writes nothing; the error names the file
// and line. Parsing streams: the call-tree rows of the <profile> and
// <sampler> sections go to a temporary spool, so that memory stays bounded
// by the number of distinct routines and call routes, not by the file size.
package profilerj
