// Package merge combines result sets of one profiler into a new one, item
// by item, as AQTime's "Merging Results" does: items are matched by name
// (module, source file, namespace, class, routine and its first line, line
// number), never by ID, which is per result set; their counts are combined
// by an operation (Sum, Avg, Max, Min); every derived figure is recomputed
// from the combined ones by the profiler's typed builder, so that IDs,
// parent links and derived columns come out as an export writes them.
//
// Merge reads the inputs from a store.DB, one table at a time, in one
// consistent snapshot (a readback.Reader; inputs must compare, by
// readback.Comparable), and writes the new result set through any
// resultset.Target (an exporter, for a database) with resultset.Export: in
// one transaction, checked before commit as verify checks. Memory grows
// with the number of distinct items of the merged result set, not with the
// number of inputs or of their rows.
//
// Light Coverage, Function Trace, Resource and Reference Count are
// supported; another profiler is refused with an error that says so.
// Resource and Reference Count merges match classes by name and module,
// objects by class, thread and creation number. A Function Trace merge matches
// threads by thread id (by position without one) and calls by their call
// path of routines from the top of the thread and their occurrence among
// the calls of that routine by that caller; the memory it holds grows with
// the distinct calls of the merged call tree.
package merge
