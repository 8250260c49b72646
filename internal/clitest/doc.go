// Package clitest builds the profdb command for the tests and benchmarks
// that must run it as users get it, from go build: the tests of another
// package (report, exporter), of the integration module, and the test of
// what go build stamps into the binary. The tests of cmd/profdb run their
// own test binary as profdb instead, and build nothing.
package clitest
