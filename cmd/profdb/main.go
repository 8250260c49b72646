package main

import (
	"os"
	"runtime/debug"
)

// gcPercent is the garbage collector's target of profdb, unless GOGC says
// otherwise: the heap may grow to three times what is live before a
// collection, not twice. An export streams its rows and keeps little
// alive, so the larger heap is a small, fixed amount of memory, while the
// collector runs half as often: exports get faster. A higher target was
// faster still, but its peak memory grew with the number of rows, and an
// export's memory must stay flat. The measurements are in
// docs/performance.md ("Garbage collection").
const gcPercent = 200

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	c := run(os.Args[1:], os.Stdout, os.Stderr)
	os.Exit(c)
}
