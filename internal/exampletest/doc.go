// Package exampletest computes, for tests, the figures that show and report
// must give for the example inputs (examples/*.json), straight from the
// JSON and without a database, so that what the read side gets from SQL is
// checked against an independent computation.
package exampletest
