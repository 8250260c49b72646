// Package compare compares two result sets of the same profiler, as
// AQTime's "Comparing Results" does: items are matched by name (module,
// source file, class, routine, line number), never by ID, which is per
// result set, and each figure is given in A, in B and as a change in the
// chosen Style (B − A, B / A, or (B − A) / A × 100).
//
//   - Coverage (Light Coverage): % of lines and routines covered in all, per
//     source file and per routine; the lines covered in A and not in B (new
//     misses) and the reverse; files and routines in only one set.
//   - Trace (Function Trace): per routine calls, own time and time with
//     children. Two traces measured with different counters (name or
//     frequency) are refused, as AQTime refuses them
//     (readback.Comparable).
//   - Classes (Resource, Reference Count): per class live count and size,
//     peak created and peak size.
//
// The matching runs in the database: each query reads the rows of both
// result sets (INST_ID IN (A, B)), aggregates them per result set and
// item, and groups the aggregates by name, so that one row per name comes
// back with A's and B's figures side by side. Lists are bounded
// (Options.Top, largest change first) and record how many entries there were
// in all; Lines streams every changed line. Memory therefore does not grow
// with the rows of the result sets. The SQL is readback's (FileCoverage,
// RoutineCoverage, ChangedLines, ClassCompare, TimesByRoutine): compare
// holds none, so its figures are show's and check's.
//
// Options.Rank says what comes first: the largest change either way
// (Magnitude, the default), the largest increase (routines that slowed
// most) or the largest decrease (files that lost most coverage).
//
// The functions take a readback.Reader: they read in its snapshot. A Result
// writes itself as `profdb compare` prints it (WriteText, WriteJSON); a
// Style formats a change (Style.Format) and says what it is
// (Style.Describe).
package compare
