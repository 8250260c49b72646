// Package gocover reads Go coverage profiles (the files `go test
// -coverprofile` writes) into light-coverage result sets, and registers
// itself as the input format "gocover". Import it for its side effect:
//
//	import _ "github.com/profdb/profdb/input/gocover"
//
// A profile names files by import path and holds counter blocks, not
// functions, so the reader parses the Go sources (found through the module's
// go.mod, see input.Options.SourceRoot) to learn where each function starts
// and ends, the way `go tool cover -func` does. Every function with a body is
// a routine; its lines are the lines where its statements start, as cover
// counts statements (the if of an else if included). docs/gocover.md gives
// the mapping column by column.
package gocover
