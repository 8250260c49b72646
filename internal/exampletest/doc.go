// Package exampletest computes, for tests, the figures that show and report
// must give for the example inputs (examples/*.json), straight from the
// JSON and without a database, so that what the read side gets from SQL is
// checked against an independent computation.
//
// It is a test kit: readback's tests (readback_test.go, cookbook_test.go,
// text_test.go), report's (report_test.go, chromium_test.go), cmd/profdb's
// show, compare and selector tests and plantest's plan tests check against
// it.
package exampletest
