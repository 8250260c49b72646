// Package trendtest exports a small history of runs for the tests of
// trend, of `profdb trend` and of `report --trend`: result sets of every
// profiler with a run identity (resultset.Header.Run) on branch main and
// on a feature branch, whose figures move from run to run, and a source
// file whose name is hostile (markup, terminal escapes, a spreadsheet
// formula).
package trendtest
