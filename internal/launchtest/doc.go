// Package launchtest measures a command's wall time and peak RSS for the
// benchmarks. On Linux the peak RSS a parent reads of its child
// (ru_maxrss) also counts the memory of the process that started the child,
// carried over the exec (os/exec starts children with vfork semantics), so
// a benchmark that generated millions of rows would see its own size. The
// benchmark starts the command through a launcher instead: the test binary
// started afresh, whose own few MiB are then the floor of the figure.
//
// A test binary that uses Run calls Main first in its TestMain.
//
// It is a test kit: the memory tests and benchmarks of cmd/profdb
// (bounds_test.go, check_mem_test.go, longvalues_test.go), exporter,
// report and input/pprof, and the history benchmark (internal/historytest)
// measure through it.
package launchtest
