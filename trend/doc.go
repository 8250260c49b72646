// Package trend follows the headline figures of a series of result sets
// of one profiler over time: what `profdb trend` prints and `profdb report
// --trend` draws.
//
// The result sets are chosen with a store.Filter (branch, labels,
// profiler, time, the last N), oldest first, in one read snapshot. Every
// figure is read through package readback, which defines it: a run's
// figures are readback.Figures (show's headline figures), read for every
// run at once by readback.FiguresOf (a query per profiler table, grouped
// by INST_ID), one file's or routine's figures are
// readback's FileCoverage, RoutineCoverage and TimesByRoutine, and the
// movers between the first and the last run are readback's pairs
// (FileCoverage, OwnTimes, ClassCompare). Trend holds no SQL of its own.
//
// A trend is of one profiler: a filter that matches result sets of
// several is refused (name one with Filter.Profiler; the error is an
// *optionerr.Error naming the field, as is that of a File or Routine of a
// profiler without such figures), and so are function traces measured
// with different counters, whose times do not compare.
package trend
