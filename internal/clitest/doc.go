// Package clitest is a test kit: it builds the profdb command for the
// tests and benchmarks that must run it as users get it, from go build.
//
// Its users: the benchmarks of exporter (bench_test.go) and report
// (bench_mem_test.go), the history benchmark (internal/historytest), the
// integration module's suite and Galera test, and cmd/profdb's test of
// what go build stamps into the binary (version_test.go). The other tests
// of cmd/profdb run their own test binary as profdb instead, and build
// nothing.
package clitest
