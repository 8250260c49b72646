// Package pproftest reads the table `go tool pprof -top` prints: flat and
// cum per function, for the tests that check profdb's figures against
// pprof's.
package pproftest
