// Package inputtest holds what the tests of the coverage readers
// (input/cobertura, input/gocover, input/jacoco, input/lcov) share: reading
// a report into memory with the reader's notes and warnings, joining a
// result set's routine tables back into routines, the % covered of its
// MODULES_DATA and SOURCE_FILES_DATA, the checks that malformed and empty
// inputs are refused or hold no result set, the FuzzRead property, and
// skipping (or, under CI=true, failing) a comparison whose real tool is
// missing.
//
// It is a test kit: each reader's tests (its _test.go and fuzz_test.go)
// use it.
package inputtest
