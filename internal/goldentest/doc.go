// Package goldentest is a test kit: output compared with a golden file
// under testdata, or written to it when the test runs with -update, in the
// style of go/printer's tests.
//
// The golden tests of what the libraries print use it: compare's
// TestResultTextAndJSON, gate's TestWriteMarkdownGolden, readback's text
// tests and trend's format tests. cmd/profdb keeps its own golden files of
// whole command lines (its -update flag rewrites docs/cli as well).
package goldentest
