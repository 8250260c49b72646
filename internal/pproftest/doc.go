// Package pproftest reads the table `go tool pprof -top` prints: flat and
// cum per function, for the tests that check profdb's figures against
// pprof's.
//
// It is a test kit: cmd/profdb's figures test and input/pprof's test of
// real profiles use it.
package pproftest
