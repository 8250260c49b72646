// Package gate is profdb's CI gate (`profdb check`): rules on a result set
// that a pipeline can fail on. A rule holds or fails; Check evaluates the
// rules it is given and names, for each one that fails, the items
// responsible.
//
//   - min-coverage: the line coverage of a Light Coverage result set is at
//     least a percentage.
//   - max-drop: its line coverage fell by at most so many points from a
//     baseline result set's; the files that lost most are named.
//   - patch-coverage: of the lines a unified diff adds (ParseDiff), the
//     share that ran, among those some profiler row knows, is at least a
//     percentage; the uncovered changed lines are named as file:line ranges.
//     Diff paths are matched to the result set's source file names by the
//     longest common path tail. ParseDiff reads the diff as a stream and
//     keeps runs of changed lines, so memory grows with the diff's files and
//     runs, not its size; input with no file header is refused as no diff.
//   - max-time-increase: the total time of a Function Trace result set grew
//     by at most a percentage over a baseline's; the routines that slowed
//     most are named.
//
// The gate fails closed: a coverage rule fails on a result set with no line
// at all, whatever its limit, and Check refuses limits outside their range
// (coverage and drop 0 to 100, time increase 0 or more, never NaN or Inf).
//
// Every figure is read through package readback, the one home of the
// figures show and compare print (line and file coverage, total and own
// time), computed by SQL in the database and grouped by name exactly, so
// memory does not grow with the rows; gate holds no SQL. A baseline must
// compare with the result set (readback.Comparable). A
// Report prints as text, JSON, JUnit XML, GitHub workflow annotations or a
// pull-request comment in Markdown (WriteMarkdown), whose names from the
// data are code spans (MarkdownCode) and whose size is bounded.
package gate
